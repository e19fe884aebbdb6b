"""SentLetters: a batch read again after a crash leaves out the dead letters it sent before;
a later batch sends all of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_health.job.quarantine import OffsetRange
from kafka_health.job.sent_letters import SentLetters


def logs(start: int, end: int, partition: int = 0) -> OffsetRange:
    return OffsetRange("logs", partition, start, end)


def test_nothing_was_sent_before_the_first_batch(tmp_path: Path) -> None:
    assert SentLetters(tmp_path / "sent.json").unsent_below("parse", 0) == {}


def test_a_batch_read_again_after_a_crash_skips_what_it_sent_before(tmp_path: Path) -> None:
    path = tmp_path / "detectors" / "sent.json"
    before = SentLetters(path)
    before.sent("parse", 3, [logs(100, 150), logs(7, 9, partition=1)])
    before.sent("parse", 5, [logs(180, 200)])

    after = SentLetters(path)  # the restarted job, rewound to batch 2
    for replayed in (3, 4, 5):
        assert after.unsent_below("parse", replayed) == {("logs", 0): 200, ("logs", 1): 9}
    assert after.unsent_below("parse", 6) == {}, "a batch after them sends everything"


def test_each_kind_has_its_own_log(tmp_path: Path) -> None:
    """A batch's culprits are sent before its parse's letters, its rejected records after:
    one kind's send must not hide another's letters of the same batch."""
    letters = SentLetters(tmp_path / "sent.json")
    letters.sent("culprit", 4, [logs(0, 10)])
    assert letters.unsent_below("parse", 4) == {}
    assert letters.unsent_below("rejected", 4) == {}
    assert letters.unsent_below("culprit", 4) == {("logs", 0): 10}


def test_a_topic_created_again_loses_no_letter(tmp_path: Path) -> None:
    """Its offsets start from 0 again, below the logged end: only a batch read again is
    filtered, and the batches after a recreation are new ones."""
    letters = SentLetters(tmp_path / "sent.json")
    letters.sent("parse", 8, [logs(5_000, 6_000)])
    assert letters.unsent_below("parse", 9) == {}


def test_an_end_never_moves_back(tmp_path: Path) -> None:
    letters = SentLetters(tmp_path / "sent.json")
    letters.sent("parse", 5, [logs(100, 200)])
    letters.sent("parse", 4, [logs(100, 150)])  # a replayed batch with letters above the end
    assert letters.unsent_below("parse", 5) == {("logs", 0): 200}


def test_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown dead-letter kind 'parsed'"):
        SentLetters(tmp_path / "sent.json").sent("parsed", 0, [])
