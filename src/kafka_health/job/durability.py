"""The detectors' state on disk: when it is saved, how a start resumes it, what is read again.

The state (the board, the parse and rejection counts, each query's last batch id) is written
every ``job.state_save_interval_s`` (:mod:`.save_schedule`), not after every batch, so a
start rewinds each query's checkpoint to the batch the state holds (:mod:`.rewind`): the
batches after it are read again, not lost, and the job publishes updates, not snapshots,
until the queries have caught up with where they were (:mod:`.catch_up`).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from kafka_health.job.board import CANARY_QUERY, MONITOR_QUERY, SignalBoard
from kafka_health.job.catch_up import CatchUp
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.rejected_counts import RejectedCounts
from kafka_health.job.rewind import RewindImpossible, rewind
from kafka_health.job.save_schedule import SaveSchedule
from kafka_health.job.state_file import read_state, write_state

log = logging.getLogger(__name__)


class Durability:
    """Saves, resumes and rewinds the state of what the queries fold into the detectors."""

    def __init__(
        self,
        board: SignalBoard,
        parse_counts: ParseCounts,
        rejected_counts: RejectedCounts,
        checkpoints: dict[str, Path],
        save_interval_s: float,
    ) -> None:
        """``checkpoints``: each query's checkpoint directory; the state lives under the
        monitor query's."""
        self.board = board
        self.parse_counts = parse_counts
        self.rejected_counts = rejected_counts
        self.checkpoints = checkpoints
        self.state_path = checkpoints[MONITOR_QUERY] / "detectors" / "state.json"
        self.lock = threading.Lock()
        """Held while a batch is folded and while the state is saved: the counts and the
        batch ids move together."""
        self._schedule = SaveSchedule(save_interval_s)
        self._catch_up = CatchUp()  # the queries reading again what a start rewound
        self._unfolded = False  # a batch Spark committed was not folded: rewind at the restart

    # ------------------------------------------------------------------ saving

    def save_if_due(self, query: str) -> None:
        """A batch of ``query`` was folded: save the state when its schedule says so; a
        failed write raises (the query fails, and the job reports the disk)."""
        with self.lock:
            self._schedule.folded(query)
            if self._schedule.due():
                self._save_locked()

    def save_pending(self) -> None:
        """Save what was folded since the last save (the queries have stopped)."""
        with self.lock:
            if self._schedule.pending:
                self._save_locked()

    def _save_locked(self) -> None:
        """Save the detectors' state with each query's last batch id (``lock`` held)."""
        document = {
            "board": self.board.state(),
            "parse_counts": self.parse_counts.state(),
            "rejected_counts": self.rejected_counts.state(),
        }
        try:
            write_state(self.state_path, document)
        except BaseException:
            self._schedule.failed()
            raise
        self._schedule.written()

    # ------------------------------------------------------------------ resuming

    def resume(self) -> None:
        """Restore the saved state and rewind each query's checkpoint to the batch it holds."""
        saved = read_state(self.state_path)
        if saved is None:
            return
        self.board.restore(saved.get("board", {}))
        self.parse_counts.restore(saved.get("parse_counts", {}))
        self.rejected_counts.restore(saved.get("rejected_counts", {}))
        log.info("detector state resumed at batches %s", self.board.batch_ids)
        for query in (MONITOR_QUERY, CANARY_QUERY):
            self.rewind(query)

    def mark_unfolded(self) -> None:
        """A batch Spark committed was not folded: its query is rewound when it starts again."""
        self._unfolded = True

    def rewind_unfolded(self) -> None:
        """Before the monitor query starts again: read again the batch whose fold failed (and
        any after it)."""
        if self._unfolded:
            self.rewind(MONITOR_QUERY)
            self._unfolded = False

    def rewind(self, query: str) -> None:
        """Take ``query``'s checkpoint back to the last batch of it the state holds."""
        held = self.board.last_batch(query)
        try:
            rewound = rewind(self.checkpoints[query], held)
        except RewindImpossible as exc:
            log.warning(
                "query %s: the detector state (batch %d) is older than its checkpoint keeps "
                "(%s): the batches between are not read again", query, held, exc,
            )  # fmt: skip
            return
        if rewound is not None:
            self._catch_up.rewound(query, rewound.last)
            log.warning(
                "query %s: batches %d-%d were committed by Spark but are not in the detectors' "
                "state (the job stopped without saving, or a batch's fold failed): they are "
                "read again",
                query, rewound.first, rewound.last,
            )  # fmt: skip

    def caught_up(self) -> bool:
        """Whether every query has folded again what a start rewound (a publication is then a
        snapshot again, not an update)."""
        return self._catch_up.caught_up(self.board.last_batch)
