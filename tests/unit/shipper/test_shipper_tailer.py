"""The tailer reads every line of every file once, by (device, inode) and offset, through
log4j rename rotation, JVM -Xlog rotation, copytruncate, late files, globs and restarts."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.unit.shipper.shipper_fakes import FakeClock, LogDir

from kafka_health.shipper.tailer import FileId, Line, SavedPosition, Source, Tailer

GRACE = 5.0


def make_tailer(logs: LogDir, *patterns: str, glob: bool = False, **kw: object) -> Tailer:
    sources = [Source("1", str(logs.path(p)), is_glob=glob) for p in patterns]
    return Tailer(sources, rotated_grace_s=GRACE, **kw)  # type: ignore[arg-type]


def drain(tailer: Tailer, clock: FakeClock, rounds: int = 3) -> list[tuple[int, int, str]]:
    """Poll until the rotated files' grace has passed; every line as (inode, offset, text)."""
    got: list[tuple[int, int, str]] = []
    for _ in range(rounds):
        for event in tailer.poll(clock()):
            got += [(event.file.fid.ino, ln.offset, ln.data.decode()) for ln in event.lines]
        clock.advance(GRACE)
    return got


Step = Callable[[LogDir, Tailer, FakeClock, list[tuple[int, int, str]]], None]


def write(name: str, *lines: str) -> Step:
    return lambda logs, _t, _c, _got: logs.write(name, *lines)


def rename(old: str, new: str) -> Step:
    return lambda logs, _t, _c, _got: logs.rename(old, new)


def copytruncate(name: str, copy: str) -> Step:
    return lambda logs, _t, _c, _got: logs.copytruncate(name, copy)


def poll() -> Step:
    def step(
        logs: LogDir, tailer: Tailer, clock: FakeClock, got: list[tuple[int, int, str]]
    ) -> None:
        got += drain(tailer, clock, rounds=1)

    return step


LOG4J = "[2026-11-22 10:00:0{}] INFO line {} (kafka.server.KafkaServer)"
XLOG = "[2026-11-22T10:00:0{}.000+0000][1.{}s][info][gc] GC(1) Pause Young 10M->2M(256M) 1.2ms"

SCENARIOS: list[tuple[str, str, list[Step], str]] = [
    (
        "log4j rename rotation, twice",
        "server.log",
        [
            write("server.log", LOG4J.format(1, 1), LOG4J.format(1, 2)),
            poll(),
            write("server.log", LOG4J.format(2, 3)),  # written before the rename, not yet read
            rename("server.log", "server.log.2026-11-22-10"),
            write("server.log", LOG4J.format(3, 4)),
            poll(),
            write("server.log", LOG4J.format(4, 5)),
            rename("server.log", "server.log.2026-11-22-11"),
            write("server.log", LOG4J.format(5, 6)),
        ],
        "the renamed file is read to its end from the open handle; the new one from 0",
    ),
    (
        "JVM -Xlog rotation over an old archive",
        "gc.log",
        [
            write("gc.log.0", "an old archive, shipped long ago"),
            write("gc.log", XLOG.format(1, 1)),
            poll(),
            write("gc.log", XLOG.format(2, 2)),
            rename("gc.log", "gc.log.0"),  # replaces the old archive (filecount wrapped)
            write("gc.log", XLOG.format(3, 3)),
        ],
        "gc.log -> gc.log.0 is a rename like log4j's; the old gc.log.0 was never configured",
    ),
    (
        "copytruncate",
        "server.log",
        [
            write("server.log", LOG4J.format(1, 1), LOG4J.format(1, 2)),
            poll(),
            copytruncate("server.log", "server.log.1"),
            write("server.log", LOG4J.format(2, 3)),
        ],
        "same inode, size below the offset: read again from 0 (the copy is not configured)",
    ),
    (
        "file that does not exist yet",
        "server.log",
        [poll(), poll(), write("server.log", LOG4J.format(1, 1)), poll(), write("server.log", "x")],
        "a missing path is looked for at every scan",
    ),
    (
        "rotation while the new file is not created yet",
        "server.log",
        [
            write("server.log", LOG4J.format(1, 1)),
            poll(),
            write("server.log", LOG4J.format(1, 2)),
            rename("server.log", "server.log.1"),
            poll(),
            write("server.log", LOG4J.format(2, 3)),
        ],
        "the path missing for a while is a rotation too; the file appearing later is new",
    ),
]


@pytest.mark.parametrize(
    ("name", "configured", "steps", "reason"), SCENARIOS, ids=[s[0] for s in SCENARIOS]
)
def test_every_line_is_read_once(
    logs: LogDir, clock: FakeClock, name: str, configured: str, steps: list[Step], reason: str
) -> None:
    tailer = make_tailer(logs, configured)
    got: list[tuple[int, int, str]] = []
    for step in steps:
        step(logs, tailer, clock, got)
    got += drain(tailer, clock)
    expected = [w for w in logs.written if w[2] != "an old archive, shipped long ago"]
    assert sorted(got) == sorted(expected), reason
    assert len(got) == len(set(got)), f"a line was read twice: {reason}"


