"""A log file's entries as the shipper joins them, each with its first line's number."""

from __future__ import annotations

from pathlib import Path

from kafka_health.parsing.config import ParsingConfig
from kafka_health.shipper.multiline import Joiner, start_pattern
from kafka_health.shipper.tailer import Line


def joined_entries(path: Path) -> list[tuple[int, str]]:
    """(first line number, text) of each entry, joined by the shipper's own joiner."""
    joiner = Joiner(start_pattern(), ParsingConfig().max_entry_bytes, flush_timeout_s=5.0)
    offset, lines, starts = 0, [], {}
    for number, raw in enumerate(path.read_bytes().split(b"\n")[:-1], 1):
        lines.append(Line(offset, offset + len(raw) + 1, raw))
        starts[offset] = number
        offset += len(raw) + 1
    entries = joiner.feed(lines, now=0.0) + joiner.flush()
    return [(starts[e.offset], e.data.decode()) for e in entries]
