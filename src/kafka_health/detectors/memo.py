"""The signals a detector computed from its state, kept until its state changes.

The job asks every detector for its signals after each batch, on each progress event and on
every tick of the driver's clock (3-4 times a trigger), but a detector's state changes only
when a batch is folded in. A detector whose signals walk a large window or many partitions
(an election storm at 20,000 log records/s: 228,000 leader changes in a minute, thousands of
partitions under-replicated) computes them once per change instead (measured: the driver's
``publish`` spent 0.5-0.7 s a batch in that storm).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from kafka_health.model import Signal


class SignalMemo:
    """Signals kept for one key until :meth:`clear` (the detector's fold or restore)."""

    def __init__(self) -> None:
        self._key: Hashable | None = None
        self._signals: list[Signal] | None = None

    def clear(self) -> None:
        self._key, self._signals = None, None

    def get(self, key: Hashable, compute: Callable[[], list[Signal]]) -> list[Signal]:
        """The signals computed for ``key`` since the last :meth:`clear`, else ``compute()``.

        ``key`` holds whatever else than the state the signals depend on (a time cut-off)."""
        if self._signals is None or key != self._key:
            self._key, self._signals = key, compute()
        return list(self._signals)
