"""A batch's driver-side work (decode, fold, save) on a thread of its own, one batch at a time.

Spark runs a query's micro-batches one after another on its stream thread: the next batch is
planned only when ``foreachBatch`` has returned.
The monitor query's body used to decode and fold its batch's rows there too, so in an
election storm about 0.3 s of the Python driver's work (decode, fold, now and then the state's
save) sat between Spark's collect and the next batch's planning (BENCHMARKS.md). With
:class:`FoldWorker` the body returns once the rows are collected; the fold runs while Spark
commits the batch and plans the next one, on the other core.

One batch at a time, in order: :meth:`FoldWorker.submit` first waits for the previous batch's
work, and raises what it raised, so the query fails on the batch after the one whose fold
failed. That batch was committed by Spark without being folded: the job rewinds the query's
checkpoint to the batch the detectors hold before it starts the query again
(:mod:`.rewind`), as it does after a crash.

While a batch's work is pending, :meth:`FoldWorker.read_to_cap` holds how far the logs had
been read before that batch: the job publishes no later "logs read to" time than what its
detectors have folded (a restarting broker's page waits for its logs to be read, and must not
be released by a batch that is read but not yet folded).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

NOT_CAPPED = float("inf")
"""The cap while no batch's work holds "logs read to" back."""


class FoldWorker:
    """Runs each submitted batch's work on one thread, after the previous batch's."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._pending: Future[None] | None = None
        self._cap = NOT_CAPPED  # a time; -inf: nothing had been read before the batch

    def submit(self, work: Callable[[], None], read_to_s: float | None) -> None:
        """Run ``work`` on the worker once the previous batch's work is done (raising what
        that raised); ``read_to_s``: how far the logs were read before this batch."""
        self.wait()
        with self._lock:
            # A cap still set is an earlier batch's whose work failed: kept until a batch's
            # work succeeds (that batch is read again after the rewind).
            self._cap = min(self._cap, -math.inf if read_to_s is None else read_to_s)
            future = self._executor.submit(work)
            self._pending = future
        future.add_done_callback(self._done)

    def wait(self, timeout_s: float | None = None) -> None:
        """Block until the pending batch's work is done; raise what it raised (once)."""
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is not None:
            pending.result(timeout_s)
            self._done(pending)  # its callback may not have run yet

    def _done(self, future: Future[None]) -> None:
        """A batch's work ended: its cap goes, unless the work failed (then that batch is read
        again after the rewind, and the cap stays until a batch's work succeeds)."""
        if future.exception() is not None:
            return
        with self._lock:
            if self._pending is future or self._pending is None:
                self._cap = NOT_CAPPED

    @property
    def busy(self) -> bool:
        """Whether a batch's work is pending."""
        with self._lock:
            return self._pending is not None and not self._pending.done()

    def read_to_cap(self, read_to_s: float | None) -> float | None:
        """``read_to_s`` (how far the query has read; None: nothing yet), held back to how far
        it had read before the batch whose work is pending or failed, if any."""
        with self._lock:
            cap = self._cap
        if read_to_s is None or cap == -math.inf:
            return None
        return min(cap, read_to_s)

    def close(self) -> None:
        """Stop the worker's thread (after any pending work)."""
        self._executor.shutdown(wait=True)
