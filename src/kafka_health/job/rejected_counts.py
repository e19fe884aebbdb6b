"""Counts of the records the job rejected before its detectors, exported to Prometheus.

``kafka_health_rejected_records_total{source, reason}``: ``source`` is ``canary_results``,
``cluster_state`` or ``broker_logs`` (an event from the future), ``reason`` one of
:data:`kafka_health.job.own_records.REJECT_REASONS` (both bounded). Persisted with the
job's batch ids, so a replayed batch is not counted twice.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

SOURCES = {"outcome": "canary_results", "cluster": "cluster_state", "event": "broker_logs"}


class RejectedCounts(Collector):
    """Running totals by (source, reason), fed once per micro-batch."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals: dict[tuple[str, str], int] = {}

    def add(self, rejected: Iterable[Any]) -> None:
        """:class:`~kafka_health.job.batch.Rejected` records of one batch."""
        with self._lock:
            for r in rejected:
                key = (SOURCES.get(r.tag, r.tag), r.reason)
                self._totals[key] = self._totals.get(key, 0) + 1

    def totals(self) -> dict[tuple[str, str], int]:
        with self._lock:
            return dict(self._totals)

    def state(self) -> dict[str, Any]:
        with self._lock:
            return {"totals": [[*k, n] for k, n in self._totals.items()]}

    def restore(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._totals = {(s, r): int(n) for s, r, n in state.get("totals", [])}

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "kafka_health_rejected_records",
            "canary outcomes and cluster-state records rejected (not folded in), by reason",
            labels=["source", "reason"],
        )
        for key, value in sorted(self.totals().items()):
            family.add_metric(list(key), float(value))
        yield family
