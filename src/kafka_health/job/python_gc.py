"""The driver's Python garbage collector, set for the job while it runs.

CPython's cyclic collector looks at its youngest generation after every 700 container objects
allocated and not freed, and at everything (a full collection) once enough objects have
survived two of those looks. The job's driver holds about 240,000 container objects under a
200-broker load, half of them the detectors' state (10,000 partitions' views, the window's
31,000 GC pauses and 10,000 canary outcomes). Each batch allocates tens of thousands more that
live for a moment (the collected rows, their events, some 5,000 signals per publish and a
publish after each batch and each second), enough to reach the next full collection in about
every batch. Measured (``benchmarks/sustained_batches.py --paced --rate 20000``, BENCHMARKS.md):
55 full collections in 100 s, 91 ms each on average and 212 ms at most, 5 s in all, each
holding the interpreter while the batch waited for its save or publish.

While the job runs, the youngest generation is looked at only after :data:`YOUNG_THRESHOLD`
objects more are alive than at the last look. Short-lived objects are freed by reference
counting before that, so the looks (and the full collections after them) become rare: in the
same run, 25 young collections and 3 middle ones, 0.38 s in all, and no full one. Garbage in
reference cycles is still collected, once that many objects have accumulated.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 50_000
"""Container objects allocated and not freed before the youngest generation is collected
(CPython's default: 700)."""


@contextmanager
def collector_for_the_job() -> Iterator[None]:
    """The collector's thresholds for the job's run; the previous ones again after it (also
    a decorator: ``@collector_for_the_job()``)."""
    previous = gc.get_threshold()
    gc.set_threshold(max(YOUNG_THRESHOLD, previous[0]), *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)
