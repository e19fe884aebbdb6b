"""Brokers' log directories that failed (disk full, I/O error), until the broker restarts.

When a write, a read or a flush in a log directory throws an ``IOException``, Kafka (1.0+)
takes the whole directory offline: ``ReplicaManager.handleLogDirFailure`` logs "Stopping
serving replicas in dir <dir>" (``log_dir_offline``), stops its replicas there (they leave
their ISRs: the leaders elsewhere shrink them, the controller moves the leadership of the
partitions the broker led), and reports the directory to the controller (KRaft) or to
ZooKeeper. When the failed directory is the last one, or (KRaft) the metadata log's, the broker
halts after it ("Shutdown broker because ...", ``log_dir_halt``).

Kafka never brings a failed directory back while the broker runs (``LogDirFailureChannel``:
"An offline log directory will stay offline until the broker is restarted"), so a directory
stays offline here until the broker's start-up is seen: its "Transition from STARTING to
STARTED" (KRaft) or "[KafkaServer id=N] started" (ZooKeeper mode) line (``broker_started``),
logged once the logs of every directory are loaded. A directory still broken at that start is
not loaded (the broker logs the error, and halts if it was the last): a start that serves
every replica again is the only evidence that the directory is back, and a snapshot showing
the broker's replicas back in their ISRs would say the same later (re-replication takes as
long as the data). Reports older than the broker's newest start are a replay and are left
out; a broker that left the cluster (the board's
:class:`~kafka_health.detectors.inventory.Inventory`) is forgotten (:meth:`prune`).

Signal: ``log_dir_offline`` per broker: its directories offline now (details: their paths,
since when, whether the broker halted). The paths stay out of the labels: a mutated line
could name any number of them. At most :data:`MAX_DIRS` directories a broker, each cut to
:data:`MAX_DIR_CHARS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka_health.detectors.inputs import Batch, LogEvent
from kafka_health.detectors.inventory import Inventory
from kafka_health.model import Signal, labels

OFFLINE_EVENT = "log_dir_offline"
HALT_EVENT = "log_dir_halt"
STARTED_EVENT = "broker_started"
LOG_DIR_EVENTS = (OFFLINE_EVENT, HALT_EVENT, STARTED_EVENT)
"""The event types this detector reads."""
MAX_DIRS = 16
"""Directories kept per broker (a broker has a few; past this, a mutated line's)."""
MAX_DIR_CHARS = 256
"""A directory's path is cut to this many characters."""
HALT_LIST_SEPARATOR = ", "
"""LogManager's "all log dirs in %s" joins the directories with this."""


@dataclass
class _Broker:
    offline: dict[str, int] = field(default_factory=dict)  # dir -> when it went offline (ms)
    halted_ms: int | None = None  # the broker halted for its log dirs
    started_ms: int = 0  # its newest start-up line

    def newest_ms(self) -> int:
        return max([self.started_ms, self.halted_ms or 0, *self.offline.values()])


class LogDirs:
    name = "log_dirs"

    def __init__(self) -> None:
        self._brokers: dict[str, _Broker] = {}
        self._log_ms = 0  # the log stream's clock: an event with no time of its own takes it

    def fold(self, batch: Batch, now: float) -> None:
        events = [e for e in batch.events if e.type in LOG_DIR_EVENTS]
        for e in batch.events:
            if e.event_ms is not None:
                self._log_ms = max(self._log_ms, e.event_ms)
        for e in sorted(events, key=lambda e: e.event_ms or self._log_ms):
            broker = _broker_of(e)
            if broker is None:
                continue
            at = e.event_ms if e.event_ms is not None else self._log_ms
            if e.type == STARTED_EVENT:
                state = self._brokers.setdefault(broker, _Broker())
                state.started_ms = max(state.started_ms, at)
                state.offline = {d: ms for d, ms in state.offline.items() if ms > at}
                if state.halted_ms is not None and state.halted_ms <= at:
                    state.halted_ms = None
                continue
            state = self._brokers.setdefault(broker, _Broker())
            if at <= state.started_ms:
                continue  # before the broker's newest start: a replay, already cleared
            for d in _dirs(e):
                if d not in state.offline and len(state.offline) < MAX_DIRS:
                    state.offline[d] = at
            if e.type == HALT_EVENT:
                state.halted_ms = at

    def prune(self, inventory: Inventory, now: float) -> bool:
        """Forget the brokers that left the cluster; True if any was forgotten."""
        gone = [b for b, s in self._brokers.items()
                if inventory.broker_left(b, s.newest_ms() / 1000.0, now)]  # fmt: skip
        for broker in gone:
            del self._brokers[broker]
        return bool(gone)

    def signals(self, now: float) -> list[Signal]:
        out = []
        for broker, s in sorted(self._brokers.items()):
            if not s.offline:
                continue
            detail = {
                "log_dirs": sorted(s.offline),
                "offline_since": min(s.offline.values()) / 1000.0,
                "halted": s.halted_ms is not None,
                "until": "the broker's restart",
            }
            out.append(
                Signal("log_dir_offline", labels(broker_id=broker), float(len(s.offline)), now,
                       detail)
            )  # fmt: skip
        return out

    def state(self) -> dict[str, Any]:
        return {
            "brokers": {
                b: {"offline": s.offline, "halted_ms": s.halted_ms, "started_ms": s.started_ms}
                for b, s in self._brokers.items()
            },
            "log_ms": self._log_ms,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._brokers = {}
        for b, v in state.get("brokers", {}).items():
            halted = v.get("halted_ms")
            self._brokers[str(b)] = _Broker(
                offline={str(d): int(ms) for d, ms in v.get("offline", {}).items()},
                halted_ms=None if halted is None else int(halted),
                started_ms=int(v.get("started_ms", 0)),
            )
        self._log_ms = int(state.get("log_ms", 0))


def _broker_of(e: LogEvent) -> str | None:
    """The broker the event is about: the one whose log it is (else the line's subject)."""
    if e.broker_id:
        return e.broker_id
    return None if e.subject_broker_id is None else str(e.subject_broker_id)


def _dirs(e: LogEvent) -> list[str]:
    """The directories an event names (LogManager's halt names every one, joined)."""
    if not e.log_dir:
        return []
    if e.type == HALT_EVENT and HALT_LIST_SEPARATOR in e.log_dir:
        found = e.log_dir.split(HALT_LIST_SEPARATOR)
    else:
        found = [e.log_dir]
    return [d.strip()[:MAX_DIR_CHARS] for d in found if d.strip()][:MAX_DIRS]
