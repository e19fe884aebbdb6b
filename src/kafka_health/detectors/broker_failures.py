"""Brokers the active controller saw fail, until they are seen back.

A failure report (``broker_failure``, from the active controller only: the board applies
:mod:`.controller` first) marks its broker failed at the report's time. The broker stays
failed until a cluster-state snapshot taken at least :data:`BACK_MARGIN_S` after the report
shows it live (registered, not fenced): it is back at once, not a log window later, and a
broker that stays dead stays failed however long that takes. A broker with no snapshot at all
(no prober deployed) falls back to the log window, as the other incident signatures do.

A broker that left the cluster (no longer registered, no replica: the board's
:class:`~kafka_health.detectors.inventory.Inventory`) with no report for
``job.inventory_ttl_s`` is forgotten (:meth:`prune`): it will not be seen back, and a
decommissioned broker is not failed for ever.

Signal: ``broker_failures`` per broker: reports since it was last seen back.
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.inventory import Inventory
from kafka_health.model import Signal, labels

BACK_MARGIN_S = 3.0
"""A snapshot this close after the report may still show the old registration."""


class BrokerFailures:
    name = "broker_failures"

    def __init__(self, job: JobConfig) -> None:
        self._job = job
        self._reports: dict[str, list[int]] = {}  # broker -> report times (ms) not yet cleared
        self._live_ms: dict[str, int] = {}  # broker -> newest snapshot showing it live
        self._snapshotted: set[str] = set()  # brokers the prober has reported at all
        self._log_ms = 0  # the log stream's clock (newest event time)

    def fold(self, batch: Batch, now: float) -> None:
        for e in batch.events:
            if e.event_ms is not None:
                self._log_ms = max(self._log_ms, e.event_ms)
            if e.type == "broker_failure" and e.event_ms is not None:
                subject = e.subject_broker_id
                broker = str(subject) if subject is not None else e.broker_id
                if broker is not None:
                    self._reports.setdefault(broker, []).append(e.event_ms)
        for r in batch.cluster:
            if r.kind == "broker" and r.broker_id is not None:
                broker = str(r.broker_id)
                self._snapshotted.add(broker)
                if r.live:
                    self._live_ms[broker] = max(self._live_ms.get(broker, 0), r.at_ms)
        window_start = self._log_ms - round(self._job.window_s * 1000)
        margin = round(BACK_MARGIN_S * 1000)
        for broker, reports in list(self._reports.items()):
            if broker in self._snapshotted:
                back = self._live_ms.get(broker, 0)
                kept = [ms for ms in reports if back < ms + margin]
            else:
                kept = [ms for ms in reports if ms >= window_start]
            if kept:
                self._reports[broker] = kept
            else:
                del self._reports[broker]

    def prune(self, inventory: Inventory, now: float) -> bool:
        """Forget the brokers that left the cluster; True if any was forgotten."""
        known = self._reports.keys() | self._live_ms.keys() | self._snapshotted
        gone = set()
        for broker in known:
            newest_ms = max([*self._reports.get(broker, ()), self._live_ms.get(broker, 0)])
            if inventory.broker_left(broker, newest_ms / 1000.0, now):
                gone.add(broker)
        for broker in gone:
            self._reports.pop(broker, None)
            self._live_ms.pop(broker, None)
            self._snapshotted.discard(broker)
        return bool(gone)

    def signals(self, now: float) -> list[Signal]:
        return [
            Signal("broker_failures", labels(broker_id=broker), float(len(reports)), now,
                   {"failed_at": min(reports) / 1000.0,
                    "until": "seen live" if broker in self._snapshotted else "log window"})
            for broker, reports in sorted(self._reports.items())
        ]  # fmt: skip

    def state(self) -> dict[str, Any]:
        return {
            "reports": self._reports,
            "live_ms": self._live_ms,
            "snapshotted": sorted(self._snapshotted),
            "log_ms": self._log_ms,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._reports = {b: [int(ms) for ms in v] for b, v in state.get("reports", {}).items()}
        self._live_ms = {b: int(ms) for b, ms in state.get("live_ms", {}).items()}
        self._snapshotted = set(state.get("snapshotted", []))
        self._log_ms = int(state.get("log_ms", 0))
