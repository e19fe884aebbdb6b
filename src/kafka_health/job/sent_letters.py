"""Which dead letters were sent: a batch read again after a crash does not send them twice.

After a crash the job reads again the batches committed after its last state save
(:mod:`.rewind`), up to 10 s of them, and their dead letters would reach the dead-letter topic
a second time. Like Alertmanager's notification log, this log is written after a successful
send: for each kind of dead letter (``parse``: the parse's bad records; ``culprit``: the
records that failed it; ``rejected``: the canary results and cluster state refused), the last
batch that sent some and, per source topic and partition, the end offset of the batches sent.

A batch at or before that batch id is a batch read again: its letters below those ends were
sent and are left out (:meth:`SentLetters.unsent_below`). A later batch sends everything, so a
topic deleted and created again (its offsets from 0) loses no letter. A crash between the send
and the log's write sends that batch's letters again: at least once, never lost.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path

from kafka_health.job.quarantine import OffsetRange
from kafka_health.job.state_file import replace_file

Ends = dict[tuple[str, int], int]
"""(topic, partition) -> the end offset (exclusive) of what was sent."""

KINDS = ("parse", "culprit", "rejected")


class SentLetters:
    """The dead letters' send log of one query, kept in ``path`` (JSON, replaced whole). The
    batch's body and the fold worker both send letters: one lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._batch: dict[str, int] = {}
        self._ends: dict[str, Ends] = {}
        self._lock = threading.Lock()
        self._load()

    def unsent_below(self, kind: str, batch_id: int) -> Ends:
        """For batch ``batch_id`` read again, the ends below which its ``kind`` letters were
        sent; empty for a batch after the last one that sent some."""
        with self._lock:
            if batch_id > self._batch.get(kind, -1):
                return {}
            return dict(self._ends.get(kind, {}))

    def sent(self, kind: str, batch_id: int, ranges: Iterable[OffsetRange]) -> None:
        """Batch ``batch_id`` (reading ``ranges``) sent its ``kind`` letters: logged."""
        if kind not in KINDS:
            raise ValueError(f"unknown dead-letter kind {kind!r}")
        with self._lock:
            ends = self._ends.setdefault(kind, {})
            for r in ranges:
                ends[(r.topic, r.partition)] = max(ends.get((r.topic, r.partition), 0), r.end)
            self._batch[kind] = max(self._batch.get(kind, -1), batch_id)
            self._save()

    def _load(self) -> None:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        for kind, entry in document.items():
            self._batch[kind] = int(entry["batch"])
            self._ends[kind] = {
                (topic, int(partition)): int(end)
                for topic, partitions in entry["ends"].items()
                for partition, end in partitions.items()
            }

    def _save(self) -> None:
        """Replaced whole: a crash leaves the old log or the new one."""
        document = {
            kind: {
                "batch": self._batch[kind],
                "ends": _nested(self._ends.get(kind, {})),
            }
            for kind in self._batch
        }
        replace_file(self.path, json.dumps(document, sort_keys=True).encode())


def _nested(ends: Ends) -> dict[str, dict[str, int]]:
    nested: dict[str, dict[str, int]] = {}
    for (topic, partition), end in sorted(ends.items()):
        nested.setdefault(topic, {})[str(partition)] = end
    return nested
