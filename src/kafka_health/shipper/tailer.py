"""Follow log files by identity (device, inode) and byte offset, through every kind of rotation.

A file is tracked by its identity, not its name, so one rule covers the rotations of a Kafka
broker's logs:

- log4j's rolling (``server.log`` renamed to ``server.log.2026-11-22-10``) and the JVM's
  ``-Xlog`` rotation (``gc.log`` renamed to ``gc.log.0`` ...): the configured path now names a
  new identity; the old file stays open and is read to its end (and for ``rotated_grace_s``
  longer, for a writer that still finishes a line) before it is closed.
- copytruncate: the same identity shrinks below the read offset; reading restarts at 0.
- files that do not exist yet, and globs: every scan looks again.

After a restart, :meth:`Tailer.restore` resumes each known identity at its saved offset, also
when it was renamed while the shipper was down, and picks up the renamed files of that name
written since (a rotation while down), so no entry is skipped.
"""

from __future__ import annotations

import glob as globbing
import hashlib
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

HEAD_BYTES = 256
"""How many leading bytes of a file fingerprint it in the positions file (inode reuse check)."""


@dataclass(frozen=True, order=True)
class FileId:
    """The identity of a file: it survives renames, not copies."""

    dev: int
    ino: int


@dataclass(frozen=True)
class Source:
    """A configured file or glob of one broker; ``key`` is ``(broker_id, pattern)``."""

    broker_id: str
    pattern: str
    is_glob: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.broker_id, self.pattern)

    def paths(self) -> list[str]:
        """The paths this source names right now (sorted; empty when nothing exists)."""
        if self.is_glob:
            return sorted(globbing.glob(self.pattern))
        return [self.pattern]


@dataclass(frozen=True)
class Line:
    """One line read from a file, without its newline. ``complete`` is False for the pieces
    of a line longer than the line bound (the next Line continues it, with no newline)."""

    offset: int
    end: int
    data: bytes
    complete: bool = True


@dataclass(frozen=True)
class SavedPosition:
    """Where reading a file resumes: what the positions file holds for one identity."""

    fid: FileId
    broker_id: str
    pattern: str
    path: str
    offset: int
    mtime: float
    head_len: int = 0
    head_sha1: str = ""


@dataclass
class TailedFile:
    """One open file: its identity, the name it was found under, and how far it was read."""

    fid: FileId
    source: Source
    path: str
    offset: int
    handle: BinaryIO
    size: int = 0
    mtime: float = 0.0
    rotated_at: float | None = None
    start_offset: int = 0

    def head(self, length: int) -> tuple[int, str]:
        """Fingerprint of the first ``min(length, HEAD_BYTES)`` bytes: (length, sha1 hex)."""
        n = min(length, HEAD_BYTES)
        if n <= 0:
            return 0, ""
        return n, hashlib.sha1(os.pread(self.handle.fileno(), n, 0)).hexdigest()


@dataclass
class FileRead:
    """What one poll found in one file."""

    file: TailedFile
    lines: list[Line] = field(default_factory=list)
    truncated: bool = False
    closed: bool = False
    opened: bool = False
    rotated: bool = False


