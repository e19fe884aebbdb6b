"""ISR state of every partition: prober snapshots as truth, broker log events as faster news.

Per partition the newest news wins: a snapshot replaces the view unless a log event newer than
the snapshot already changed it (then the snapshot only refreshes the replica set and min ISR);
``isr_shrink`` / ``isr_expand`` / ``isr_change`` set the ISR, ``leader_change`` the leader and
epoch. A ZooKeeper-mode broker logs "Shrinking ISR" (or "Expanding ISR") before it writes the
change; when the write is refused (``isr_update_failed``: "Cached zkVersion [N] not equal to that
in zookeeper, skip updating ISR", the broker's view of the partition is stale: another leader or
the controller changed it, KAFKA-2729), the change did not happen, and the view takes back the
ISR it held before that broker's change (the next snapshot says what ZooKeeper holds). Log
news about a partition no snapshot described yet is ignored (no replica set). Partitions of
deleted topics expire once a completed snapshot is newer than the partition's last snapshot by
``isr_expire_after_s``. Signals: under-replicated, under min ISR (per leader and for the
cluster) and offline partitions, with the partitions named in the details.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import Batch, ClusterRecord, LogEvent
from kafka_health.detectors.memo import SignalMemo
from kafka_health.model import ReplicationJudged, Signal, labels

MAX_LISTED = 500  # partitions named in a signal's details (the count is always exact)
ISR_EVENTS = ("isr_shrink", "isr_expand", "isr_change")
ISR_UPDATE_FAILED = "isr_update_failed"
"""A broker's ISR write refused: the ISR change it logged just before did not happen."""


@dataclass
class View(ReplicationJudged):
    leader: int | None
    leader_epoch: int | None
    replicas: list[int]
    isr: list[int]
    min_isr: int | None
    news_ms: int
    snapshot_ms: int
    # The broker whose logged ISR change the view holds, and the ISR before it (undone when that
    # broker's write fails); None when the ISR came from a snapshot.
    changed_by: str | None = None
    isr_before_change: list[int] | None = None

    @property
    def offline(self) -> bool:
        return self.leader is None or self.leader < 0


