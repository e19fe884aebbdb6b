"""Lost and duplicated canary writes: acknowledged sequence numbers versus the canary topic.

Each probe (canary_id, partition, seq, acks) collects its acknowledgement (an ``ok`` outcome,
with the leader that gave it) and its appearances in the canary topic (distinct offsets). Its
verdict is final once the event-time watermark has passed the end of its ``slide_s`` slot:
acknowledged but never seen is a lost acknowledged write, seen at two offsets a duplicate.
Records older than the watermark are late and ignored (the verdict was given). Anomalies are
reported for ``loss_report_window_s`` after they were found, labelled with the broker that
acknowledged the write (``broker_id``; ``unknown`` when the canary did not know the leader):
acks=1 writes lost when a leader died or hung belong to that broker's incident, not a second.

The two inputs come through different reads (outcomes from the transport, the canary topic
from the monitored cluster, which stalls while a leader is dead or hung), so the watermark is
the slower input's newest send minus ``loss_grace_s``, as in a stream-stream join, and it is
kept per partition: outcomes racing ahead of a stalled canary-topic read are not called lost,
nor are a partition's while other partitions' probes are read on (seen: a canary query that
read partition 0 while partitions 1 and 2 waited for their dead leaders called 5 acks=1
writes lost that were in the topic). Probes with no verdict after
:data:`UNJUDGED_AFTER_S` behind the outcomes (the canary topic is not read at all) are dropped
and counted in ``unjudged``. A partition the canary topic no longer has (the board's
:class:`~kafka_health.detectors.inventory.Inventory`), with no send for
``job.inventory_ttl_s``, is forgotten with its pending probes (:meth:`prune`); writes found
lost stay reported for ``loss_report_window_s`` (a loss that happened is not undone by the
partition's leaving).
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import UNKNOWN_BROKER, Batch
from kafka_health.detectors.inventory import Inventory
from kafka_health.model import Signal, labels

# probe key: (canary_id, partition, seq, acks)
_Key = tuple[str, int, int, str]

UNJUDGED_AFTER_S = 900.0


class Loss:
    name = "loss"

    def __init__(self, job: JobConfig, canary_topic: str | None = None) -> None:
        self._job = job
        self._canary_topic = canary_topic
        # key -> [acked, offsets, send_ms, acknowledging broker]
        self._pending: dict[_Key, list[Any]] = {}
        self._watermark_ms: dict[int, int] = {}  # partition -> its watermark
        # key + kind -> (found at, the broker that acknowledged the write)
        self._found: dict[tuple[str, int, int, str, str], tuple[float, str]] = {}
        # (input "outcomes" | "probes", partition) -> newest send_ms
        self._newest: dict[tuple[str, int], int] = {}
        self.unjudged = 0

    def fold(self, batch: Batch, now: float) -> None:
        late_before = dict(self._watermark_ms)
        for o in batch.outcomes:
            self._advance("outcomes", o.partition, o.send_ms)
            if o.ok and o.send_ms >= late_before.get(o.partition, 0):
                entry = self._entry((o.canary_id, o.partition, o.seq, o.acks), o.send_ms)
                entry[0] = True
                entry[3] = o.leader_id
        for p in batch.probes:
            self._advance("probes", p.partition, p.send_ms)
            if p.send_ms >= late_before.get(p.partition, 0):
                offsets = self._entry((p.canary_id, p.partition, p.seq, p.acks), p.send_ms)[1]
                if p.offset not in offsets:
                    offsets.append(p.offset)
        grace_ms = round(self._job.loss_grace_s * 1000)
        for partition in {part for _source, part in self._newest}:
            outcomes = self._newest.get(("outcomes", partition))
            probes = self._newest.get(("probes", partition))
            if outcomes is not None and probes is not None:
                mark = min(outcomes, probes) - grace_ms
                self._watermark_ms[partition] = max(self._watermark_ms.get(partition, 0), mark)
        slide_ms = round(self._job.slide_s * 1000)
        horizon_ms = max(self._newest.values(), default=0) - round(UNJUDGED_AFTER_S * 1000)
        for key, (acked, offsets, send_ms, broker) in list(self._pending.items()):
            if (send_ms // slide_ms + 1) * slide_ms > self._watermark_ms.get(key[1], 0):
                if send_ms < horizon_ms:
                    del self._pending[key]
                    self.unjudged += 1
                continue
            del self._pending[key]
            kind = "lost" if acked and not offsets else "duplicate" if len(offsets) > 1 else None
            if kind is not None:
                self._found.setdefault((*key, kind), (now, broker))
        oldest = now - self._job.loss_report_window_s
        self._found = {k: found for k, found in self._found.items() if found[0] >= oldest}

    def _advance(self, source: str, partition: int, send_ms: int) -> None:
        key = (source, partition)
        self._newest[key] = max(self._newest.get(key, send_ms), send_ms)

    def _entry(self, key: _Key, send_ms: int) -> list[Any]:
        entry = self._pending.setdefault(key, [False, [], send_ms, UNKNOWN_BROKER])
        entry[2] = max(entry[2], send_ms)
        return entry

    def prune(self, inventory: Inventory, now: float) -> bool:
        """Forget the partitions the canary topic no longer has; True if any was."""
        newest: dict[int, int] = {}
        for (_source, partition), ms in self._newest.items():
            newest[partition] = max(newest.get(partition, ms), ms)
        gone = {
            p for p, ms in newest.items()
            if inventory.partition_left(self._canary_topic, p, ms / 1000.0, now)
        }  # fmt: skip
        if not gone:
            return False
        self._newest = {k: ms for k, ms in self._newest.items() if k[1] not in gone}
        self._watermark_ms = {p: w for p, w in self._watermark_ms.items() if p not in gone}
        self._pending = {k: v for k, v in self._pending.items() if k[1] not in gone}
        return True

    def lost_writes(self) -> list[tuple[int, str, int]]:
        """(partition, acks, seq) of every lost acknowledged write still reported."""
        return sorted((p, acks, seq) for (_c, p, seq, acks, kind) in self._found if kind == "lost")

    def signals(self, now: float) -> list[Signal]:
        oldest = now - self._job.loss_report_window_s
        grouped: dict[tuple[str, int, str, str], list[int]] = {}
        for (_canary, partition, seq, acks, kind), (at, broker) in self._found.items():
            if at >= oldest:
                grouped.setdefault((kind, partition, acks, broker), []).append(seq)
        out = []
        for (kind, partition, acks, broker), seqs in sorted(grouped.items()):
            name = "canary_lost_writes" if kind == "lost" else "canary_duplicate_writes"
            scope = labels(partition=partition, acks=acks, broker_id=broker)
            out.append(Signal(name, scope, float(len(seqs)), now, {"seqs": sorted(seqs)}))
        return out

    def state(self) -> dict[str, Any]:
        return {
            "pending": [[*k, *v] for k, v in self._pending.items()],
            "watermark_ms": {str(p): w for p, w in self._watermark_ms.items()},
            "found": [[*k, at, broker] for k, (at, broker) in self._found.items()],
            "newest": [[source, p, ms] for (source, p), ms in self._newest.items()],
            "unjudged": self.unjudged,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._pending = {
            (c, int(p), int(s), a): [bool(acked), list(offsets), int(send), str(broker)]
            for c, p, s, a, acked, offsets, send, *rest in state.get("pending", [])
            for broker in rest[:1] or [UNKNOWN_BROKER]
        }
        marks = state.get("watermark_ms")  # an int before per-partition watermarks: start over
        self._watermark_ms = (
            {int(p): int(w) for p, w in marks.items()} if isinstance(marks, dict) else {}
        )
        self._found = {
            (c, int(p), int(s), a, kind): (float(at), str((rest or [UNKNOWN_BROKER])[0]))
            for c, p, s, a, kind, at, *rest in state.get("found", [])
        }
        newest = state.get("newest")
        self._newest = (
            {(str(src), int(p)): int(ms) for src, p, ms in newest}
            if isinstance(newest, list)
            else {}
        )
        self.unjudged = int(state.get("unjudged", 0))