class Tailer:
    """Finds the configured files and reads their new complete lines, by file identity."""

    def __init__(
        self,
        sources: Iterable[Source],
        *,
        read_chunk_bytes: int = 256 * 1024,
        max_line_bytes: int = 64 * 1024,
        rotated_grace_s: float = 5.0,
        start_at_end: bool = False,
    ) -> None:
        self.sources = list(sources)
        self.read_chunk_bytes = max(read_chunk_bytes, max_line_bytes + 1)
        self.max_line_bytes = max_line_bytes
        self.rotated_grace_s = rotated_grace_s
        self.files: dict[FileId, TailedFile] = {}
        self._start_at_end = start_at_end
        self._restored: dict[FileId, SavedPosition] = {}
        self._first_scan = True

    # ------------------------------------------------------------------ restart

    def restore(self, saved: Iterable[SavedPosition], now: float) -> None:
        """Resume from saved positions; must be called before the first :meth:`poll`.

        Identities still at a configured path resume when that path is next scanned. The others
        were renamed while the shipper was down: they are looked up beside their old path and
        read on from their offset, and the renamed siblings newer than them (rotated while
        down, never seen) are read from the start.
        """
        saved = list(saved)
        self._restored = {p.fid: p for p in saved}
        sources = {s.key: s for s in self.sources}
        current = {fid for fid, _source, _path in self._scan()}
        for position in saved:
            if position.fid in current:
                continue
            source = sources.get((position.broker_id, position.pattern))
            if source is None:
                continue
            for path, fid in _rotated_siblings(position.path):
                if fid in current or fid in self.files:
                    continue
                if fid == position.fid:
                    self._open(fid, source, path, now, rotated=True, offset=position.offset)
                elif fid not in self._restored and _mtime(path) > position.mtime:
                    log.info("%s was rotated while the shipper was down: reading it", path)
                    self._open(fid, source, path, now, rotated=True, offset=0)

    # ------------------------------------------------------------------ polling

    def poll(self, now: float, read: bool = True) -> list[FileRead]:
        """Scan the sources, then read up to ``read_chunk_bytes`` of new lines from each file.

        With ``read=False`` (the buffer is full) files are only found and opened, so that a
        file renamed twice before reading resumes is still held open and read later.
        """
        results: dict[FileId, FileRead] = {}
        seen: set[FileId] = set()
        for fid, source, path in self._scan():
            seen.add(fid)
            tailed = self.files.get(fid)
            if tailed is None:
                tailed = self._open(fid, source, path, now, rotated=False, offset=None)
                if tailed is None:
                    continue
                results[fid] = FileRead(tailed, opened=True)
            elif tailed.rotated_at is not None:
                tailed.rotated_at = None  # back under a configured name (e.g. a glob)
        for fid, tailed in list(self.files.items()):
            event = results.setdefault(fid, FileRead(tailed))
            if fid not in seen and tailed.rotated_at is None:
                tailed.rotated_at = now
                event.rotated = True
                log.info("%s was rotated or removed: reading it to its end", tailed.path)
            self._refresh_size(tailed, event)
            if not read:
                continue
            event.lines = self._read(tailed)
            if (
                tailed.rotated_at is not None
                and not event.lines
                and now - tailed.rotated_at >= self.rotated_grace_s
            ):
                event.lines = self._read(tailed, final=True)
                self._close(tailed)
                event.closed = True
        self._first_scan = False
        return [e for e in results.values() if e.lines or e.opened or e.closed or e.truncated]

    def close(self) -> None:
        """Close every open file."""
        for tailed in list(self.files.values()):
            self._close(tailed)

    # ------------------------------------------------------------------ internals

    def _scan(self) -> list[tuple[FileId, Source, str]]:
        found: list[tuple[FileId, Source, str]] = []
        claimed: set[FileId] = set()
        for source in self.sources:
            for path in source.paths():
                try:
                    st = os.stat(path)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except OSError as exc:
                    log.warning("cannot stat %s: %s", path, exc.strerror)
                    continue
                fid = FileId(st.st_dev, st.st_ino)
                if not _is_regular(st.st_mode) or fid in claimed:
                    continue
                claimed.add(fid)
                found.append((fid, source, path))
        return found

    def _open(
        self,
        fid: FileId,
        source: Source,
        path: str,
        now: float,
        *,
        rotated: bool,
        offset: int | None,
    ) -> TailedFile | None:
        try:
            handle = open(path, "rb")  # noqa: SIM115 (kept open while the file is tailed)
        except OSError as exc:
            log.warning("cannot open %s: %s", path, exc.strerror)
            return None
        st = os.fstat(handle.fileno())
        if FileId(st.st_dev, st.st_ino) != fid:  # replaced between stat and open: next scan
            handle.close()
            return None
        tailed = TailedFile(fid, source, path, 0, handle, st.st_size, st.st_mtime)
        if offset is None:
            offset = self._initial_offset(tailed)
        tailed.offset = tailed.start_offset = offset
        if rotated:
            tailed.rotated_at = now
        self.files[fid] = tailed
        log.info("following %s (inode %d) from offset %d", path, fid.ino, offset)
        return tailed

    def _initial_offset(self, tailed: TailedFile) -> int:
        saved = self._restored.pop(tailed.fid, None)
        if saved is not None:
            tailed.path = saved.path
            if tailed.size < saved.offset:
                log.warning("%s is shorter than its saved offset: reading from 0", saved.path)
                return 0
            if saved.head_len and tailed.head(saved.head_len) != (saved.head_len, saved.head_sha1):
                log.warning("%s starts differently than saved (inode reused?): from 0", saved.path)
                return 0
            return saved.offset
        return tailed.size if self._first_scan and self._start_at_end else 0

    def _refresh_size(self, tailed: TailedFile, event: FileRead) -> None:
        st = os.fstat(tailed.handle.fileno())
        tailed.size, tailed.mtime = st.st_size, st.st_mtime
        if st.st_size < tailed.offset:
            log.warning(
                "%s was truncated (size %d < offset %d): reading from 0 (copytruncate)",
                tailed.path,
                st.st_size,
                tailed.offset,
            )
            tailed.offset = 0
            event.truncated = True

    def _read(self, tailed: TailedFile, final: bool = False) -> list[Line]:
        """Complete lines from the offset on; a final read also takes an unterminated tail."""
        data = os.pread(tailed.handle.fileno(), self.read_chunk_bytes, tailed.offset)
        lines: list[Line] = []
        base = tailed.offset
        pos = 0
        limit = self.max_line_bytes
        while True:
            nl = data.find(b"\n", pos, pos + limit + 1)
            if nl >= 0:
                lines.append(Line(base + pos, base + nl + 1, data[pos:nl]))
                pos = nl + 1
                continue
            rest = len(data) - pos
            if rest > limit:  # a line longer than the bound: cut a piece, no newline in it
                cut = _utf8_boundary(data, pos + limit, pos)
                lines.append(Line(base + pos, base + cut, data[pos:cut], complete=False))
                pos = cut
                continue
            if final and rest > 0:
                lines.append(Line(base + pos, base + len(data), data[pos:]))
                pos = len(data)
            break
        tailed.offset = base + pos
        return lines

    def _close(self, tailed: TailedFile) -> None:
        tailed.handle.close()
        self.files.pop(tailed.fid, None)
        log.info("done with %s (inode %d) at offset %d", tailed.path, tailed.fid.ino, tailed.offset)


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _rotated_siblings(path: str) -> list[tuple[str, FileId]]:
    """``path`` itself and the files beside it named ``<name>.<suffix>``, with identities."""
    p = Path(path)
    found: list[tuple[str, FileId]] = []
    try:
        entries = list(os.scandir(p.parent))
    except OSError:
        return found
    for entry in entries:
        if entry.name == p.name or entry.name.startswith(p.name + "."):
            try:
                st = entry.stat()
            except OSError:
                continue
            if _is_regular(st.st_mode):
                found.append((entry.path, FileId(st.st_dev, st.st_ino)))
    return sorted(found)


def _utf8_boundary(data: bytes, cut: int, floor: int) -> int:
    """Move ``cut`` back (at most 3 bytes) so it does not split a UTF-8 sequence."""
    for candidate in range(cut, max(floor + 1, cut - 3) - 1, -1):
        if candidate >= len(data) or (data[candidate] & 0xC0) != 0x80:
            return candidate
    return cut
