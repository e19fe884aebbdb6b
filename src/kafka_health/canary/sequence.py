"""Per-partition sequence numbers that are never reused, also across restarts and crashes.

Numbers are reserved in blocks: before handing out a number beyond the persisted
reservation, the store writes a new high-water mark (``reserved``, exclusive) for that
partition and fsyncs it. After a restart every partition continues at its reservation, so
the unused rest of a block becomes a gap, never a repeat. State file (version 1)::

    {"version":1,"canary_id":"kafka-health-canary","topic":"__kafka_health_canary",
     "reserved":{"0":2000,"1":1000}}
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from kafka_health.errors import KafkaHealthError

VERSION = 1


class SequenceStateError(KafkaHealthError):
    """The sequence state file cannot be read: starting over would reuse numbers."""


class SequenceStore:
    """Hands out increasing numbers per partition; persists a reservation before use."""

    def __init__(
        self, path: Path, canary_id: str, topic: str, block: int = 1000, fsync: bool = True
    ) -> None:
        if block < 1:
            raise ValueError("block must be at least 1")
        self.path = path
        self.canary_id = canary_id
        self.topic = topic
        self.block = block
        self.fsync = fsync
        self.writes = 0
        self._lock = threading.Lock()
        self._reserved = self._load()
        self._next = dict(self._reserved)

    def next(self, partition: int) -> int:
        """The next number of ``partition`` (reserving a new block first when needed)."""
        with self._lock:
            value = self._next.get(partition, 0)
            if value >= self._reserved.get(partition, 0):
                self._reserved[partition] = value + self.block
                self._save()
            self._next[partition] = value + 1
            return value

    def peek(self, partition: int) -> int:
        """The number ``next`` would return, without taking it."""
        with self._lock:
            return self._next.get(partition, 0)

    def _load(self) -> dict[int, int]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise SequenceStateError(f"cannot read {self.path}: {exc.strerror}") from exc
        try:
            data: Any = json.loads(text)
            if data.get("version") != VERSION:
                raise ValueError(f"version {data.get('version')!r} is not {VERSION}")
            if (data.get("canary_id"), data.get("topic")) != (self.canary_id, self.topic):
                raise ValueError(
                    f"it belongs to canary {data.get('canary_id')!r} on {data.get('topic')!r}"
                )
            reserved = {int(p): int(v) for p, v in data["reserved"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SequenceStateError(
                f"{self.path} is not a usable sequence state ({exc}); move it away only if "
                "reusing sequence numbers is acceptable"
            ) from exc
        if any(v < 0 for v in reserved.values()):
            raise SequenceStateError(f"{self.path} holds a negative reservation")
        return reserved

    def _save(self) -> None:
        data = {
            "version": VERSION,
            "canary_id": self.canary_id,
            "topic": self.topic,
            "reserved": {str(p): v for p, v in sorted(self._reserved.items())},
        }
        write_atomically(self.path, json.dumps(data, separators=(",", ":")).encode(), self.fsync)
        self.writes += 1


def write_atomically(path: Path, content: bytes, fsync: bool = True) -> None:
    """Replace ``path`` with ``content`` so that a crash leaves the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(content)
        handle.flush()
        if fsync:
            os.fsync(handle.fileno())
    os.replace(tmp, path)
    if fsync:
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