def test_glob_finds_new_files_and_each_file_once(logs: LogDir, clock: FakeClock) -> None:
    tailer = Tailer([Source("1", str(logs.root / "*.log"), is_glob=True)], rotated_grace_s=GRACE)
    logs.write("a.log", "a1")
    got = drain(tailer, clock, rounds=1)
    logs.write("b.log", "b1")
    logs.write("a.log", "a2")
    got += drain(tailer, clock)
    assert sorted(got) == sorted(logs.written)


def test_unterminated_last_line_waits_then_ships_when_the_file_is_rotated_away(
    logs: LogDir, clock: FakeClock
) -> None:
    tailer = make_tailer(logs, "server.log")
    logs.write("server.log", "complete", "partial", end="")
    first = drain(tailer, clock, rounds=1)
    assert [g[2] for g in first] == [], "a line without its newline may still be written to"
    logs.write("server.log", "")  # the writer finishes the line
    assert [g[2] for g in drain(tailer, clock, rounds=1)] == ["completepartial"]
    logs.write("server.log", "tail", end="")
    logs.rename("server.log", "server.log.1")
    assert [g[2] for g in drain(tailer, clock)] == ["tail"], "a rotated file will not grow"


def test_a_line_longer_than_the_bound_comes_in_pieces_that_cover_it(
    logs: LogDir, clock: FakeClock
) -> None:
    tailer = make_tailer(logs, "server.log", max_line_bytes=1024, read_chunk_bytes=1)
    long = "é" * 1500  # 3000 bytes of 2-byte characters: pieces must not split one
    logs.write("server.log", long, "short")
    lines: list[Line] = []
    for _ in range(5):
        for event in tailer.poll(clock()):
            lines += event.lines
    assert [ln.complete for ln in lines] == [False, False, True, True]
    assert b"".join(ln.data for ln in lines[:3]).decode() == long
    assert all(len(ln.data) <= 1024 for ln in lines)
    assert [lines[i].end == lines[i + 1].offset for i in range(3)] == [True] * 3


def saved(logs: LogDir, name: str, offset: int, mtime: float | None = None) -> SavedPosition:
    st = os.stat(logs.path(name))
    return SavedPosition(
        FileId(st.st_dev, st.st_ino), "1", str(logs.path("server.log")), str(logs.path(name)),
        offset, st.st_mtime if mtime is None else mtime,
    )  # fmt: skip


def test_restart_resumes_at_the_saved_offset(logs: LogDir, clock: FakeClock) -> None:
    logs.write("server.log", "old1", "old2")
    offset = logs.path("server.log").stat().st_size
    logs.write("server.log", "new1")
    tailer = make_tailer(logs, "server.log")
    tailer.restore([saved(logs, "server.log", offset)], clock())
    assert [g[2] for g in drain(tailer, clock)] == ["new1"]


def test_restart_after_rotations_while_down_reads_the_rest_and_the_missed_file(
    logs: LogDir, clock: FakeClock
) -> None:
    logs.write("server.log", "shipped")
    position = saved(logs, "server.log", logs.path("server.log").stat().st_size)
    logs.write("server.log", "unshipped tail")
    logs.rename("server.log", "server.log.2026-11-22-10")
    logs.write("server.log", "whole file rotated while down")
    os.utime(logs.path("server.log"), (position.mtime + 5, position.mtime + 5))
    logs.rename("server.log", "server.log.2026-11-22-11")
    logs.write("server.log", "current")
    tailer = make_tailer(logs, "server.log")
    tailer.restore([position], clock())
    got = sorted(g[2] for g in drain(tailer, clock))
    assert got == ["current", "unshipped tail", "whole file rotated while down"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda p: p.write_bytes(b"new\n"), "shorter than the saved offset: truncated while down"),
        (lambda p: p.write_bytes(b"another file, same inode\n" * 3), "same size, other head"),
    ],
)
def test_restart_reads_from_0_when_the_file_is_not_the_saved_one(
    logs: LogDir, clock: FakeClock, change: Callable[[Path], None], reason: str
) -> None:
    logs.write("server.log", "line one", "line two")
    position = saved(logs, "server.log", logs.path("server.log").stat().st_size)
    tailer = make_tailer(logs, "server.log")
    with open(logs.path("server.log"), "rb") as handle:
        n = min(256, position.offset)
        head = hashlib.sha1(handle.read(n)).hexdigest()
    change(logs.path("server.log"))
    position = SavedPosition(**{**position.__dict__, "head_len": n, "head_sha1": head})
    tailer.restore([position], clock())
    got = drain(tailer, clock)
    assert got and got[0][1] == 0, reason


def test_start_at_end_skips_existing_content_only_on_a_fresh_start(
    logs: LogDir, clock: FakeClock
) -> None:
    logs.write("server.log", "before the first start")
    tailer = make_tailer(logs, "server.log", start_at_end=True)
    assert drain(tailer, clock, rounds=1) == []
    logs.write("server.log", "after")
    logs.write("late.log", "a late file is read from its start")
    assert [g[2] for g in drain(tailer, clock, rounds=1)] == ["after"]
