"""Positions advance only over acknowledged entries and are written atomically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_health.shipper.positions import AckTracker, PositionsFile
from kafka_health.shipper.tailer import FileId, SavedPosition

FID = FileId(1, 42)


@pytest.mark.parametrize(
    ("ack_order", "committed_after_each", "reason"),
    [
        ([0, 1, 2], [10, 20, 30], "in order: each ack moves the position"),
        ([2, 1, 0], [5, 5, 30], "out of order: nothing moves until the first is acknowledged"),
        ([1, 0, 2], [5, 20, 30], "a gap holds the position back"),
    ],
)
def test_committed_offset_is_the_end_of_the_acknowledged_prefix(
    ack_order: list[int], committed_after_each: list[int], reason: str
) -> None:
    tracker = AckTracker()
    tracker.track(FID, start_offset=5)
    tickets = [tracker.add(FID, end) for end in (10, 20, 30)]
    seen = []
    for index in ack_order:
        tracker.ack(FID, tickets[index])
        seen.append(tracker.committed(FID))
    assert seen == committed_after_each, reason
    assert tracker.in_flight(FID) == 0


def test_unknown_and_repeated_acks_are_ignored() -> None:
    tracker = AckTracker()
    tracker.track(FID, 0)
    ticket = tracker.add(FID, 10)
    assert tracker.ack(FID, ticket) is True
    assert tracker.ack(FID, ticket) is False, "already acknowledged (e.g. a retry's late ack)"
    assert tracker.ack(FileId(9, 9), 0) is False


def position(offset: int) -> SavedPosition:
    return SavedPosition(FID, "1", "/logs/server.log", "/logs/server.log", offset, 1.5, 8, "ab")


def test_positions_round_trip_and_leave_no_temporary_file(tmp_path: Path) -> None:
    store = PositionsFile(tmp_path / "sub" / "positions.json")
    assert store.load() == [] and not store.exists()
    store.save([position(100)])
    store.save([position(200)])
    assert store.load() == [position(200)]
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["positions.json"]
    assert json.loads(store.path.read_text())["files"][0]["inode"] == 42


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "a damaged file (disk full at some earlier time)"),
        ('{"files": [{"dev": 1}]}', "an entry with missing keys"),
    ],
)
def test_an_unreadable_positions_file_is_reported_not_fatal(
    tmp_path: Path, content: str, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = PositionsFile(tmp_path / "positions.json")
    store.path.write_text(content)
    assert store.load() == [], reason
    assert "positions" in caplog.text
