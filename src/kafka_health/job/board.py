"""The driver's view of the cluster's health: the detectors' facade.

The job folds each micro-batch into every detector once (:meth:`SignalBoard.fold`, keyed by
the batch id, so a batch Spark replays after a crash changes nothing); the alert service and
the exporter read :meth:`SignalBoard.signals`, which every detector evaluates at the current
time, so silences show on the driver's tick with no new data. :meth:`state` / :meth:`restore`
carry the whole state with the batch id it includes. No Spark import.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from kafka_health.config import JobConfig
from kafka_health.detectors.coverage import LOGGED_KINDS, Coverage
from kafka_health.detectors.elections import Elections, distinct_elections
from kafka_health.detectors.gc import Gc
from kafka_health.detectors.incidents import INCIDENT_SIGNALS, Incidents
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.isr import MAX_LISTED, Isr
from kafka_health.detectors.loss import Loss
from kafka_health.detectors.windows import current_window_end_ms
from kafka_health.detectors.write_path import WritePath
from kafka_health.model import Signal

__all__ = ["INCIDENT_SIGNALS", "LOGGED_KINDS", "MAX_LISTED", "SignalBoard", "distinct_elections"]


class Detector(Protocol):
    name: str

    def fold(self, batch: Batch, now: float) -> None: ...

    def signals(self, now: float) -> list[Signal]: ...

    def state(self) -> dict[str, Any]: ...

    def restore(self, state: dict[str, Any]) -> None: ...


class SignalBoard:
    """Current signals from the detectors' state."""

    def __init__(self, job: JobConfig, clock: Callable[[], float] = time.time) -> None:
        self._job = job
        self._clock = clock
        self._lock = threading.Lock()
        self.write_path = WritePath(job)
        self.loss = Loss(job)
        self.isr = Isr(job)
        self.detectors: list[Detector] = [
            self.write_path, self.loss, self.isr, Elections(job), Gc(job), Incidents(job),
            Coverage(job),
        ]  # fmt: skip
        self.batch_id = -1  # the last batch folded in

    def fold(self, batch_id: int, batch: Batch, now: float | None = None) -> bool:
        """Fold batch ``batch_id`` into every detector; False (and no change) when it was
        folded in already."""
        at = self._clock() if now is None else now
        with self._lock:
            if batch_id <= self.batch_id:
                return False
            for detector in self.detectors:
                detector.fold(batch, at)
            self.batch_id = batch_id
            return True

    def signals(self) -> list[Signal]:
        """Every current signal."""
        now = self._clock()
        with self._lock:
            return [s for detector in self.detectors for s in detector.signals(now)]

    def lost_writes(self) -> list[tuple[int, str, int]]:
        """(partition, acks, seq) of every lost acknowledged write still in the report window."""
        with self._lock:
            return self.loss.lost_writes()

    def current_window_end_ms(self, latest_ms: int | None = None) -> int:
        """End of the write-path window that holds the newest canary send (or ``latest_ms``)."""
        latest = self.write_path.latest_send_ms if latest_ms is None else latest_ms
        return current_window_end_ms(latest, self._job.slide_s)

    def state(self) -> dict[str, Any]:
        """The whole state, as JSON-ready data, with the last batch id it includes."""
        with self._lock:
            return {
                "batch_id": self.batch_id,
                "detectors": {d.name: d.state() for d in self.detectors},
            }

    def restore(self, state: dict[str, Any]) -> None:
        with self._lock:
            self.batch_id = int(state.get("batch_id", -1))
            saved = state.get("detectors", {})
            for detector in self.detectors:
                detector.restore(saved.get(detector.name, {}))
