"""A notification: one group's alerts for one receiver, as the outbox stores it until
delivered and the payload formats (``webhook``, ``payloads``) render it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class AlertPayload:
    """One alert as notified: Alertmanager's fields, times in epoch seconds."""

    status: str
    labels: dict[str, str]
    annotations: dict[str, str]
    starts_at: float
    ends_at: float | None
    fingerprint: str


@dataclass(frozen=True)
class Notification:
    """One group's notification to one receiver; stored in the outbox until delivered."""

    receiver: str
    group_key: str
    group_labels: dict[str, str]
    status: str
    reason: str
    idempotency_key: str
    alerts: list[AlertPayload]
    cluster: str = ""
    external_url: str = ""
    created_at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Notification:
        fields = dict(data)
        fields["alerts"] = [AlertPayload(**a) for a in fields["alerts"]]
        return Notification(**fields)
