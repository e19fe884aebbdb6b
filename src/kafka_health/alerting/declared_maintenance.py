"""Declared maintenance: an operator, or a deploy's automation, says a broker is being worked on.

``kafka-health maintenance start --broker N --for 10m`` writes ``<state_dir>/maintenance.json``
(atomically, under a lock file so that two deploys starting at once keep each other's entry);
the running alert service re-reads it when it changes, at each evaluation, as it does
``silences.json``. While a broker is in declared maintenance, the alerts a controlled shutdown's
maintenance mutes (:mod:`~.maintenance`) are muted for it, at once: the declaration is
authoritative, nothing waits for the broker logs, so a restart inside it never pages. When it
ends (its expiry, or ``maintenance end``), a symptom still holding pages as usual.

The file is bounded: at most :data:`MAX_ENTRIES` entries, each at most :data:`MAX_DURATION_S`
long, for a broker id of Kafka's (an int32 ≥ 0). A malformed entry (a hand edit) is skipped
with a warning naming it, and kept in the file as it is; it never stops the service. Ended
entries are kept :data:`KEEP_ENDED_S` (an alert in ``keep_firing_for`` is judged against them),
then pruned by the next write.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kafka_health.alerting.persist import read_json, write_json
from kafka_health.alerting.silence import format_time

log = logging.getLogger(__name__)

FILE_NAME = "maintenance.json"
MAX_ENTRIES = 256
"""Entries of the file the service reads (the first ones); the command refuses to write more."""
MAX_DURATION_S = 86400.0
"""A declared window is at most a day: a forgotten ``end`` cannot mute a broker for good."""
KEEP_ENDED_S = 86400.0
"""Ended windows are kept this long (as the maintenance module's ``RETENTION_S``)."""
MAX_BROKER_ID = 2**31 - 1
MAX_COMMENT = 500
"""Characters of a comment kept (it is shown in ``list`` and the service's log)."""


def parse_broker_id(value: object) -> int:
    """A Kafka broker id (an int32 ≥ 0) from an int or its decimal text; ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{value!r} is not a broker id (an integer from 0 to {MAX_BROKER_ID})")
    text = str(value).strip()
    if not text.isascii() or not text.isdigit() or int(text) > MAX_BROKER_ID:
        raise ValueError(f"{value!r} is not a broker id (an integer from 0 to {MAX_BROKER_ID})")
    return int(text)


def _epoch(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key!r} is not a number")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{key!r} is not a finite number")
    return number


@dataclass(frozen=True)
class DeclaredWindow:
    """Broker ``broker_id`` is in maintenance from ``starts_at`` until ``ends_at``."""

    broker_id: int
    starts_at: float
    ends_at: float
    comment: str = ""
    created_by: str = ""

    def active(self, at: float) -> bool:
        return self.starts_at <= at < self.ends_at

    def to_json(self) -> dict[str, object]:
        return {
            "broker_id": self.broker_id,
            "starts_at": self.starts_at,
            "ends_at": self.ends_at,
            "comment": self.comment,
            "created_by": self.created_by,
        }

    @staticmethod
    def from_json(data: object) -> DeclaredWindow:
        """An entry of ``maintenance.json``; ``ValueError`` saying what is wrong with it."""
        if not isinstance(data, Mapping):
            raise ValueError(f"not an object but {type(data).__name__}")
        for key in ("broker_id", "starts_at", "ends_at"):
            if key not in data:
                raise ValueError(f"no {key!r}")
        broker = parse_broker_id(data["broker_id"])
        starts, ends = _epoch(data["starts_at"], "starts_at"), _epoch(data["ends_at"], "ends_at")
        if ends <= starts:
            raise ValueError("'ends_at' is not after 'starts_at'")
        if ends - starts > MAX_DURATION_S:
            raise ValueError(f"longer than the {MAX_DURATION_S / 3600:g} h maximum")
        return DeclaredWindow(
            broker,
            starts,
            ends,
            str(data.get("comment", ""))[:MAX_COMMENT],
            str(data.get("created_by", ""))[:MAX_COMMENT],
        )


def _entry_name(index: int, entry: object) -> str:
    name = f"#{index}"
    if isinstance(entry, Mapping) and isinstance(entry.get("broker_id"), int | str):
        name += f" (broker {str(entry['broker_id'])[:20]!r})"
    return name


@dataclass
class DeclaredMaintenance:
    """The windows of ``path``, re-read when the file changes (the service only reads)."""

    path: Path
    skipped: int = 0
    """Malformed entries in the file as last read (each logged with its index)."""
    skipped_total: int = 0
    announce: bool = False
    """Log each window as it is first read (the service; not the command)."""
    _windows: list[DeclaredWindow] = field(default_factory=list)
    _malformed: list[object] = field(default_factory=list)
    _stamp: tuple[int, int] | None = None
    _seen: set[DeclaredWindow] = field(default_factory=set)

    def reload(self) -> None:
        """Re-read the file if it changed since the last read."""
        try:
            st = self.path.stat()
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            raw = read_json(self.path, {"maintenance": []})
        except OSError as exc:  # a directory, no permission: the service goes on without it
            log.warning("%s: cannot be read (%s): no maintenance loaded from it", self.path, exc)
            raw = {"maintenance": []}
        self._load(raw)

    def _load(self, raw: object) -> None:
        entries = raw.get("maintenance", []) if isinstance(raw, Mapping) else None
        unreadable = not isinstance(entries, list)
        if not isinstance(entries, list):
            log.warning("%s: no list 'maintenance' in it: no maintenance loaded from it", self.path)
            entries = []
        if len(entries) > MAX_ENTRIES:
            log.warning(
                "%s: %d entries, only the first %d read", self.path, len(entries), MAX_ENTRIES
            )
            entries = entries[:MAX_ENTRIES]
        windows: list[DeclaredWindow] = []
        malformed: list[object] = []
        for i, entry in enumerate(entries):
            try:
                windows.append(DeclaredWindow.from_json(entry))
            except ValueError as exc:
                malformed.append(entry)
                log.warning(
                    "%s: maintenance %s skipped, malformed: %s", self.path, _entry_name(i, entry),
                    exc,
                )  # fmt: skip
        for w in windows if self.announce else []:
            if w not in self._seen:
                log.info(
                    "broker %d: declared maintenance %s .. %s%s", w.broker_id,
                    format_time(w.starts_at), format_time(w.ends_at),
                    f" ({w.comment})" if w.comment else "",
                )  # fmt: skip
        self._seen = set(windows)
        self._windows, self._malformed = windows, malformed
        self.skipped = len(malformed) + unreadable
        self.skipped_total += self.skipped

    def windows(self) -> list[DeclaredWindow]:
        return list(self._windows)

    def active(self, at: float) -> dict[int, DeclaredWindow]:
        """Per broker in declared maintenance at ``at``, its window (the latest ending)."""
        found: dict[int, DeclaredWindow] = {}
        for w in self._windows:
            if w.active(at) and (
                w.broker_id not in found or w.ends_at > found[w.broker_id].ends_at
            ):
                found[w.broker_id] = w
        return found

    def brokers(self, at: float) -> set[str]:
        """The broker ids (as labels) in declared maintenance at ``at``."""
        return {str(w.broker_id) for w in self._windows if w.active(at)}

    # Writers (the ``maintenance`` command).

    def start(
        self, broker_id: int, duration_s: float, comment: str, created_by: str, now: float
    ) -> DeclaredWindow:
        """Put ``broker_id`` in maintenance from now for ``duration_s`` (a broker already in
        it: its window now ends then, from its start). ``ValueError`` for a bad argument."""
        broker_id = parse_broker_id(broker_id)
        if not 0 < duration_s <= MAX_DURATION_S:
            raise ValueError(f"the duration must be above 0 and at most {MAX_DURATION_S:g} s")
        with self._locked():
            current = [w for w in self._windows if w.broker_id == broker_id and w.active(now)]
            ends = now + duration_s
            # Extended, it keeps its start, unless that would make it longer than the maximum.
            starts = min([now, *(w.starts_at for w in current)])
            if ends - starts > MAX_DURATION_S:
                starts = now
            window = DeclaredWindow(
                broker_id, starts, ends, comment[:MAX_COMMENT], created_by[:MAX_COMMENT]
            )
            kept = [w for w in self._windows if w not in current]
            self._write([*kept, window], now)
            return window

    def end(self, broker_id: int | None, now: float) -> list[DeclaredWindow]:
        """End the active windows of ``broker_id`` (None: of every broker) now; the ended ones
        (none: nothing was active)."""
        with self._locked():
            ended: list[DeclaredWindow] = []
            updated: list[DeclaredWindow] = []
            for w in self._windows:
                if w.active(now) and broker_id in (None, w.broker_id):
                    w = DeclaredWindow(w.broker_id, w.starts_at, now, w.comment, w.created_by)
                    ended.append(w)
                updated.append(w)
            if ended:
                self._write(updated, now)
            return ended

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The file's lock (another ``maintenance`` command waits), and its current content."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._stamp = None
                self.reload()
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self, windows: list[DeclaredWindow], now: float) -> None:
        kept = [w for w in windows if w.ends_at > now - KEEP_ENDED_S]
        if len(kept) > MAX_ENTRIES:  # the oldest ended ones go first
            ended = sorted((w for w in kept if w.ends_at <= now), key=lambda w: w.ends_at)
            drop = set(ended[: len(kept) - MAX_ENTRIES])
            kept = [w for w in kept if w not in drop]
        if len(kept) > MAX_ENTRIES:
            raise ValueError(f"{len(kept)} brokers in maintenance: at most {MAX_ENTRIES}")
        malformed = self._malformed[: MAX_ENTRIES - len(kept)]
        write_json(self.path, {"maintenance": [*(w.to_json() for w in kept), *malformed]})
        self._stamp = None
        self.reload()
