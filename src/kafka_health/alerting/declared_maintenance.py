"""Declared maintenance: an operator, or a deploy's automation, says a broker is being worked on.

``kafka-health maintenance start --broker N --for 10m`` writes ``<state_dir>/maintenance.json``
(atomically, under a lock file so that two deploys starting at once keep each other's entry:
:mod:`~.state_list`); the running alert service re-reads it when it changes, at each
evaluation, as it does ``silences.json``. While a broker is in declared maintenance, the
alerts a controlled shutdown's maintenance mutes (:mod:`~.maintenance`) are muted for it, at
once: the declaration is authoritative, nothing waits for the broker logs, so a restart inside
it never pages. When it ends (its expiry, or ``maintenance end``), a symptom still holding
pages as usual.

The file is bounded: at most :data:`MAX_ENTRIES` entries, each at most :data:`MAX_DURATION_S`
long, for a broker id of Kafka's (an int32 ≥ 0). A malformed entry (a hand edit) is skipped
with a warning naming it, and kept in the file as it is; it never stops the service. Ended
entries are kept :data:`KEEP_ENDED_S` (an alert in ``keep_firing_for`` is judged against them),
then pruned by the next write.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kafka_health.alerting.silence import format_time
from kafka_health.alerting.state_list import JsonListFile, JsonListStore, epoch_seconds

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
        starts = epoch_seconds(data["starts_at"], "starts_at")
        ends = epoch_seconds(data["ends_at"], "ends_at")
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


@dataclass
class DeclaredMaintenance(JsonListStore[DeclaredWindow]):
    """The windows of ``path``, re-read when the file changes (the service only reads)."""

    path: Path
    announce: bool = False
    """Log each window as it is first read (the service; not the command)."""
    _file: JsonListFile[DeclaredWindow] = field(init=False)
    _seen: set[DeclaredWindow] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._file = JsonListFile(
            self.path, "maintenance", "maintenance", DeclaredWindow.from_json, log,
            "broker_id", "broker", 20, max_entries=MAX_ENTRIES,
        )  # fmt: skip

    @property
    def _windows(self) -> list[DeclaredWindow]:
        return self._file.entries

    def reload(self) -> None:
        """Re-read the file if it changed since the last read."""
        if not self._file.reload():
            return
        windows = self._file.entries
        for w in windows if self.announce else []:
            if w not in self._seen:
                log.info(
                    "broker %d: declared maintenance %s .. %s%s", w.broker_id,
                    format_time(w.starts_at), format_time(w.ends_at),
                    f" ({w.comment})" if w.comment else "",
                )  # fmt: skip
        self._seen = set(windows)

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
        with self._file.locked():
            self.reload()
            yield

    def _write(self, windows: list[DeclaredWindow], now: float) -> None:
        kept = [w for w in windows if w.ends_at > now - KEEP_ENDED_S]
        if len(kept) > MAX_ENTRIES:  # the oldest ended ones go first
            ended = sorted((w for w in kept if w.ends_at <= now), key=lambda w: w.ends_at)
            drop = set(ended[: len(kept) - MAX_ENTRIES])
            kept = [w for w in kept if w not in drop]
        if len(kept) > MAX_ENTRIES:
            raise ValueError(f"{len(kept)} brokers in maintenance: at most {MAX_ENTRIES}")
        self._file.write([w.to_json() for w in kept])
        self.reload()
