"""The notification log: what each receiver was last told about each group, on disk.

Dedup (Alertmanager's ``DedupStage``) compares the group's firing and resolved alerts with the
last entry and gives the :class:`NotifyReason` to notify, or None. An entry is recorded when
its notification enters the (persistent, retried) outbox; if the receiver never accepts it
(dropped: a 4xx answer, or given up), :meth:`NotifyLog.restore` puts the entry from before it
back, so the group is notified again: a page counts as sent only once it was accepted. The
log is rewritten atomically after each change, so a restart neither re-pages a firing alert
nor forgets that its resolution is owed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from kafka_health.alerting.persist import StateWrites, read_json


class NotifyReason(StrEnum):
    FIRST = "first"
    """The group's first firing alerts."""
    NEW_ALERTS = "new_alerts"
    RESOLVED = "resolved"
    REPEAT = "repeat"
    """Still firing after the repeat interval."""
    CAUSE = "cause"
    """A notified alert's cause is now known (or changed): the same incident, updated."""


@dataclass
class NotifiedAlert:
    """What was told about one firing alert; enough to send its resolution later."""

    starts_at: float
    labels: dict[str, str]
    annotations: dict[str, str] = field(default_factory=dict)
    cause: str = ""
    """The fingerprint of the root cause it was told to have ("" when none): the same cause
    with a new value in its summary is not a new update."""


@dataclass
class Entry:
    firing: dict[str, NotifiedAlert]
    notified_at: float
    repeat: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "notified_at": self.notified_at,
            "repeat": self.repeat,
            "firing": {fp: a.__dict__ for fp, a in self.firing.items()},
        }

    @staticmethod
    def from_json(item: Mapping[str, Any]) -> Entry:
        firing = {fp: NotifiedAlert(**a) for fp, a in item["firing"].items()}
        return Entry(firing, item["notified_at"], item.get("repeat", 0))


def needs_update(
    entry: Entry | None,
    firing: Mapping[str, float],
    resolved: set[str],
    repeat_interval_s: float,
    now: float,
    causes: Mapping[str, str] | None = None,
) -> NotifyReason | None:
    """Why to notify: ``firing`` maps the group's unmuted firing alerts to their start,
    ``resolved`` are fingerprints of notified alerts that are no longer firing, ``causes``
    the root cause (fingerprint) now explaining notified alerts."""
    if entry is None or not entry.firing:
        return NotifyReason.FIRST if firing else None
    for fp, cause in (causes or {}).items():
        known = entry.firing.get(fp)
        if known is not None and known.cause != cause:
            return NotifyReason.CAUSE
    for fp, starts_at in firing.items():
        known = entry.firing.get(fp)
        if known is None or known.starts_at != starts_at:
            return NotifyReason.NEW_ALERTS
    if resolved:
        return NotifyReason.RESOLVED
    if firing and now - entry.notified_at >= repeat_interval_s:
        return NotifyReason.REPEAT
    return None


def idempotency_key(
    receiver: str,
    group_key: str,
    alerts: list[tuple[str, str, float]],
    repeat: int,
    causes: list[str] | None = None,
) -> str:
    """The key of one notification: receiver, group, each alert's (fingerprint, state, start),
    for a reminder its number, and the causes it names (an update naming a cause is a new
    notification). The same notification always has the same key."""
    material: list[object] = [receiver, group_key, sorted(alerts), repeat]
    if causes:
        material.append(sorted(causes))
    text = json.dumps(material, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class NotifyLog:
    """Entries by (receiver, group key), persisted in one JSON file."""

    def __init__(self, path: Path, writes: StateWrites | None = None) -> None:
        self.path = path
        self.writes = writes or StateWrites()
        self.entries: dict[tuple[str, str], Entry] = {}
        for item in read_json(path, []):
            self.entries[(item["receiver"], item["group_key"])] = Entry.from_json(item)

    def get(self, receiver: str, group_key: str) -> Entry | None:
        return self.entries.get((receiver, group_key))

    def record(self, receiver: str, group_key: str, entry: Entry) -> None:
        self.entries[(receiver, group_key)] = entry
        self.save()

    def restore(self, receiver: str, group_key: str, entry: Entry | None) -> None:
        """Put back the group's entry from before a notification that was never accepted
        (None: the group had none), so the next evaluation owes its content again."""
        if entry is None:
            self.entries.pop((receiver, group_key), None)
        else:
            self.entries[(receiver, group_key)] = entry
        self.save()

    def gc(self, now: float, retention_s: float) -> None:
        """Forget groups with nothing firing that were last notified before the retention."""
        stale = [
            key
            for key, e in self.entries.items()
            if not e.firing and now - e.notified_at > retention_s
        ]
        for key in stale:
            del self.entries[key]
        if stale:
            self.save()

    def save(self) -> None:
        data: list[dict[str, Any]] = [
            {"receiver": receiver, "group_key": group_key, **e.to_json()}
            for (receiver, group_key), e in self.entries.items()
        ]
        self.writes.write_json("notification_log", self.path, data)
