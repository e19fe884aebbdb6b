"""A query's checkpoint taken back to the last batch the saved detector state holds.

The state is written every few seconds (:mod:`.save_schedule`), so after a crash Spark's
checkpoint can be ahead of it: batches committed whose events the saved state never folded.
Before the query starts again, the entries of its offset and commit logs after the state's
batch are removed; Spark then plans its next batch from the state's batch's end offsets, and
reads the lost batches again (capped by ``max_offsets_per_trigger`` like any backlog). The
source's initial offsets (``sources/``) stay: a query rewound to before its first batch starts
where it first did.

Spark keeps the last 100 batches of its logs; a state older than the oldest entry cannot be
rewound to (:class:`RewindImpossible`): its batches are gone from the checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class RewindImpossible(Exception):
    """The checkpoint no longer holds the batch the state names."""


@dataclass(frozen=True)
class Rewound:
    """What a rewind removed: the batches that will be read again."""

    first: int
    last: int


def logged_batches(checkpoint: Path, log: str) -> list[int]:
    """The batch ids that ``log`` (offsets or commits) of ``checkpoint`` holds, in order."""
    folder = checkpoint / log
    if not folder.is_dir():
        return []
    return sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit())


def rewind(checkpoint: Path, to_batch: int) -> Rewound | None:
    """Remove the offset and commit log entries of ``checkpoint`` after ``to_batch`` (-1: all
    of them) when a batch after it was committed; None when none was (a batch planned and not
    committed is run again by Spark as it is). Raises :class:`RewindImpossible` when the
    offset log no longer holds ``to_batch`` (or, for -1, batch 0): Spark purged it."""
    offsets = logged_batches(checkpoint, "offsets")
    later = [b for b in offsets if b > to_batch]
    later_commits = [b for b in logged_batches(checkpoint, "commits") if b > to_batch]
    if not later_commits:
        return None
    kept = to_batch in offsets if to_batch >= 0 else not offsets or offsets[0] == 0
    if not kept:
        raise RewindImpossible(
            f"{checkpoint / 'offsets'} holds batches {offsets[0] if offsets else '-'}"
            f"-{offsets[-1] if offsets else '-'}, not batch {to_batch}"
        )
    removed = sorted(set(later) | set(later_commits))
    # The newest batch first, its commit before its offsets: a crash part way leaves the
    # logs as Spark writes them (the last batch planned, committed or not), so the next
    # start rewinds the rest (Spark runs again only the newest planned batch, from the
    # end offsets of the one before it).
    for batch in reversed(removed):
        for log in ("commits", "offsets"):
            for name in (str(batch), f".{batch}.crc"):
                (checkpoint / log / name).unlink(missing_ok=True)
    return Rewound(removed[0], removed[-1])
