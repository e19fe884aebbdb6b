"""A query's checkpoint taken back to the batch the saved state holds (files as Spark writes
them: ``offsets/N``, ``commits/N`` and their ``.N.crc`` checksums)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_health.job.rewind import RewindImpossible, Rewound, logged_batches, rewind


def checkpoint(tmp_path: Path, offsets: range, commits: range) -> Path:
    root = tmp_path / "monitor"
    for log, batches in (("offsets", offsets), ("commits", commits)):
        (root / log).mkdir(parents=True)
        for b in batches:
            (root / log / str(b)).write_text("v1\n{}\n")
            (root / log / f".{b}.crc").write_bytes(b"crc")
    (root / "sources" / "0").mkdir(parents=True)
    (root / "sources" / "0" / "0").write_text("v1\n{}\n")
    return root


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_batches_after_the_states_are_removed_with_their_checksums(tmp_path: Path) -> None:
    root = checkpoint(tmp_path, range(40, 56), range(40, 55))  # batch 55 planned, not committed
    assert rewind(root, 50) == Rewound(51, 55)
    assert logged_batches(root, "offsets") == list(range(40, 51))
    assert logged_batches(root, "commits") == list(range(40, 51))
    assert names(root / "offsets") == {str(b) for b in range(40, 51)} | {
        f".{b}.crc" for b in range(40, 51)
    }
    assert names(root / "sources" / "0") == {"0"}


def test_a_state_at_the_last_batch_removes_nothing(tmp_path: Path) -> None:
    root = checkpoint(tmp_path, range(0, 6), range(0, 6))
    assert rewind(root, 5) is None
    assert rewind(root, 9) is None  # a state ahead of a checkpoint made again
    assert logged_batches(root, "commits") == list(range(6))


def test_a_state_before_the_first_batch_rewinds_to_the_initial_offsets(tmp_path: Path) -> None:
    root = checkpoint(tmp_path, range(0, 3), range(0, 2))
    assert rewind(root, -1) == Rewound(0, 2)
    assert logged_batches(root, "offsets") == [] and logged_batches(root, "commits") == []
    assert names(root / "sources" / "0") == {"0"}


def test_a_state_older_than_the_checkpoint_keeps_is_refused(tmp_path: Path) -> None:
    root = checkpoint(tmp_path, range(100, 200), range(100, 200))
    with pytest.raises(RewindImpossible, match="batches 100-199, not batch 42"):
        rewind(root, 42)
    with pytest.raises(RewindImpossible):
        rewind(root, -1)
    assert logged_batches(root, "offsets") == list(range(100, 200))  # untouched


def test_a_batch_planned_and_not_committed_is_left_to_spark(tmp_path: Path) -> None:
    root = checkpoint(tmp_path, range(0, 6), range(0, 5))  # Spark runs batch 5 again as it is
    assert rewind(root, 4) is None
    assert logged_batches(root, "offsets") == list(range(6))


def test_a_missing_checkpoint_is_nothing_to_rewind(tmp_path: Path) -> None:
    assert rewind(tmp_path / "new", 3) is None
