"""Where signals wait for the next evaluation: the job's threads put them here and return at
once (no evaluation, disk or network work ever holds up a batch), the evaluation takes them all.
"""

from __future__ import annotations

import threading

from kafka_health.model import LabelSet, Signal

SeriesKey = tuple[str, LabelSet]


class Inbox:
    """Thread-safe queue of signal batches, each a snapshot or an update."""

    def __init__(self, wake: threading.Event) -> None:
        """``wake``: set at each put, so the evaluation runs at once."""
        self._wake = wake
        self._lock = threading.Lock()
        self._batches: list[tuple[list[Signal], bool]] = []
        self._own: set[SeriesKey] = set()

    def put(self, signals: list[Signal], snapshot: bool) -> None:
        """Queue ``signals``: a ``snapshot`` (a series it lacks is gone) or an update."""
        with self._lock:
            self._batches.append((signals, snapshot))
        self._wake.set()

    def put_own(self, signal: Signal) -> None:
        """Queue a signal the service reports itself (the queries' liveness): an update that
        no snapshot of the job removes."""
        with self._lock:
            self._own.add((signal.name, signal.labels))
            self._batches.append(([signal], False))
        self._wake.set()

    def take(self) -> tuple[list[tuple[list[Signal], bool]], set[SeriesKey]]:
        """Every batch queued since the last take, in order, and the service's own series."""
        with self._lock:
            batches, self._batches = self._batches, []
            return batches, set(self._own)
