"""The outbox: notifications written to disk before they are sent, removed once delivered.

One file per notification (``<seq>.json``), rewritten after each failed attempt, deleted after
delivery; the delivered idempotency keys are appended to ``delivered.jsonl``. A crash loses
nothing not yet delivered, and enqueuing a notification whose key is pending or delivered is a
no-op, so a replayed batch or a restart never pages twice. Notifications of one group to one
receiver go out in order: only the oldest is attempted. Each receiver's worker asks for its
own due entries (``due(now, receiver)``); the store on disk stays one.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_health.alerting.notification import Notification
from kafka_health.alerting.persist import StateWrites, _fsync_dir, read_json


@dataclass
class OutboxEntry:
    seq: int
    notification: Notification
    created_at: float
    attempts: int = 0
    next_attempt_at: float = 0.0
    last_error: str = ""
    told_before: dict[str, Any] | None = None
    """The notification log's entry of the group before this notification was recorded
    (``Entry.to_json``; None: the group had none): restored if it is dropped, so what the
    receiver never accepted is owed again."""
    told_after: dict[str, Any] | None = None
    """The entry the notification log records for the group with this notification, written
    with it: a kill between this file and the log's leaves the log one step behind, and the
    restarted service records it from here (:meth:`Outbox.unrecorded`)."""

    @property
    def slot(self) -> tuple[str, str]:
        return (self.notification.receiver, self.notification.group_key)

    @property
    def key(self) -> tuple[str, str]:
        return (self.notification.receiver, self.notification.idempotency_key)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "notification": self.notification.to_json(),
            "created_at": self.created_at,
            "attempts": self.attempts,
            "next_attempt_at": self.next_attempt_at,
            "last_error": self.last_error,
            "told_before": self.told_before,
            "told_after": self.told_after,
        }


class Outbox:
    """Thread-safe: the evaluation thread enqueues, the delivery thread sends."""

    def __init__(
        self,
        directory: Path,
        delivered_retention_s: float,
        now: float,
        writes: StateWrites | None = None,
    ) -> None:
        self.dir = directory
        self.writes = writes or StateWrites()
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._entries: dict[int, OutboxEntry] = {}
        for path in self.dir.glob("*.json"):
            data = read_json(path, None)
            if data is None:
                continue
            entry = OutboxEntry(
                data["seq"],
                Notification.from_json(data["notification"]),
                data["created_at"],
                data.get("attempts", 0),
                data.get("next_attempt_at", 0.0),
                data.get("last_error", ""),
                data.get("told_before"),
                data.get("told_after"),
            )
            self._entries[entry.seq] = entry
        self._seq = max(self._entries, default=0)
        self._delivered_path = self.dir / "delivered.jsonl"
        self._delivered: dict[tuple[str, str], float] = {}
        self._load_delivered(now - delivered_retention_s)
        for entry in list(self._entries.values()):
            # Killed after its key was logged as delivered, before its file was removed: it
            # went out (seen: a kill -9 in that moment sent the page again after the restart).
            if entry.key in self._delivered:
                self._remove(entry)

    def _load_delivered(self, keep_after: float) -> None:
        lines: list[str] = []
        if self._delivered_path.exists():
            lines = self._delivered_path.read_text(encoding="utf-8").splitlines()
        for line in lines:
            try:
                item = json.loads(line)
            except json.JSONDecodeError:  # a line torn by a crash
                continue
            if item["at"] >= keep_after:
                self._delivered[(item["receiver"], item["key"])] = item["at"]
        self._rewrite_delivered()

    def save_all(self) -> None:
        """Write every pending entry and the delivered log again (after the disk refused
        some: what was kept in memory meanwhile goes to disk once it takes it)."""
        with self._lock:
            for entry in self._entries.values():
                self._save(entry)
            self._rewrite_delivered()

    def _rewrite_delivered(self) -> None:
        text = "".join(
            json.dumps({"receiver": r, "key": k, "at": at}) + "\n"
            for (r, k), at in self._delivered.items()
        )
        self.writes.attempt("outbox", self._delivered_path, lambda: self._compact(text))

    def _compact(self, text: str) -> None:
        """Rewrite the delivered log with only the keys still kept: the new file's bytes are
        on disk before it replaces the old, and the rename is on disk before it returns (a
        crash leaves the old log or the new one, never an empty one: the keys of delivered
        pages are what keeps them from being sent again)."""
        tmp = self._delivered_path.with_suffix(".tmp")
        try:
            with tmp.open("w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._delivered_path)
        finally:
            tmp.unlink(missing_ok=True)
        _fsync_dir(self.dir)

    def enqueue(
        self,
        notification: Notification,
        now: float,
        told_before: dict[str, Any] | None = None,
        told_after: dict[str, Any] | None = None,
    ) -> bool:
        """Store a notification (with the group's notification-log entries before and after
        it); False when its key is already pending or delivered."""
        key = (notification.receiver, notification.idempotency_key)
        with self._lock:
            if key in self._delivered or any(e.key == key for e in self._entries.values()):
                return False
            self._seq += 1
            entry = OutboxEntry(
                self._seq, notification, now, next_attempt_at=now, told_before=told_before,
                told_after=told_after,
            )  # fmt: skip
            # Kept in memory when the disk refuses it: the page still goes out.
            self._save(entry)
            self._entries[entry.seq] = entry
            return True

    def due(self, now: float, receiver: str | None = None) -> list[OutboxEntry]:
        """The oldest entry of each (receiver, group) whose next attempt is due (of
        ``receiver`` only, when given)."""
        with self._lock:
            return [e for e in self._heads(receiver) if e.next_attempt_at <= now]

    def next_attempt_at(self, receiver: str | None = None) -> float | None:
        """When the next attempt is due (of ``receiver`` only, when given): the heads' times
        only, as only they are attempted (a later entry's past time is no reason to wake)."""
        with self._lock:
            return min((e.next_attempt_at for e in self._heads(receiver)), default=None)

    def _heads(self, receiver: str | None) -> list[OutboxEntry]:
        heads: dict[tuple[str, str], OutboxEntry] = {}
        for seq in sorted(self._entries):
            entry = self._entries[seq]
            if receiver is None or entry.notification.receiver == receiver:
                heads.setdefault(entry.slot, entry)
        return list(heads.values())

    def delivered(self, entry: OutboxEntry, now: float) -> None:
        with self._lock:
            receiver, key = entry.key
            line = json.dumps({"receiver": receiver, "key": key, "at": now}) + "\n"
            self.writes.attempt("outbox", self._delivered_path, lambda: self._append(line))
            self._delivered[entry.key] = now
            self._remove(entry)

    def _save(self, entry: OutboxEntry) -> None:
        self.writes.write_json("outbox", self._path(entry), entry.to_json())

    def _append(self, line: str) -> None:
        with self._delivered_path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def failed(self, entry: OutboxEntry, next_attempt_at: float, error: str) -> None:
        with self._lock:
            entry.attempts += 1
            entry.next_attempt_at = next_attempt_at
            entry.last_error = error
            if entry.seq in self._entries:
                self._save(entry)

    def drop(self, entry: OutboxEntry) -> None:
        """Give up on an entry (a permanent error, or too old)."""
        with self._lock:
            self._remove(entry)

    def pass_on(self, dropped: OutboxEntry) -> bool:
        """Hand a dropped entry's ``told_before`` to the next pending notification of its
        group (which then owes what neither delivered); False when none is pending."""
        with self._lock:
            later = [e for s, e in sorted(self._entries.items()) if e.slot == dropped.slot]
            if not later:
                return False
            later[0].told_before = dropped.told_before
            self._save(later[0])
            return True

    def unrecorded(self, recorded: Mapping[tuple[str, str], dict[str, Any]]) -> list[OutboxEntry]:
        """The pending entries whose group's notification-log entry, in ``recorded`` (by
        receiver and group key, ``Entry.to_json``), is still the one from before them: the
        service was killed after writing the notification and before the log."""
        with self._lock:
            return [
                e for s, e in sorted(self._entries.items())
                if e.told_after is not None and recorded.get(e.slot) == e.told_before
            ]  # fmt: skip

    def pending(self) -> list[OutboxEntry]:
        with self._lock:
            return [self._entries[s] for s in sorted(self._entries)]

    def was_delivered(self, receiver: str, key: str) -> bool:
        with self._lock:
            return (receiver, key) in self._delivered

    def _remove(self, entry: OutboxEntry) -> None:
        self._entries.pop(entry.seq, None)
        self._path(entry).unlink(missing_ok=True)

    def _path(self, entry: OutboxEntry) -> Path:
        return self.dir / f"{entry.seq:012d}.json"
