"""Incident signatures: log events that name a failure mode, counted per broker over the log
window (ZooKeeper session expiries, controller changes, controlled shutdowns, ...). Brokers the
controller saw fail are :mod:`.broker_failures` (failed until seen back)."""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.logwindow import LogWindow
from kafka_health.detectors.memo import SignalMemo
from kafka_health.model import Signal, labels

# Parsed log event type -> the signal counting it per broker and window.
INCIDENT_SIGNALS = {
    "zk_session_expired": "zk_session_expirations",
    "zk_disconnected": "zk_disconnects",
    "controller_change": "controller_changes",
    "controlled_shutdown": "controlled_shutdowns",
    "shutdown_signal": "shutdown_signals",
    "processor_uncaught_exception": "processor_uncaught_exceptions",
    "log_cleaner_died": "log_cleaner_deaths",
    "not_leader": "not_leader_errors",
    "min_isr_violation": "not_enough_replicas_errors",
}


class Incidents:
    name = "incidents"

    def __init__(self, job: JobConfig) -> None:
        self._window = LogWindow(job, tuple(INCIDENT_SIGNALS))
        self._memo = SignalMemo()  # the signals depend on the window alone

    def fold(self, batch: Batch, now: float) -> None:
        self._memo.clear()
        self._window.add(batch.events)

    def signals(self, now: float) -> list[Signal]:
        return self._memo.get(None, self._count)

    def _count(self) -> list[Signal]:
        at = self._window.end_ms() / 1000.0
        counts: dict[tuple[str, str], int] = {}
        for _ms, broker, kind in self._window.current():
            counts[(kind, broker)] = counts.get((kind, broker), 0) + 1
        return [
            Signal(INCIDENT_SIGNALS[kind], labels(broker_id=broker), float(n), at)
            for (kind, broker), n in sorted(counts.items())
        ]

    def state(self) -> dict[str, Any]:
        return self._window.state()

    def restore(self, state: dict[str, Any]) -> None:
        self._memo.clear()
        self._window.restore(state)
