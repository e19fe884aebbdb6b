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
read at least what the lost ones held.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class CatchUp:
    """The queries still reading again the batches a rewind removed, and up to which batch."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until: dict[str, int] = {}

    def rewound(self, query: str, last: int) -> None:
        """``query`` reads again its batches up to ``last`` (which its state lacks)."""
        with self._lock:
            self._until[query] = max(last, self._until.get(query, -1))

    def caught_up(self, folded: Callable[[str], int]) -> bool:
        """Whether every rewound query has folded its last rewound batch again (``folded``:
        a query's last folded batch id); a query that has is forgotten."""
        with self._lock:
            for query, last in list(self._until.items()):
                if folded(query) >= last:
                    del self._until[query]
                    log.info(
                        "query %s has read again the batches up to %d: the detectors hold "
                        "what they held before the restart", query, last,
                    )  # fmt: skip
            return not self._until
