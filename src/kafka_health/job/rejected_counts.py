"""Counts of the records the job rejected before its detectors, exported to Prometheus.

``kafka_health_rejected_records_total{source, reason}``: ``source`` is ``canary_results``,
``cluster_state``, ``broker_logs`` (a record naming a broker id that is not Kafka's, rejected
in the plan; an event from the future or with an illegal topic) or ``canary_topic`` (a probe
read back), ``reason`` one of :data:`kafka_health.job.own_records.REJECT_REASONS` (both
bounded). Persisted with the job's batch ids, so a replayed batch is not counted twice.

The rejections of the last :data:`RECENT_S` are also a signal, ``input_rejected_records``
(per source and reason, only while non-zero): the rule ``MonitorInputRejected`` pages once,
for the cluster, however many records a flood brings.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from kafka_health.model import Signal, labels

SOURCES = {
    "outcome": "canary_results", "cluster": "cluster_state", "event": "broker_logs",
    "probe": "canary_topic",
}  # fmt: skip
REJECTED_SIGNAL = "input_rejected_records"
RECENT_S = 300.0
"""How far back ``input_rejected_records`` counts."""


class RejectedCounts(Collector):
    """Running totals by (source, reason), fed once per micro-batch."""

    def __init__(self, clock: Callable[[], float] = time.time, recent_s: float = RECENT_S) -> None:
        self._lock = threading.Lock()
        self._totals: dict[tuple[str, str], int] = {}
        self._clock = clock
        self._recent_s = recent_s
        self._recent: deque[tuple[float, tuple[str, str], int]] = deque()

    def add(self, rejected: Iterable[Any], logs: Mapping[str, int] | None = None) -> None:
        """:class:`~kafka_health.job.batch.Rejected` records of one batch, and the broker-log
        records its plan rejected, by reason (``Decoded.log_rejected``)."""
        batch: dict[tuple[str, str], int] = {}
        for r in rejected:
            key = (SOURCES.get(r.tag, r.tag), r.reason)
            batch[key] = batch.get(key, 0) + 1
        for reason, n in (logs or {}).items():
            if n > 0:
                key = (SOURCES["event"], reason)
                batch[key] = batch.get(key, 0) + n
        now = self._clock()
        with self._lock:
            for key, n in batch.items():
                self._totals[key] = self._totals.get(key, 0) + n
                self._recent.append((now, key, n))
            self._forget(now)

    def totals(self) -> dict[tuple[str, str], int]:
        with self._lock:
            return dict(self._totals)

    def signals(self, now: float | None = None) -> list[Signal]:
        """``input_rejected_records``: each (source, reason) with rejections in the last
        :data:`RECENT_S`, their number."""
        at = self._clock() if now is None else now
        recent: dict[tuple[str, str], int] = {}
        with self._lock:
            self._forget(at)
            for _when, key, n in self._recent:
                recent[key] = recent.get(key, 0) + n
        return [
            Signal(REJECTED_SIGNAL, labels(source=source, reason=reason), float(n), at)
            for (source, reason), n in sorted(recent.items())
        ]

    def _forget(self, now: float) -> None:
        while self._recent and self._recent[0][0] < now - self._recent_s:
            self._recent.popleft()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"totals": [[*k, n] for k, n in self._totals.items()]}

    def restore(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._totals = {(s, r): int(n) for s, r, n in state.get("totals", [])}

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "kafka_health_rejected_records",
            "records of the monitor's input topics rejected (not folded in), by reason",
            labels=["source", "reason"],
        )
        for key, value in sorted(self.totals().items()):
            family.add_metric(list(key), float(value))
        yield family