class Isr:
    name = "isr"

    def __init__(self, job: JobConfig) -> None:
        self._expire_after_ms = round(job.isr_expire_after_s * 1000)
        self._views: dict[tuple[str, int], View] = {}
        self._memo = SignalMemo()  # the signals depend on the views alone (``at`` aside)

    def fold(self, batch: Batch, now: float) -> None:
        self._memo.clear()
        news: list[tuple[int, int, ClusterRecord | LogEvent]] = []
        for record in batch.cluster:
            if record.kind in ("partition", "snapshot"):
                news.append((record.at_ms, 0 if record.kind == "partition" else 1, record))
        for event in batch.events:
            about_partition = event.topic is not None and event.partition is not None
            if event.type in (*ISR_EVENTS, "leader_change") and about_partition:
                news.append((event.event_ms or 0, 1, event))
            elif event.type == ISR_UPDATE_FAILED and about_partition:
                # after the change it refuses, logged in the same millisecond or later
                news.append((event.event_ms or 0, 2, event))
        for _at, _order, item in sorted(news, key=lambda n: (n[0], n[1])):
            if isinstance(item, LogEvent):
                self._apply_log(item)
            elif item.kind == "snapshot":
                self._expire(item.at_ms)
            else:
                self._apply_snapshot(item)

    def _apply_snapshot(self, r: ClusterRecord) -> None:
        if r.topic is None or r.partition is None:
            return
        key = (r.topic, int(r.partition))
        old = self._views.get(key)
        if old is not None and old.news_ms > r.at_ms:
            # newer log news already: keep its ISR and leader, take the rest from the snapshot
            old.replicas, old.min_isr, old.snapshot_ms = list(r.replicas), r.min_isr, r.at_ms
            return
        self._views[key] = View(
            r.leader, r.leader_epoch, list(r.replicas), list(r.isr), r.min_isr, r.at_ms, r.at_ms
        )

    def _apply_log(self, e: LogEvent) -> None:
        assert e.topic is not None and e.partition is not None
        view = self._views.get((e.topic, int(e.partition)))
        at = e.event_ms or 0
        if view is None or view.news_ms > at:
            return
        if e.type == ISR_UPDATE_FAILED:
            if view.isr_before_change is not None and view.changed_by == e.broker_id:
                view.isr = view.isr_before_change
                view.changed_by, view.isr_before_change = None, None
            return
        if e.type in ISR_EVENTS and e.isr_after is not None:
            view.changed_by, view.isr_before_change = e.broker_id, view.isr
            view.isr, view.news_ms = list(e.isr_after), at
        elif e.type == "leader_change" and e.leader is not None:
            view.leader, view.news_ms = e.leader, at
            if e.leader_epoch is not None:
                view.leader_epoch = e.leader_epoch

    def _expire(self, snapshot_ms: int) -> None:
        for key, view in list(self._views.items()):
            if snapshot_ms - view.snapshot_ms >= self._expire_after_ms:
                del self._views[key]

    def unhealthy(self) -> dict[str, View]:
        """``topic-partition`` -> view of every partition that is not healthy."""
        unhealthy = [
            (key, v)
            for key, v in self._views.items()
            if v.under_replicated or v.under_min_isr or v.offline
        ]  # then sorted: 100,000 partitions, of which a few are unhealthy
        return {f"{t}-{p}": v for (t, p), v in sorted(unhealthy, key=lambda kv: kv[0])}

    def signals(self, now: float) -> list[Signal]:
        # An election storm leaves thousands of partitions unhealthy: their lists per leader
        # are built once per fold, then stamped with the time they are asked at.
        return [dataclasses.replace(s, at=now) for s in self._memo.get(None, self._signals)]

    def _signals(self) -> list[Signal]:
        now = 0.0  # stamped by signals()
        unhealthy = self.unhealthy()
        out = []
        for name, flag in (
            ("under_replicated_partitions", "under_replicated"),
            ("under_min_isr_partitions", "under_min_isr"),
        ):
            by_leader: dict[str, list[str]] = {}
            for tp, view in unhealthy.items():
                if getattr(view, flag):
                    leader = "none" if view.offline else str(view.leader)
                    by_leader.setdefault(leader, []).append(tp)
            every = sorted(p for parts in by_leader.values() for p in parts)
            out.append(Signal(name, labels(), float(len(every)), now, _details(every, unhealthy)))
            for leader, parts in sorted(by_leader.items()):
                details = _details(sorted(parts), unhealthy)
                out.append(Signal(name, labels(broker_id=leader), float(len(parts)), now, details))
        offline = sorted(tp for tp, v in unhealthy.items() if v.offline)
        out.append(
            Signal(
                "offline_partitions", labels(), float(len(offline)), now, {"partitions": offline}
            )
        )
        return out

    def state(self) -> dict[str, Any]:
        return {
            "views": [
                [t, p, v.leader, v.leader_epoch, v.replicas, v.isr, v.min_isr, v.news_ms,
                 v.snapshot_ms, v.changed_by, v.isr_before_change]
                for (t, p), v in self._views.items()
            ]
        }  # fmt: skip

    def restore(self, state: dict[str, Any]) -> None:
        self._memo.clear()
        self._views = {}
        for t, p, leader, epoch, replicas, isr, min_isr, news, snap, *undo in state.get(
            "views", []
        ):  # the two undo fields are newer than the rest: absent in an older state
            by, before = undo if len(undo) == 2 else (None, None)
            self._views[(t, int(p))] = View(
                leader, epoch, list(replicas), list(isr), min_isr, news, snap, by,
                None if before is None else list(before),
            )  # fmt: skip


def _details(partitions: list[str], views: dict[str, View]) -> dict[str, Any]:
    listed = partitions[:MAX_LISTED]
    return {"partitions": listed, "replicas": {p: views[p].replicas for p in listed}}
