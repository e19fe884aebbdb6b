"""Leader elections per minute, per new leader and for the cluster.

One election shows in several places: the controller's log, the new leader's and the
followers' state-change logs, and the prober's snapshots (a partition's leader epoch went
up). Each election counts once (:func:`distinct_elections`). Log reports are counted over the
log window; snapshot elections for ``window_s`` after they were seen, as the prober sees
elections whose log lines never reached the monitor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_health.config import JobConfig
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.logwindow import LogWindow
from kafka_health.detectors.memo import SignalMemo
from kafka_health.model import Signal, labels

Report = tuple[str, int, int | None, int | None]  # topic, partition, epoch, new leader


class Elections:
    name = "elections"

    def __init__(self, job: JobConfig) -> None:
        self._job = job
        self._window = LogWindow(job, ("leader_change",))
        self._epochs: dict[tuple[str, int], list[int]] = {}  # -> [epoch, snapshot_ms]
        self._seen: list[list[Any]] = []  # [topic, partition, epoch, leader, seen at]
        self._memo = SignalMemo()

    def fold(self, batch: Batch, now: float) -> None:
        self._memo.clear()
        self._window.add(batch.events, lambda e: [e.topic, e.partition, e.leader_epoch, e.leader])
        for r in sorted(batch.cluster, key=lambda r: r.at_ms):
            if r.kind == "snapshot":
                expire_ms = round(self._job.isr_expire_after_s * 1000)
                self._epochs = {k: v for k, v in self._epochs.items() if r.at_ms - v[1] < expire_ms}
            if r.kind != "partition" or r.topic is None or r.partition is None:
                continue
            if r.leader_epoch is None:
                continue
            key = (r.topic, int(r.partition))
            known = self._epochs.get(key)
            if known is not None and r.leader_epoch > known[0]:
                self._seen.append([r.topic, int(r.partition), r.leader_epoch, r.leader, now])
            if known is None or r.leader_epoch >= known[0]:
                self._epochs[key] = [r.leader_epoch, r.at_ms]
        since = now - self._job.window_s
        self._seen = [s for s in self._seen if s[4] >= since]

    def signals(self, now: float) -> list[Signal]:
        # Between folds only the time moves, and with it which snapshot elections still count:
        # those seen since a cut-off, so their number tells which.
        since = now - self._job.window_s
        seen = [s for s in self._seen if s[4] >= since]
        return self._memo.get(len(seen), lambda: self._count(seen))

    def _count(self, seen: list[list[Any]]) -> list[Signal]:
        at = self._window.end_ms() / 1000.0
        per_minute = 60.0 / self._job.window_s
        reports: list[Report] = [(t, int(p), epoch, leader) for t, p, epoch, leader, _ in seen]
        reports += [
            (topic, int(partition), epoch, leader)
            for _ms, _b, _k, topic, partition, epoch, leader in self._window.current()
            if topic is not None and partition is not None
        ]
        elections = distinct_elections(reports)
        by_leader: dict[str, int] = {}
        for leader in elections.values():
            if leader is not None:
                by_leader[str(leader)] = by_leader.get(str(leader), 0) + 1
        out = [
            Signal("leader_elections_per_minute", labels(broker_id=b), n * per_minute, at)
            for b, n in sorted(by_leader.items())
        ]
        out.append(Signal("leader_elections_per_minute", labels(), len(elections) * per_minute, at))
        return out

    def state(self) -> dict[str, Any]:
        return {
            "window": self._window.state(),
            "epochs": [[t, p, *v] for (t, p), v in self._epochs.items()],
            "seen": self._seen,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._memo.clear()
        self._window.restore(state.get("window", {}))
        self._epochs = {(t, int(p)): [int(e), int(at)] for t, p, e, at in state.get("epochs", [])}
        self._seen = [list(s) for s in state.get("seen", [])]


def distinct_elections(
    reports: Iterable[Report],
) -> dict[tuple[str, int, int | None, int | None], int | None]:
    """One entry per election, with its new leader (None when no report names it).

    Reports of the same (topic, partition, epoch) are one election; a report without an epoch
    (a ZooKeeper controller's "New leader is N") is the same election as one with an epoch for
    the same partition and leader, else an election of its own.
    """
    with_epoch: dict[tuple[str, int, int], int | None] = {}
    without: set[tuple[str, int, int | None]] = set()
    for topic, partition, epoch, leader in reports:
        if epoch is None or epoch < 0:
            without.add((topic, partition, leader))
            continue
        key = (topic, partition, int(epoch))
        if with_epoch.get(key) is None:
            with_epoch[key] = leader
    out: dict[tuple[str, int, int | None, int | None], int | None] = {
        (t, p, e, None): leader for (t, p, e), leader in with_epoch.items()
    }
    for topic, partition, leader in without:
        known = any(
            t == topic and p == partition and (leader is None or ld in (None, leader))
            for (t, p, _e), ld in with_epoch.items()
        )
        if not known:
            out[(topic, partition, None, leader)] = leader
    return out
