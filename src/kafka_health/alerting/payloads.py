"""Payloads: what the receiver is told of each alert, and the notification of a group
(Alertmanager's fields; the idempotency key that makes a retry the same notification)."""

from __future__ import annotations

import json

from kafka_health.alerting.config import ReceiverConfig
from kafka_health.alerting.engine import Alert
from kafka_health.alerting.group import group_labels
from kafka_health.alerting.notification import AlertPayload, Notification
from kafka_health.alerting.notify_log import NotifiedAlert, NotifyReason, idempotency_key


class Payloads:
    """Builds payloads for one cluster's notifications."""

    def __init__(self, cluster: str, group_by: list[str], external_url: str) -> None:
        self.cluster = cluster
        self.group_by = group_by
        self.external_url = external_url

    def annotations(self, alert: Alert, extra: dict[str, dict[str, str]]) -> dict[str, str]:
        """The alert's annotations with its cause named (``extra``: the mute stage's)."""
        return {**alert.annotations, **extra.get(alert.fingerprint, {})}

    def firing(self, alert: Alert, extra: dict[str, dict[str, str]]) -> AlertPayload:
        """A firing alert as notified (its details compacted into an annotation)."""
        annotations = self.annotations(alert, extra)
        if alert.details:
            annotations["details"] = _compact(alert.details)
        return AlertPayload(
            "firing",
            {"cluster": self.cluster, **alert.labels},
            annotations,
            alert.starts_at,
            None,
            alert.fingerprint,
        )

    def resolved(
        self, fp: str, told: NotifiedAlert, alert: Alert | None, now: float
    ) -> AlertPayload:
        """The resolution of an alert as it was told (ends when the alert did, or now)."""
        ends_at = alert.ends_at if alert is not None and alert.ends_at is not None else now
        return AlertPayload(
            "resolved",
            {"cluster": self.cluster, **told.labels},
            told.annotations,
            told.starts_at,
            ends_at,
            fp,
        )

    def notification(
        self,
        receiver: ReceiverConfig,
        key: str,
        reason: NotifyReason,
        alerts: list[AlertPayload],
        repeat: int,
        now: float,
        causes: list[str] | None = None,
    ) -> Notification:
        firing = any(a.status == "firing" for a in alerts)
        return Notification(
            receiver=receiver.name,
            group_key=key,
            group_labels=group_labels(alerts[0].labels, self.group_by),
            status="firing" if firing else "resolved",
            reason=reason.value,
            idempotency_key=idempotency_key(
                receiver.name,
                key,
                [(a.fingerprint, a.status, a.starts_at) for a in alerts],
                repeat,
                causes,
            ),
            alerts=alerts,
            cluster=self.cluster,
            external_url=self.external_url,
            created_at=now,
        )


def _compact(details: dict[str, object], limit: int = 2000) -> str:
    text = json.dumps(details, sort_keys=True, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
