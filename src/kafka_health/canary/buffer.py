"""A bounded, append-only on-disk queue of records (one line each) with a persisted cursor.

Records are appended to segment files ``<n:020d>.seg``; ``cursor.json`` names the first
record not yet delivered (segment, byte offset). ``read`` returns records from the cursor on,
``commit`` moves the cursor past them and deletes finished segments. A crash loses nothing
appended (appends are flushed, optionally fsynced) and may deliver records again (at least
once). Over ``max_bytes`` the oldest segment is dropped and its undelivered records counted
in ``dropped``: the newest outcomes are kept.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kafka_health.canary.sequence import write_atomically

_SEGMENT = re.compile(r"(\d{20})\.seg")
CURSOR_FILE = "cursor.json"


@dataclass(frozen=True, order=True)
class Position:
    """A place in the buffer: a segment number and a byte offset in it."""

    segment: int
    offset: int


class DiskBuffer:
    """Thread-safe: one thread may append while another reads and commits."""

    def __init__(
        self, directory: Path, max_bytes: int, segment_bytes: int, fsync: bool = True
    ) -> None:
        if segment_bytes < 1 or max_bytes < 2 * segment_bytes:
            raise ValueError("need segment_bytes >= 1 and max_bytes >= 2 * segment_bytes")
        self.directory = directory
        self.max_bytes = max_bytes
        self.segment_bytes = segment_bytes
        self.fsync = fsync
        self.dropped = 0
        self._lock = threading.Lock()
        self._tail: BinaryIO | None = None
        self._tail_number_open = -1
        directory.mkdir(parents=True, exist_ok=True)
        self._sizes: dict[int, int] = {}
        for entry in directory.iterdir():
            match = _SEGMENT.fullmatch(entry.name)
            if match:
                self._sizes[int(match.group(1))] = entry.stat().st_size
        self._repair_tail()
        self._cursor = self._load_cursor()
        self._pending = self._count_lines_from(self._cursor)

    # ---------------------------------------------------------------- public

    @property
    def pending(self) -> int:
        """Records appended and not yet committed."""
        with self._lock:
            return self._pending

    @property
    def pending_bytes(self) -> int:
        with self._lock:
            return self._pending_bytes()

    def append(self, records: Sequence[bytes]) -> None:
        """Append records (no newlines inside); drop the oldest segment when over the bound."""
        if not records:
            return
        for record in records:
            if b"\n" in record:
                raise ValueError("a buffered record must not contain a newline")
        with self._lock:
            for record in records:
                line = record + b"\n"
                self._open_tail().write(line)
                self._sizes[self._tail_number_open] += len(line)
            assert self._tail is not None
            self._sync(self._tail)
            self._pending += len(records)
            self._enforce_bound()

    def read(self, max_records: int) -> tuple[list[bytes], Position]:
        """Up to ``max_records`` records from the cursor on, and the position after them."""
        with self._lock:
            records: list[bytes] = []
            position = self._cursor
            for number in sorted(n for n in self._sizes if n >= position.segment):
                offset = position.offset if number == position.segment else 0
                with open(self._path(number), "rb") as handle:
                    handle.seek(offset)
                    while len(records) < max_records:
                        line = handle.readline()
                        if not line.endswith(b"\n"):
                            break
                        records.append(line[:-1])
                        offset += len(line)
                position = Position(number, offset)
                if len(records) >= max_records:
                    break
            return records, position

    def commit(self, position: Position) -> None:
        """Mark everything before ``position`` delivered; delete finished segments."""
        with self._lock:
            if position <= self._cursor:
                return
            self._pending -= self._count_lines_between(self._cursor, position)
            self._cursor = position
            for number in [n for n in self._sizes if n < position.segment]:
                self._delete(number)
            if position.segment != self._tail_number() and position.offset >= self._sizes.get(
                position.segment, 0
            ):
                self._delete(position.segment)
            self._save_cursor()

    def close(self) -> None:
        with self._lock:
            if self._tail is not None:
                self._tail.close()
                self._tail = None

    # ---------------------------------------------------------------- internals

    def _path(self, number: int) -> Path:
        return self.directory / f"{number:020d}.seg"

    def _tail_number(self) -> int:
        return max(self._sizes) if self._sizes else self._cursor.segment

    def _open_tail(self) -> BinaryIO:
        number = self._tail_number()
        if self._sizes.get(number, 0) >= self.segment_bytes:
            number += 1
        if self._tail is not None and self._tail_number_open != number:
            self._sync(self._tail)
            self._tail.close()
            self._tail = None
        if self._tail is None:
            self._tail = open(self._path(number), "ab")  # noqa: SIM115 - kept open for appends
            self._tail_number_open = number
            self._sizes.setdefault(number, 0)
        return self._tail

    def _sync(self, handle: BinaryIO) -> None:
        handle.flush()
        if self.fsync:
            os.fsync(handle.fileno())

    def _enforce_bound(self) -> None:
        while sum(self._sizes.values()) > self.max_bytes and len(self._sizes) > 1:
            oldest = min(self._sizes)
            start = self._cursor if self._cursor.segment == oldest else Position(oldest, 0)
            lost = self._count_lines_between(start, Position(oldest, self._sizes[oldest]))
            self.dropped += lost
            self._pending -= lost
            self._delete(oldest)
            if self._cursor.segment <= oldest:
                self._cursor = Position(min(self._sizes), 0)
                self._save_cursor()

    def _delete(self, number: int) -> None:
        self._sizes.pop(number, None)
        self._path(number).unlink(missing_ok=True)

    def _pending_bytes(self) -> int:
        total = sum(size for n, size in self._sizes.items() if n >= self._cursor.segment)
        return total - (self._cursor.offset if self._cursor.segment in self._sizes else 0)

    def _repair_tail(self) -> None:
        """Cut a torn last line (a crash in the middle of an append)."""
        if not self._sizes:
            return
        number = max(self._sizes)
        with open(self._path(number), "rb+") as handle:
            data = handle.read()
            keep = data.rfind(b"\n") + 1
            if keep != len(data):
                handle.truncate(keep)
        self._sizes[number] = keep

    def _load_cursor(self) -> Position:
        try:
            data = json.loads((self.directory / CURSOR_FILE).read_text(encoding="utf-8"))
            cursor = Position(int(data["segment"]), int(data["offset"]))
        except (OSError, ValueError, KeyError, TypeError):
            cursor = Position(min(self._sizes), 0) if self._sizes else Position(0, 0)
        for number in [n for n in self._sizes if n < cursor.segment]:
            self._delete(number)
        if cursor.segment not in self._sizes:
            later = [n for n in self._sizes if n > cursor.segment]
            cursor = Position(min(later), 0) if later else Position(cursor.segment, 0)
        else:
            cursor = Position(cursor.segment, min(cursor.offset, self._sizes[cursor.segment]))
        return cursor

    def _save_cursor(self) -> None:
        content = json.dumps({"segment": self._cursor.segment, "offset": self._cursor.offset})
        write_atomically(self.directory / CURSOR_FILE, content.encode(), self.fsync)

    def _count_lines_from(self, start: Position) -> int:
        end_segment = max(self._sizes) if self._sizes else start.segment
        return self._count_lines_between(start, Position(end_segment, 1 << 62))

    def _count_lines_between(self, start: Position, end: Position) -> int:
        count = 0
        for number in sorted(n for n in self._sizes if start.segment <= n <= end.segment):
            begin = start.offset if number == start.segment else 0
            stop = (
                min(end.offset, self._sizes[number])
                if number == end.segment
                else self._sizes[number]
            )
            with open(self._path(number), "rb") as handle:
                handle.seek(begin)
                count += handle.read(max(0, stop - begin)).count(b"\n")
        return count
