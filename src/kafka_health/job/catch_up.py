"""Whether the detectors have caught up with what the job had folded before a restart.

A kill between two saves of the detector state (:mod:`.save_schedule`) restarts the job from
an older state; its queries read the lost batches again (:mod:`.rewind`). Until they have,
the detectors are behind what the alert service already saw: a GC line, an expiry, a silent
partition folded after the last save is missing from them. Published as a full snapshot,
that state would remove the series (``SignalStore.replace``), resolve the alerts that read
them, and fire them again with a new start once the lost batches are read (seen in the
GC incident's kill -9 test: FullGC resolved 20 s after the restart and fired again 10 s
later). While a query is behind, the job publishes its signals as an update instead: values
move forward by event time, nothing is removed.

A query has caught up once it has folded the batch id of the last rewound batch: the
replanned batches read from the same offsets on, each up to the same cap, so as many of them
read at least what the lost ones held. A query that has not after :data:`CATCH_UP_LIMIT_S`
(its cluster down, say: the canary query makes no batch) is given up on, with a warning, and
the snapshots come back: an update removes a series only after the alert service's
``signal_ttl_s`` (60 s), so by then the hold it gave is over anyway.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

CATCH_UP_LIMIT_S = 120.0
"""The longest a query is waited for to read again what a restart rewound: a restart's
Spark start and first batches took 20-35 s in the tests, under load."""


class CatchUp:
    """The queries still reading again the batches a rewind removed, up to which batch, and
    since when (``clock``: monotonic seconds)."""

    def __init__(
        self, limit_s: float = CATCH_UP_LIMIT_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._lock = threading.Lock()
        self._limit_s = limit_s
        self._clock = clock
        self._until: dict[str, tuple[int, float]] = {}

    def rewound(self, query: str, last: int) -> None:
        """``query`` reads again its batches up to ``last`` (which its state lacks)."""
        with self._lock:
            before, since = self._until.get(query, (-1, self._clock()))
            self._until[query] = (max(last, before), since)

    def caught_up(self, folded: Callable[[str], int]) -> bool:
        """Whether every rewound query has folded its last rewound batch again (``folded``:
        a query's last folded batch id) or been waited for too long; such a query is
        forgotten."""
        with self._lock:
            now = self._clock()
            for query, (last, since) in list(self._until.items()):
                if folded(query) >= last:
                    del self._until[query]
                    log.info(
                        "query %s has read again the batches up to %d: the detectors hold "
                        "what they held before the restart", query, last,
                    )  # fmt: skip
                elif now - since >= self._limit_s:
                    del self._until[query]
                    log.warning(
                        "query %s has not read again the batches up to %d in %.0f s (it is at "
                        "batch %d): the job publishes whole snapshots again", query, last,
                        self._limit_s, folded(query),
                    )  # fmt: skip
            return not self._until
