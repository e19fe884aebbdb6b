"""Leader elections per minute, per new leader and for the cluster.

One election shows in several places: the controller's log, the new leader's and the
followers' state-change logs, and the prober's snapshots (a partition's leader epoch went
up). Each election counts once (:func:`distinct_elections`). Log reports are counted over the
log window (:class:`ElectionTally`, one entry per election); snapshot elections for
``window_s`` after they were seen, as the prober sees elections whose log lines never reached
the monitor.
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.election_tally import ElectionTally, Report, distinct_elections
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.logwindow import LogWindow
from kafka_health.detectors.memo import SignalMemo
from kafka_health.detectors.windows import window_start_ms
from kafka_health.model import Signal, labels

__all__ = ["Elections", "Report", "distinct_elections"]

FIRST_LEADER_EPOCH = 0
"""A partition's first leader, when it is created, has epoch 0: not an election (the first
consumer group creates the 50 partitions of ``__consumer_offsets`` at once, whose first
leaders paged LeaderElectionStorm in the fault suite's consumer-stop)."""


class Elections:
    name = "elections"

    def __init__(self, job: JobConfig) -> None:
        self._job = job
        self._clock = LogWindow(job, ())  # the log clock only: the tally keeps the elections
        self._tally = ElectionTally()
        self._epochs: dict[tuple[str, int], list[int]] = {}  # -> [epoch, snapshot_ms]
        self._seen: list[list[Any]] = []  # [topic, partition, epoch, leader, seen at]
        self._memo = SignalMemo()

    def fold(self, batch: Batch, now: float) -> None:
        self._memo.clear()
        self._clock.add(batch.events)
        for e in batch.events:
            if (
                e.type == "leader_change" and e.event_ms is not None
                and e.topic is not None and e.partition is not None
                and e.leader_epoch != FIRST_LEADER_EPOCH
            ):  # fmt: skip
                self._tally.report(e.topic, int(e.partition), e.leader_epoch, e.leader, e.event_ms)
        self._tally.expire(window_start_ms(self._clock.end_ms(), self._job.window_s))
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
        at = self._clock.end_ms() / 1000.0
        per_minute = 60.0 / self._job.window_s
        total, by_leader = self._tally.count((t, int(p), e, ld) for t, p, e, ld, _ in seen)
        out = [
            Signal("leader_elections_per_minute", labels(broker_id=b), n * per_minute, at)
            for b, n in sorted((str(leader), n) for leader, n in by_leader.items())
        ]
        out.append(Signal("leader_elections_per_minute", labels(), total * per_minute, at))
        return out

    def state(self) -> dict[str, Any]:
        return {
            "log_clock_ms": self._clock.latest_ms,
            **self._tally.state(),
            "epochs": [[t, p, *v] for (t, p), v in self._epochs.items()],
            "seen": self._seen,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._memo.clear()
        old = state.get("window", {})  # formats 1-2 kept every report: [ms, b, type, t, p, e, ld]
        clock_ms = state.get("log_clock_ms", old.get("latest_ms", 0))
        self._clock.restore({"latest_ms": clock_ms})
        self._tally.restore(state)
        for ms, _b, _k, topic, partition, epoch, leader in old.get("kept", []):
            if topic is not None and partition is not None:
                self._tally.report(topic, int(partition), epoch, leader, int(ms))
        self._epochs = {(t, int(p)): [int(e), int(at)] for t, p, e, at in state.get("epochs", [])}
        self._seen = [list(s) for s in state.get("seen", [])]
