"""Join continuation lines (stack traces, JDK 8 GC detail blocks) to the entry they belong to.

An entry starts with a line matching the start pattern (the parse's own, whatever the file's
kind, unless the file's config names another); the lines after it that do not match are its
continuation, joined with ``"\\n"``. An entry is emitted when the next entry starts, when no
line arrived for ``flush_timeout_s``, or when adding a line would pass ``max_entry_bytes``
(then the line starts a new entry: nothing is dropped, the entry is split).
A line longer than the bound arrives from the tailer in pieces; each piece is its own entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kafka_health.parsing.patterns import ENTRY_START
from kafka_health.shipper.tailer import Line


def start_pattern(override: str | None = None) -> re.Pattern[bytes]:
    """The compiled start-of-entry pattern: the configured override, else the parse's own
    :data:`~kafka_health.parsing.patterns.ENTRY_START`, so that the live path joins a file's
    lines into the entries replay (:func:`~kafka_health.parsing.offline.join_entries`) joins."""
    return re.compile((override or ENTRY_START).encode())


@dataclass(frozen=True)
class Entry:
    """One log entry: bytes ``[offset, end)`` of its file; ``data`` has no final newline."""

    offset: int
    end: int
    data: bytes
    lines: int = 1
    split: bool = False


@dataclass
class _Pending:
    offset: int
    end: int
    parts: list[bytes] = field(default_factory=list)
    size: int = 0
    split: bool = False


class Joiner:
    """Multi-line joining for one file. Feed lines in file order; clocks are passed in."""

    def __init__(
        self, start: re.Pattern[bytes], max_entry_bytes: int, flush_timeout_s: float
    ) -> None:
        self.start = start
        self.max_entry_bytes = max_entry_bytes
        self.flush_timeout_s = flush_timeout_s
        self._pending: _Pending | None = None
        self._last_line_at = 0.0
        self._in_long_line = False

    @property
    def pending_offset(self) -> int | None:
        """Where the entry still being joined starts (None when there is none)."""
        return None if self._pending is None else self._pending.offset

    def feed(self, lines: list[Line], now: float) -> list[Entry]:
        """Add lines; return the entries they completed."""
        out: list[Entry] = []
        match = self.start.match
        for line in lines:
            if self._in_long_line or not line.complete:
                # a piece of an over-long line: never joined with anything
                self._emit(out)
                out.append(Entry(line.offset, line.end, line.data, 1, split=True))
                self._in_long_line = not line.complete
                continue
            pending = self._pending
            if pending is None or match(line.data):
                self._emit(out)
                self._pending = _Pending(line.offset, line.end, [line.data], len(line.data))
                continue
            size = pending.size + 1 + len(line.data)
            if size > self.max_entry_bytes:
                self._emit(out)
                self._pending = _Pending(
                    line.offset, line.end, [line.data], len(line.data), split=True
                )
                continue
            pending.parts.append(line.data)
            pending.size = size
            pending.end = line.end
        if lines:
            self._last_line_at = now
        return out

    def flush_due(self, now: float) -> list[Entry]:
        """Emit the pending entry when no line came for ``flush_timeout_s``."""
        if self._pending is not None and now - self._last_line_at >= self.flush_timeout_s:
            return self.flush()
        return []

    def flush(self) -> list[Entry]:
        """Emit the pending entry now (file closed, truncated, or shutting down)."""
        out: list[Entry] = []
        self._emit(out)
        return out

    def _emit(self, out: list[Entry]) -> None:
        pending = self._pending
        if pending is None:
            return
        data = pending.parts[0] if len(pending.parts) == 1 else b"\n".join(pending.parts)
        out.append(Entry(pending.offset, pending.end, data, len(pending.parts), pending.split))
        self._pending = None
