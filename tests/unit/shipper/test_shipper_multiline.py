"""Continuation lines join their entry; entries are bounded in size and flushed on a timeout."""

from __future__ import annotations

import re
from itertools import accumulate
from pathlib import Path

import pytest

from kafka_health.parsing.patterns import ENTRY_START
from kafka_health.shipper.multiline import Joiner, start_pattern
from kafka_health.shipper.tailer import Line

FIXTURES = Path(__file__).parents[2] / "fixtures" / "logs"


def lines_of(*texts: str) -> list[Line]:
    out, offset = [], 0
    for text in texts:
        data = text.encode()
        out.append(Line(offset, offset + len(data) + 1, data))
        offset += len(data) + 1
    return out


STACK = [
    "[2026-11-22 10:00:00,123] ERROR [KafkaApi-1] Unexpected error (kafka.server.KafkaApis)",
    "java.lang.ArrayIndexOutOfBoundsException: 18",
    "\tat org.apache.kafka.common.protocol.ApiKeys.forId(ApiKeys.java:68)",
    "Caused by: java.lang.IllegalStateException: boom",
    "\t... 3 more",
    "[2026-11-22 10:00:01,000] INFO next entry (kafka.server.KafkaServer)",
]
JDK8_G1 = [
    "2026-11-22T10:00:00.409+0000: 0.253: [GC pause (G1 Evacuation Pause) (young), 0.0051 secs]",
    "   [Parallel Time: 4.1 ms, GC Workers: 2]",
    "      [GC Worker Start (ms): Min: 253.1, Avg: 253.2, Max: 253.3, Diff: 0.2]",
    "   [Eden: 24.0M(24.0M)->0.0B(13.0M) Survivors: 0.0B->3072.0K Heap: 24.0M(256.0M)->21.9M]",
    " [Times: user=0.02 sys=0.00, real=0.01 secs] ",
    "2026-11-22T10:00:01.000+0000: 1.000: [Full GC (Allocation Failure)  255M->200M, 12 secs]",
]
XLOG = [
    "[2026-11-22T10:00:00.100+0000][0.016s][info][gc] Using G1",
    "[2026-11-22T10:00:00.200+0000][0.021s][info][gc,init] Version: 17.0.15+6",
]


@pytest.mark.parametrize(
    ("kind", "texts", "expected_lines", "reason"),
    [
        ("server", STACK, [5, 1], "a stack trace belongs to the log4j entry above it"),
        ("gc", JDK8_G1, [5, 1], "JDK 8 detail blocks are indented under their GC entry"),
        ("gc", XLOG, [1, 1], "every unified-logging (-Xlog) line is an entry"),
        ("server", ["orphan continuation", STACK[0]], [1, 1], "no entry before: on its own"),
        ("other", ["INFO a", " b", "WARN c"], [2, 1], "other files: as the parse splits them"),
    ],
)
def test_continuation_lines_join_their_entry(
    kind: str, texts: list[str], expected_lines: list[int], reason: str
) -> None:
    joiner = Joiner(start_pattern(), max_entry_bytes=64 * 1024, flush_timeout_s=1.0)
    entries = joiner.feed(lines_of(*texts), now=0.0) + joiner.flush()
    assert [e.lines for e in entries] == expected_lines, reason
    assert "\n".join(e.data.decode() for e in entries) == "\n".join(texts), "nothing lost"
    assert entries[0].offset == 0 and entries[1].offset == entries[0].end, "contiguous"


def test_the_pending_entry_is_flushed_after_the_timeout_only() -> None:
    joiner = Joiner(start_pattern(), max_entry_bytes=64 * 1024, flush_timeout_s=2.0)
    assert joiner.feed(lines_of(*STACK[:3]), now=10.0) == []
    assert joiner.flush_due(now=11.9) == [], "a continuation line may still come"
    assert joiner.pending_offset == 0
    (entry,) = joiner.flush_due(now=12.0)
    assert entry.lines == 3 and joiner.pending_offset is None


def test_an_entry_past_the_size_bound_is_split_not_truncated() -> None:
    joiner = Joiner(start_pattern(), max_entry_bytes=1024, flush_timeout_s=1.0)
    texts = [STACK[0]] + [f"\tat frame.number{i}(Some.java:{i})" for i in range(100)]
    entries = joiner.feed(lines_of(*texts), now=0.0) + joiner.flush()
    assert len(entries) > 1
    assert all(len(e.data) <= 1024 for e in entries)
    assert [e.split for e in entries] == [False] + [True] * (len(entries) - 1)
    assert "\n".join(e.data.decode() for e in entries) == "\n".join(texts)


def test_pieces_of_an_over_long_line_are_entries_of_their_own() -> None:
    joiner = Joiner(start_pattern(), max_entry_bytes=1024, flush_timeout_s=1.0)
    pieces = [
        Line(0, 10, STACK[0].encode()),
        Line(10, 1034, b"x" * 1024, complete=False),
        Line(1034, 1040, b"yyyyy"),  # the end of the long line
        Line(1040, 1050, b"\tat next"),  # a continuation of ... the long line's entry
    ]
    entries = joiner.feed(pieces, now=0.0) + joiner.flush()
    assert [e.data[:5] for e in entries] == [b"[2026", b"xxxxx", b"yyyyy", b"\tat n"]


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("*.log")))
def test_entries_start_where_replay_starts_them(fixture: str) -> None:
    """The live path (this joiner) and replay (``parsing.offline.join_entries``: a file's first
    line, or a line matching the parse's ENTRY_START) split a file into the same entries."""
    texts = (FIXTURES / fixture).read_text().splitlines()
    replay_starts = [i for i, t in enumerate(texts) if i == 0 or re.match(ENTRY_START, t)]
    joiner = Joiner(start_pattern(), max_entry_bytes=1 << 20, flush_timeout_s=1.0)
    entries = joiner.feed(lines_of(*texts), now=0.0) + joiner.flush()
    firsts = list(accumulate([e.lines for e in entries[:-1]], initial=0))
    assert firsts == replay_starts
