"""Persisted read positions, advanced only over entries Kafka acknowledged (at least once).

:class:`AckTracker` knows, per file, the entries sent in file order and which were
acknowledged; the committed offset is the end of the last entry before which everything was
acknowledged. :class:`PositionsFile` writes those offsets atomically (temporary file, fsync,
rename, fsync of the folder), so a crash leaves either the old or the new file, never half.
"""

from __future__ import annotations

import json
import logging
import os
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kafka_health.shipper.tailer import FileId, SavedPosition

log = logging.getLogger(__name__)

FORMAT_VERSION = 1


class AckTracker:
    """In-flight entries per file, in send order, and the committed offset of each file."""

    def __init__(self) -> None:
        self._committed: dict[FileId, int] = {}
        self._queues: dict[FileId, deque[list[int]]] = {}  # [end, acked] per entry
        self._first_seq: dict[FileId, int] = {}
        self._next_seq: dict[FileId, int] = {}

    def track(self, fid: FileId, start_offset: int) -> None:
        """Start tracking a file whose reading starts at ``start_offset``."""
        if fid not in self._committed:
            self._committed[fid] = start_offset
            self._queues[fid] = deque()
            self._first_seq[fid] = self._next_seq[fid] = 0

    def add(self, fid: FileId, end: int) -> int:
        """Register an entry ending at ``end`` as sent; return its ticket."""
        seq = self._next_seq[fid]
        self._next_seq[fid] = seq + 1
        self._queues[fid].append([end, 0])
        return seq

    def ack(self, fid: FileId, seq: int) -> bool:
        """Mark a ticket acknowledged; return True when the committed offset moved."""
        queue = self._queues.get(fid)
        if queue is None:
            return False
        index = seq - self._first_seq[fid]
        if not 0 <= index < len(queue):
            return False
        queue[index][1] = 1
        moved = False
        while queue and queue[0][1]:
            self._committed[fid] = queue.popleft()[0]
            self._first_seq[fid] += 1
            moved = True
        return moved

    def committed(self, fid: FileId) -> int | None:
        return self._committed.get(fid)

    def in_flight(self, fid: FileId) -> int:
        queue = self._queues.get(fid)
        return len(queue) if queue is not None else 0

    def forget(self, fid: FileId) -> None:
        """Stop tracking a file (closed, everything acknowledged)."""
        for table in (self._committed, self._queues, self._first_seq, self._next_seq):
            table.pop(fid, None)

    def files(self) -> list[FileId]:
        return list(self._committed)


class PositionsFile:
    """The JSON file of saved positions."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def exists(self) -> bool:
        return self.path.exists()

    def load(self) -> list[SavedPosition]:
        """The saved positions; an unreadable file is reported and treated as empty."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.error("cannot read positions file %s (%s): starting without it", self.path, exc)
            return []
        positions = []
        for item in raw.get("files", []):
            try:
                positions.append(_from_json(item))
            except (KeyError, TypeError, ValueError) as exc:
                log.error("skipping a bad position in %s: %s (%r)", self.path, exc, item)
        return positions

    def save(self, positions: Iterable[SavedPosition]) -> None:
        """Replace the file atomically with ``positions``."""
        payload = {
            "version": FORMAT_VERSION,
            "files": [_to_json(p) for p in sorted(positions, key=lambda p: p.fid)],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _to_json(position: SavedPosition) -> dict[str, Any]:
    item = asdict(position)
    fid = item.pop("fid")
    return {"dev": fid["dev"], "inode": fid["ino"], **item}


def _from_json(item: dict[str, Any]) -> SavedPosition:
    return SavedPosition(
        fid=FileId(int(item["dev"]), int(item["inode"])),
        broker_id=str(item["broker_id"]),
        pattern=str(item["pattern"]),
        path=str(item["path"]),
        offset=int(item["offset"]),
        mtime=float(item["mtime"]),
        head_len=int(item.get("head_len", 0)),
        head_sha1=str(item.get("head_sha1", "")),
    )
