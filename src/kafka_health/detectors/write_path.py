"""Write path: acks=all ack latency and append delay quantiles, sends, failures by error class
and availability, per partition (with its leader at send time), per broker and for the cluster,
over the sliding window that ends at the first slide boundary after the newest send.

``acks=1`` probes (``canary.acks1_probe``) are not counted in these figures; they tell a slow
leader from a slow follower. An ``acks=all`` probe that timed out while an ``acks=1`` probe of
the same partition, sent within ``MATCH_MS``, was acknowledged did reach a leader that
answers: it waited on a follower still in the ISR (a dead or hung follower holds every
partition it replicates until the controller removes it). Such a failure is not the leader's:
it is left out of the leader's availability (and the cluster's) and counted as
``canary_follower_wait_failures`` instead, so a dead broker does not page for the brokers it
follows.

A probe refused with NotLeader by its leader at send time, when a probe of the same partition
sent within ``MOVE_MS`` after it was acknowledged by another leader, saw leadership move (a
preferred leader election after a broker came back, a controlled shutdown): a producer
retries it on the new leader, so it is neither among the failures by error class (which an
alert's error classes, and so its inhibit rules, are read from) nor in the availability of
the broker it was sent to. Until ``MOVE_MS`` of later sends have been seen that cannot be told
yet, so a NotLeader refusal counts only once no other leader acknowledged the partition within
it (seen: the refusals of a batch paged broker 1 before the next batch showed the new leader
acknowledging). Elections themselves are what LeaderElectionStorm watches.

Availability (``canary_availability_ratio``) is over the last ``availability_window_s`` (20 s)
of that window only: two failed probes of a partition's twenty page at once, and a broker that
answers again is available again 20 s later, not a minute later.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.memo import SignalMemo
from kafka_health.detectors.windows import current_window_end_ms, quantile, window_start_ms
from kafka_health.model import Signal, labels

QUANTILES = (0.5, 0.95, 0.99)


class _Kept(NamedTuple):
    """An acks=all outcome kept for the window (stored as a list in the detector's state)."""

    send_ms: int
    ok: bool
    latency_s: float | None
    append_delay_s: float | None
    error: str | None
    partition: int
    broker: str


MATCH_MS = 1000
"""An acks=1 probe sent this close to an acks=all probe of the same partition vouches for the
leader at that time (the canary sends both in the same round, every ``interval_s``)."""
WAIT_ERRORS = frozenset({"Timeout", "KafkaTimeoutError", "RequestTimedOut", "RequestTimedOutError"})
"""Failures of an acks=all probe that a follower still in the ISR can cause."""
NOT_LEADER_ERRORS = frozenset({
    "NotLeaderForPartition", "NotLeaderForPartitionError", "NotLeaderForPartitionException",
    "NotLeaderOrFollower", "NotLeaderOrFollowerError", "NotLeaderOrFollowerException",
})  # fmt: skip
MOVE_MS = 10_000
"""A probe refused with NotLeader by a broker that then led the partition no more: within
this long a probe to the same partition was acknowledged by another leader."""


class WritePath:
    name = "write_path"

    def __init__(self, job: JobConfig) -> None:
        self._job = job
        self._kept: list[_Kept] = []
        self._acks1_ok: dict[int, list[int]] = {}  # partition -> send_ms of acked acks=1 probes
        self._latest_send_ms = 0
        self._memo = SignalMemo()  # the signals depend on the state alone

    def fold(self, batch: Batch, now: float) -> None:
        self._memo.clear()
        for o in batch.outcomes:
            if o.acks != "all":
                if o.ok:
                    self._acks1_ok.setdefault(o.partition, []).append(o.send_ms)
                continue
            append = None
            if o.ok and o.log_append_ms is not None:
                append = (o.log_append_ms - o.send_ms) / 1000.0
            error = None if o.ok else (o.error or "Unknown")
            latency = o.latency_s if o.ok else None
            self._kept.append(
                _Kept(o.send_ms, o.ok, latency, append, error, o.partition, o.leader_id)
            )
            self._latest_send_ms = max(self._latest_send_ms, o.send_ms)
        start = window_start_ms(self.window_end_ms(), self._job.window_s)
        self._kept = [k for k in self._kept if k.send_ms >= start]
        self._acks1_ok = {
            p: kept for p, sends in self._acks1_ok.items()
            if (kept := [s for s in sends if s >= start - MATCH_MS])
        }  # fmt: skip

    def window_end_ms(self) -> int:
        return current_window_end_ms(self._latest_send_ms, self._job.slide_s)

    @property
    def latest_send_ms(self) -> int:
        return self._latest_send_ms

    def signals(self, now: float) -> list[Signal]:
        return self._memo.get(None, self._signals)

    def _signals(self) -> list[Signal]:
        if not self._kept:
            return []
        end = self.window_end_ms()
        start = window_start_ms(end, self._job.window_s)
        at = end / 1000.0
        scopes: dict[tuple[str | None, int | None], list[_Kept]] = {}
        waits: list[_Kept] = []
        for k in self._kept:
            if not start <= k.send_ms < end:
                continue
            if self._waited_on_follower(k):
                waits.append(k)
                continue
            for key in ((None, None), (k.broker, None), (k.broker, k.partition)):
                scopes.setdefault(key, []).append(k)
        out: list[Signal] = []
        recent = end - round(self._job.availability_window_s * 1000)
        moved = self._leadership_moved(start, end)
        for (broker, partition), kept in sorted(scopes.items(), key=lambda s: str(s[0])):
            scope: dict[str, str | int] = {}
            if broker is not None:
                scope["broker_id"] = broker
            if partition is not None:
                scope["partition"] = partition
            out += _latency_signals(scope, kept, at)
            if partition is None:
                out += _availability_signals(scope, kept, at, recent, moved)
        recent_waits = [k for k in waits if k.send_ms >= recent]
        details = {"partitions": sorted({k.partition for k in recent_waits})}
        out.append(
            Signal("canary_follower_wait_failures", labels(), float(len(recent_waits)), at,
                   details)
        )  # fmt: skip
        return out

    def _leadership_moved(self, start: int, end: int) -> set[int]:
        """ids of the window's NotLeader failures whose partition was then acknowledged by
        another leader within ``MOVE_MS``, or that are too recent to tell."""
        acked: dict[int, list[tuple[int, str]]] = {}
        for k in self._kept:
            if k.ok and start <= k.send_ms < end:
                acked.setdefault(k.partition, []).append((k.send_ms, k.broker))
        return {
            id(k) for k in self._kept
            if not k.ok and k.error in NOT_LEADER_ERRORS and start <= k.send_ms < end
            and (k.send_ms + MOVE_MS > self._latest_send_ms
                 or any(k.send_ms < s <= k.send_ms + MOVE_MS and leader != k.broker
                        for s, leader in acked.get(k.partition, ())))
        }  # fmt: skip

    def _waited_on_follower(self, k: _Kept) -> bool:
        """An acks=all timeout while an acks=1 probe to the same leader was acknowledged."""
        if k.ok or k.error not in WAIT_ERRORS:
            return False
        return any(abs(s - k.send_ms) <= MATCH_MS for s in self._acks1_ok.get(k.partition, ()))

    def state(self) -> dict[str, Any]:
        return {
            "kept": [list(k) for k in self._kept],
            "acks1_ok": {str(p): sends for p, sends in self._acks1_ok.items()},
            "latest_send_ms": self._latest_send_ms,
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._memo.clear()
        self._kept = [_Kept(*k) for k in state.get("kept", [])]
        self._acks1_ok = {int(p): list(s) for p, s in state.get("acks1_ok", {}).items()}
        self._latest_send_ms = int(state.get("latest_send_ms", 0))


def _latency_signals(scope: dict[str, str | int], kept: list[_Kept], at: float) -> list[Signal]:
    out = []
    fields = (
        ("canary_ack_latency_seconds", "latency_s"),
        ("canary_append_delay_seconds", "append_delay_s"),
    )
    for name, field in fields:
        values = sorted(float(v) for k in kept if k.ok and (v := getattr(k, field)) is not None)
        if not values:
            continue
        for q in QUANTILES:
            out.append(Signal(name, labels(**scope, quantile=str(q)), quantile(values, q), at))
        out.append(Signal(name, labels(**scope, quantile="max"), values[-1], at))
    return out


def _availability_signals(
    scope: dict[str, str | int], kept: list[_Kept], at: float, recent_ms: int,
    moved: frozenset[int] | set[int] = frozenset(),
) -> list[Signal]:  # fmt: skip
    failures = _failures([k for k in kept if id(k) not in moved])
    out = [Signal("canary_sends", labels(**scope), float(len(kept)), at)]
    for error, count in sorted(failures.items()):
        out.append(
            Signal("canary_send_failures", labels(**scope, error_class=error), float(count), at)
        )
    latest = [k for k in kept if k.send_ms >= recent_ms and id(k) not in moved]
    failed = _failures(latest)
    sends = len(latest)
    ratio = 1.0 if sends == 0 else (sends - sum(failed.values())) / sends
    details = {"failures": failed, "sends": sends}
    out.append(Signal("canary_availability_ratio", labels(**scope), ratio, at, details))
    return out


def _failures(kept: list[_Kept]) -> dict[str, int]:
    """Failed probes by error class."""
    failures: dict[str, int] = {}
    for k in kept:
        if not k.ok:
            error = k.error or "Unknown"
            failures[error] = failures.get(error, 0) + 1
    return failures
