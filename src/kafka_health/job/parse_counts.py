"""Counts of parsed broker log entries by outcome and reason, exported to Prometheus.

``kafka_health_log_entries_total{outcome, reason, type}``: every entry is accounted for —
``event``, ``unrecognised`` (most log lines: not an event; or bad input by reason) or
``malformed`` (looked like an event, did not parse fully). Labels are bounded by the
parser's fixed vocabularies.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector


class ParseCounts(Collector):
    """Running totals, fed once per micro-batch (the job skips a replayed batch)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str, str], int] = {}
        self._lines: dict[tuple[str, str, str], int] = {}

    def add(self, rows: Iterable[Any]) -> None:
        """Rows of :func:`kafka_health.parsing.events.outcome_counts`."""
        with self._lock:
            for row in rows:
                key = (row.outcome or "", row.reason or "", row.type or "")
                self._entries[key] = self._entries.get(key, 0) + int(row.entries or 0)
                self._lines[key] = self._lines.get(key, 0) + int(row.lines or 0)

    def state(self) -> dict[str, Any]:
        """The running totals as JSON-ready data (persisted with the job's batch id)."""
        with self._lock:
            return {
                "entries": [[*k, n] for k, n in self._entries.items()],
                "lines": [[*k, n] for k, n in self._lines.items()],
            }

    def restore(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._entries = {(o, r, t): int(n) for o, r, t, n in state.get("entries", [])}
            self._lines = {(o, r, t): int(n) for o, r, t, n in state.get("lines", [])}

    def totals(self) -> dict[tuple[str, str, str], int]:
        with self._lock:
            return dict(self._entries)

    def collect(self) -> Iterator[CounterMetricFamily]:
        names = ["outcome", "reason", "type"]
        with self._lock:
            entries, lines = dict(self._entries), dict(self._lines)
        family = CounterMetricFamily(
            "kafka_health_log_entries", "broker log entries parsed, by outcome", labels=names
        )
        for key, value in sorted(entries.items()):
            family.add_metric(list(key), float(value))
        yield family
        family = CounterMetricFamily(
            "kafka_health_log_lines", "broker log lines parsed, by outcome", labels=names
        )
        for key, value in sorted(lines.items()):
            family.add_metric(list(key), float(value))
        yield family
