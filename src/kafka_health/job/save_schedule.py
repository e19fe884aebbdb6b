"""When the driver writes the detectors' state: at most every ``every_s``, not after every batch.

A storm's state is about 11 MB (200,000 elections in the window) and took 0.17-0.26 s of each
2 s batch to build, encode and write (BENCHMARKS.md). Written every ``every_s`` instead, a
crash loses at most the batches folded since the last write, and a restart reads them again:
it rewinds the queries' checkpoints to the batches the state names (:mod:`.rewind`).

A write is due when a batch was folded since the last one and: the batch's query had none
written yet by this process (its first batch after a start is written at once, so that a crash
soon after a start does not read its topics again from an earlier run's state), ``every_s`` passed,
``max_batches`` were folded (the checkpoint must still hold every batch since: Spark keeps
the last 100), or the last write failed (a full disk is retried every batch).
"""

from __future__ import annotations

import time
from collections.abc import Callable

MAX_BATCHES = 30
"""Batches folded between writes at most: well inside the 100 batches of its offset log that
Spark keeps (``spark.sql.streaming.minBatchesToRetain``), which a rewind reads again."""


class SaveSchedule:
    """Says when the state is due to be written; told of folds and of writes."""

    def __init__(
        self,
        every_s: float,
        max_batches: int = MAX_BATCHES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every_s = every_s
        self.max_batches = max_batches
        self._clock = clock
        self._written_at: float | None = None  # the clock at the last write that succeeded
        self._pending = 0  # batches folded since that write
        self._folded: set[str] = set()  # queries with a batch folded since that write
        self._written: set[str] = set()  # queries with a batch in a write of this process
        self._failed = False

    @property
    def pending(self) -> int:
        """Batches folded since the last write (a crash now reads them again)."""
        return self._pending

    def folded(self, query: str) -> None:
        """A batch of ``query`` was folded in: the state on disk is behind by one more."""
        self._pending += 1
        self._folded.add(query)

    def due(self) -> bool:
        """Whether the state should be written now."""
        if self._pending == 0:
            return False
        if self._folded - self._written or self._failed or self._pending >= self.max_batches:
            return True
        return self._written_at is None or self._clock() - self._written_at >= self.every_s

    def written(self) -> None:
        """The state was written: it holds every batch folded so far."""
        self._written |= self._folded
        self._folded.clear()
        self._written_at, self._pending, self._failed = self._clock(), 0, False

    def failed(self) -> None:
        """A write failed: the next batch tries again."""
        self._failed = True
