"""The on-disk results buffer: ordered, survives restarts, bounded, at least once."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_health.canary.buffer import DiskBuffer


def buf(path: Path, max_bytes: int = 1 << 20, segment_bytes: int = 64) -> DiskBuffer:
    return DiskBuffer(path, max_bytes=max_bytes, segment_bytes=segment_bytes, fsync=False)


def records(n: int, start: int = 0) -> list[bytes]:
    return [f"r{i:04d}".encode() for i in range(start, start + n)]


def test_read_returns_appended_records_in_order_across_segments(tmp_path: Path) -> None:
    b = buf(tmp_path)
    b.append(records(30))  # 6 bytes each: several 64-byte segments
    got, _ = b.read(100)
    assert got == records(30)
    assert len(list(tmp_path.glob("*.seg"))) > 1


def test_uncommitted_records_are_read_again(tmp_path: Path) -> None:
    b = buf(tmp_path)
    b.append(records(5))
    first, _ = b.read(3)
    again, _ = b.read(3)
    assert first == again == records(3), "a failed delivery is retried from the cursor"


def test_commit_moves_on_and_deletes_finished_segments(tmp_path: Path) -> None:
    b = buf(tmp_path)
    b.append(records(30))
    _, end = b.read(25)
    b.commit(end)
    rest, _ = b.read(100)
    assert rest == records(5, start=25)
    assert b.pending == 5
    assert len(list(tmp_path.glob("*.seg"))) <= 2


def test_pending_records_and_cursor_survive_a_restart(tmp_path: Path) -> None:
    b = buf(tmp_path)
    b.append(records(20))
    _, end = b.read(7)
    b.commit(end)
    b.close()
    reopened = buf(tmp_path)
    assert reopened.pending == 13
    assert reopened.read(100)[0] == records(13, start=7)
    reopened.append([b"after"])
    assert reopened.read(100)[0][-1] == b"after"


def test_a_torn_last_line_is_cut_at_restart(tmp_path: Path) -> None:
    b = buf(tmp_path, segment_bytes=4096)
    b.append(records(3))
    b.close()
    segment = next(tmp_path.glob("*.seg"))
    with open(segment, "ab") as handle:
        handle.write(b'{"half')  # the process died in the middle of a write
    reopened = buf(tmp_path, segment_bytes=4096)
    assert reopened.read(10)[0] == records(3)
    assert reopened.pending == 3


def test_over_the_bound_the_oldest_segment_is_dropped_and_counted(tmp_path: Path) -> None:
    b = buf(tmp_path, max_bytes=128, segment_bytes=64)
    b.append(records(10))  # 70 bytes: two segments
    b.append(records(20, start=10))  # 190 bytes in all: over 128
    kept, _ = b.read(100)
    assert b.dropped > 0
    assert kept == records(30)[b.dropped :], "the newest outcomes are kept, in order"
    assert b.pending == len(kept)
    assert sum(p.stat().st_size for p in tmp_path.glob("*.seg")) <= 128


def test_commit_of_a_dropped_position_is_ignored(tmp_path: Path) -> None:
    b = buf(tmp_path, max_bytes=128, segment_bytes=64)
    b.append(records(10))
    _, end = b.read(2)
    b.append(records(30, start=10))  # drops the segment the read came from
    b.commit(end)
    assert b.read(1)[0] != [], "the cursor did not go backwards or past live records"


def test_records_with_newlines_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="newline"):
        buf(tmp_path).append([b"two\nlines"])


def test_empty_buffer_reads_nothing(tmp_path: Path) -> None:
    b = buf(tmp_path)
    assert b.read(10)[0] == [] and b.pending == 0 and b.pending_bytes == 0
