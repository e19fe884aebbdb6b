"""Sequence numbers per partition: increasing, persisted in blocks, never reused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_health.canary.sequence import SequenceStateError, SequenceStore


def store(path: Path, block: int = 10) -> SequenceStore:
    return SequenceStore(path, "canary-a", "canary-topic", block=block, fsync=False)


def test_numbers_increase_per_partition_independently(tmp_path: Path) -> None:
    seqs = store(tmp_path / "s.json")
    taken = [(p, seqs.next(p)) for p in (0, 1, 0, 0, 1)]
    assert taken == [(0, 0), (1, 0), (0, 1), (0, 2), (1, 1)]


# (case, numbers taken before the restart, block, first number after it, why)
RESTARTS = [
    ("mid-block", 3, 10, 10, "the rest of a reserved block is skipped, never reused"),
    ("block used up", 10, 10, 10, "numbers 0-9 were reserved and used; 10 was never taken"),
    ("one past a block", 11, 10, 20, "taking number 10 reserved 10-19 first"),
    ("nothing taken", 0, 10, 0, "no reservation was made, so nothing can repeat"),
    ("block of one", 5, 1, 5, "with block 1 every number is persisted before use"),
]


@pytest.mark.parametrize(
    ("case", "taken", "block", "first_after", "why"), RESTARTS, ids=[r[0] for r in RESTARTS]
)
def test_restart_continues_after_the_reservation(
    tmp_path: Path, case: str, taken: int, block: int, first_after: int, why: str
) -> None:
    path = tmp_path / "s.json"
    before = store(path, block)
    used = [before.next(0) for _ in range(taken)]
    after = store(path, block)  # a crash: nothing saved at shutdown
    assert after.next(0) == first_after, why
    assert first_after not in used


def test_reservations_are_written_once_per_block(tmp_path: Path) -> None:
    seqs = store(tmp_path / "s.json", block=100)
    for _ in range(250):
        seqs.next(0)
    assert seqs.writes == 3, "numbers 0, 100 and 200 each reserved a block"


def test_many_restarts_never_repeat_a_number(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    seen: list[int] = []
    for run in range(5):
        seqs = store(path, block=4)
        seen.extend(seqs.next(7) for _ in range(run + 1))
    assert len(seen) == len(set(seen)) and seen == sorted(seen)


# (case, file content, why it must be refused)
BAD_STATE = [
    ("not JSON", "{", "an unreadable file would silently restart at 0"),
    ("other canary", '{"version":1,"canary_id":"b","topic":"canary-topic","reserved":{}}',
     "another canary's numbers are not ours"),
    ("other version", '{"version":9,"canary_id":"canary-a","topic":"canary-topic","reserved":{}}',
     "an unknown format may mean something else"),
    ("negative", '{"version":1,"canary_id":"canary-a","topic":"canary-topic","reserved":{"0":-1}}',
     "a negative reservation is corrupt"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "content", "why"), BAD_STATE, ids=[b[0] for b in BAD_STATE])
def test_unusable_state_is_an_error(tmp_path: Path, case: str, content: str, why: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(content)
    with pytest.raises(SequenceStateError):
        store(path)


def test_state_file_is_compact_versioned_json(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    store(path, block=5).next(2)
    assert json.loads(path.read_text()) == {
        "version": 1,
        "canary_id": "canary-a",
        "topic": "canary-topic",
        "reserved": {"2": 5},
    }
