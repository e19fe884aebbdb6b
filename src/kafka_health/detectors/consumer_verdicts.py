"""Consumer-group verdicts: the pure rules over a group's recent observations.

The sliding window is kept as a summary, O(1) per partition (:class:`PartitionTrack`): since
when records have waited with the committed offset unmoved and how far behind it was then;
the last unrecovered rewind; how far the deleted-unread records were counted. Per group
(:class:`GroupTrack`): the newest observation, since when it has not been Stable, its
generation changes within ``churn_window_s``, and the last :data:`WINDOW_ROUNDS` rounds' totals.

One verdict per group, the first of :data:`PRECEDENCE` that holds:

- ``unseen``: the group's last two rounds failed, or it was missing from them, or the poller
  has been blind for three intervals: unknown, never healthy (``holds`` and ``last_known``
  say what the last evidence showed);
- ``behind_retention``: a committed offset below its partition's log start: records deleted
  unread, data lost (counted once per deleted range in ``deleted_unread_total``);
- ``stopped``: no members, and records waiting on a partition over two rounds or more while
  its lag (offsets, or seconds) grows;
- ``stalled``: members present, records waiting on a partition with its committed offset
  unmoved for ``stall_window_s`` while its lag (offsets, or seconds) grows;
- ``rewound``: a committed offset went backwards and has not come back to where it was
  (Burrow's rule), within ``stall_window_s`` of the rewind;
- ``rebalancing``: not Stable for longer than ``rebalance_max_s``, or more than
  ``churn_generations`` new generations within ``churn_window_s``;
- ``lagging``: the largest time lag above the group's ``lag_objective_s``;
- ``ok``.

Data loss outranks everything known; a group nobody consumes for outranks one whose
consumers are stuck; both outrank a rewind, a rebalance (their cause is often one) and lag.
Lag is computed every round against the log end offsets read in that round, so a stopped
group's lag keeps growing (Burrow computed it at commits only: zero for a stopped group).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import GroupObservation, PartitionOffsets

PRECEDENCE = (
    "unseen", "behind_retention", "stopped", "stalled", "rewound", "rebalancing", "lagging", "ok",
)  # fmt: skip
VERDICTS = frozenset(PRECEDENCE)
REBALANCING_STATES = frozenset(
    {"PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"}
)
WINDOW_ROUNDS = 10
"""Rounds of group totals kept (the evidence's trend); Burrow's default window is 10 commits."""
MAX_WORST = 10
"""Partitions named in a verdict's details (the worst by time lag, then offsets)."""
MAX_LEADERS = 50
MAX_GENERATION_CHANGES = 1000
UNSEEN_MISSES = 2
"""Consecutive rounds without the group (failed, or missing) after which it is unseen."""


@dataclass(frozen=True)
class Rewind:
    """A committed offset that went back from ``high`` to ``to`` at ``at_ms``."""

    high: int
    to: int
    at_ms: int


@dataclass(slots=True)
class PartitionTrack:
    """One partition of a group: its newest offsets and the window's summary."""

    offsets: PartitionOffsets
    waiting_since_ms: int | None = None
    """Since when records have waited (lag > 0) with the committed offset unmoved."""
    waiting_lag: int = 0
    waiting_lag_s: float | None = None
    rewind: Rewind | None = None
    counted_upto: int | None = None
    """The log start offset up to which deleted-unread records have been counted."""
    seen_ms: int = 0
    named: dict[str, Any] | None = None
    """``offsets`` as a verdict names it (made once, kept while the offsets stay the same)."""
    still: bool = False
    """The last :meth:`update` left the offsets, the wait and the rewind as they were (what
    :class:`Scan` reads of the partition did not change)."""

    def update(self, p: PartitionOffsets, at_ms: int, hold_ms: int) -> int:
        """Take this round's offsets; return the records newly found deleted unread."""
        old, rewind = self.offsets, self.rewind
        prev, now = old.committed, p.committed
        if rewind is not None or (prev is not None and now is not None and now < prev):
            self._rewind(prev, now, at_ms, hold_ms)
        if p.log_end is None:
            p = self._carried(p, at_ms)
        lag = p.lag
        still = p.log_end == old.log_end and self.rewind is rewind and _same(p, old)
        if now is None or lag == 0 or (lag is None and now != prev):
            still = still and self.waiting_since_ms is None
            self.waiting_since_ms = None
        elif lag is not None and (now != prev or self.waiting_since_ms is None):
            self.waiting_since_ms, self.waiting_lag, self.waiting_lag_s = at_ms, lag, p.lag_s
            still = False
        if not still:
            self.named = None
        self.offsets, self.seen_ms, self.still = p, at_ms, still
        if now is None or p.log_start is None or now >= p.log_start:
            return 0
        return self._deleted(p)

    def _carried(self, p: PartitionOffsets, at_ms: int) -> PartitionOffsets:
        """Offsets unread this round (the leader did not answer) with the committed offset
        unmoved: the last ones read stand, the time lag grown by the time since (a lower
        bound, ``extrapolated``), so a hung leader does not hide the stall it causes."""
        old = self.offsets
        if p.log_end is not None or old.log_end is None or p.committed != old.committed:
            return p
        lag_s = None if old.lag_s is None else old.lag_s + (at_ms - self.seen_ms) / 1000
        return replace(p, log_start=old.log_start, log_end=old.log_end, lag_s=lag_s,
                       lag_basis="extrapolated", leader=p.leader if p.leader is not None
                       else old.leader)  # fmt: skip

    def _rewind(self, prev: int | None, now: int | None, at_ms: int, hold_ms: int) -> None:
        if prev is not None and now is not None and now < prev:
            high = prev if self.rewind is None else max(prev, self.rewind.high)
            self.rewind = Rewind(high, now, at_ms)
        elif self.rewind is not None:
            recovered = now is not None and now >= self.rewind.high
            if recovered or at_ms - self.rewind.at_ms > hold_ms:
                self.rewind = None

    def as_named(self) -> dict[str, Any]:
        named = self.named
        if named is None:
            p = self.offsets
            named = self.named = {
                "topic": p.topic, "partition": p.partition, "lag": p.lag, "lag_s": p.lag_s,
                "lag_basis": p.lag_basis, "committed": p.committed, "log_start": p.log_start,
                "log_end": p.log_end, "leader": p.leader,
            }  # fmt: skip
        return named

    def _deleted(self, p: PartitionOffsets) -> int:
        if p.committed is None or p.log_start is None or p.committed >= p.log_start:
            return 0
        base = p.committed if self.counted_upto is None else max(p.committed, self.counted_upto)
        self.counted_upto = max(p.log_start, self.counted_upto or p.log_start)
        return max(0, p.log_start - base)

    def growing(self) -> bool:
        """Records waiting, and the lag grew since they began to (offsets, or seconds)."""
        lag, lag_s = self.offsets.lag, self.offsets.lag_s
        if self.waiting_since_ms is None or lag is None:
            return False
        if lag > self.waiting_lag:
            return True
        return lag_s is not None and self.waiting_lag_s is not None and lag_s > self.waiting_lag_s


def _same(p: PartitionOffsets, q: PartitionOffsets) -> bool:
    """The same offsets of the same partition (what a verdict names of it), in short order
    (the log end, which moves most, first)."""
    return p is q or (
        p.log_end == q.log_end and p.committed == q.committed and p.lag_s == q.lag_s
        and p.log_start == q.log_start and p.leader == q.leader and p.lag_basis == q.lag_basis
    )  # fmt: skip


@dataclass(slots=True)
class Scan:
    """A group's partitions summarised in one pass (what every verdict's rules read); kept
    while none of them changes (:attr:`PartitionTrack.still`). The lists of partitions behind
    retention, waiting and rewound are ``()`` when empty (most often)."""

    max_lag: int
    sum_lag: int
    known: int
    lagging: list[PartitionTrack]
    leaders: set[int]
    behind: Sequence[PartitionTrack]
    waiting: Sequence[PartitionTrack]
    rewound: Sequence[PartitionTrack]

    @staticmethod
    def of(tracks: dict[tuple[str, int], PartitionTrack]) -> Scan:
        top = total = known = 0
        lagging: list[PartitionTrack] = []
        leaders: set[int] = set()
        behind: list[PartitionTrack] | None = None
        waiting: list[PartitionTrack] | None = None
        rewound: list[PartitionTrack] | None = None
        for t in tracks.values():
            p = t.offsets
            lag = p.lag
            if lag is not None:
                known += 1
                total += lag
                if lag:
                    top = lag if lag > top else top
                    lagging.append(t)
                    if p.leader is not None:
                        leaders.add(p.leader)
            c, start = p.committed, p.log_start
            if c is not None and start is not None and c < start:
                behind = _added(behind, t)
            if t.waiting_since_ms is not None and lag is not None:  # t.growing(), inline
                lag_s, since_s = p.lag_s, t.waiting_lag_s
                if lag > t.waiting_lag or (
                    lag_s is not None and since_s is not None and lag_s > since_s
                ):
                    waiting = _added(waiting, t)
            if t.rewind is not None:
                rewound = _added(rewound, t)
        return Scan(top, total, known, lagging, leaders, behind or (), waiting or (), rewound or ())


def _added(tracks: list[PartitionTrack] | None, t: PartitionTrack) -> list[PartitionTrack]:
    if tracks is None:
        return [t]
    tracks.append(t)
    return tracks


@dataclass(frozen=True, slots=True)
class Verdict:
    """A group's verdict, the evidence behind it, and every other verdict that holds."""

    verdict: str
    details: dict[str, Any]
    holds: tuple[str, ...] = ()


@dataclass
class GroupTrack:
    """One group: its objective, newest observation and the window's summary."""

    group: str
    objective: GroupObjective
    latest: GroupObservation | None = None
    last_ok_ms: int = 0
    absent_since_ms: int | None = None
    """The first successful round the group was missing from (None: listed since)."""
    misses: int = 0
    error: str | None = None
    partitions: dict[tuple[str, int], PartitionTrack] = field(default_factory=dict)
    deleted_unread_total: int = 0
    unstable_since_ms: int | None = None
    generation_changes: deque[int] = field(default_factory=deque)
    history: deque[tuple[int, int, int, float | None, int]] = field(
        default_factory=lambda: deque(maxlen=WINDOW_ROUNDS)
    )
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=WINDOW_ROUNDS))
    """``history`` as the verdicts show it (each round's made once)."""
    scanned: Scan | None = None
    """The partitions' summary since the last observation (None: not made yet)."""
    max_lag_s: float | None = None
    """``latest.max_lag_s``: the largest time lag the newest observation read."""

    def observe(self, obs: GroupObservation, cfg: ConsumerGroupsConfig) -> None:
        """Fold one successful observation of the group."""
        hold_ms = round(cfg.stall_window_s * 1000)
        at_ms = obs.at_ms
        parts = obs.partitions
        known = self.partitions
        deleted = done = 0
        unread = False
        top_s: float | None = None
        still = self.scanned is not None
        same = len(parts) == len(known)
        if same:  # the partitions of the round before, in their order
            for p, track in zip(parts, known.values(), strict=True):
                o = track.offsets
                if o.partition != p.partition or o.topic != p.topic:
                    break
                deleted += track.update(p, at_ms, hold_ms)
                still = still and track.still
                unread = unread or p.log_end is None
                lag_s = p.lag_s
                if lag_s is not None and (top_s is None or lag_s > top_s):
                    top_s = lag_s
                done += 1
        if not same or done < len(parts):  # partitions new, gone or in another order
            still = False
            tracks: dict[tuple[str, int], PartitionTrack] = {}
            for i, p in enumerate(parts):
                key = (p.topic, p.partition)
                track = known.get(key) or PartitionTrack(p)
                if i >= done:
                    deleted += track.update(p, at_ms, hold_ms)
                    unread = unread or p.log_end is None
                    lag_s = p.lag_s
                    if lag_s is not None and (top_s is None or lag_s > top_s):
                        top_s = lag_s
                tracks[key] = track
            self.partitions = tracks
        self.deleted_unread_total += deleted
        self._membership(obs, cfg)
        self.latest, self.last_ok_ms, self.absent_since_ms = obs, at_ms, None
        self.misses, self.error, self.max_lag_s = 0, None, top_s
        if not still or self.scanned is None:
            self.scanned = Scan.of(self.partitions)
        scan = self.scanned
        top, total = scan.max_lag, scan.sum_lag
        if unread:  # the round's own lags, not the carried ones
            lags = [p.lag for p in obs.partitions if p.lag is not None]
            top, total = max(lags, default=0), sum(lags)
        self.history.append((at_ms, top, total, top_s, obs.members))
        self.recent.append({"at": at_ms / 1000, "max_lag": top, "sum_lag": total,
                            "max_lag_s": top_s, "members": obs.members})  # fmt: skip

    def scan(self) -> Scan:
        if self.scanned is None:
            self.scanned = Scan.of(self.partitions)
        return self.scanned

    def _membership(self, obs: GroupObservation, cfg: ConsumerGroupsConfig) -> None:
        if obs.state in REBALANCING_STATES:
            if self.unstable_since_ms is None:
                self.unstable_since_ms = obs.at_ms
        else:
            self.unstable_since_ms = None
        before = self.latest.generation if self.latest is not None else None
        if obs.generation is not None and before is not None and obs.generation != before:
            self.generation_changes.append(obs.at_ms)
        horizon = obs.at_ms - round(cfg.churn_window_s * 1000)
        while self.generation_changes and (
            self.generation_changes[0] < horizon
            or len(self.generation_changes) > MAX_GENERATION_CHANGES
        ):
            self.generation_changes.popleft()

    def missed(self, at_ms: int, error: str | None) -> None:
        """A round without a usable observation of the group: ``error`` when the round or the
        group's description failed (it says nothing of its absence), None when the successful
        round did not list it."""
        self.misses += 1
        self.error = error or "missing from the round"
        if error is None and self.absent_since_ms is None:
            self.absent_since_ms = at_ms


def judge(track: GroupTrack, cfg: ConsumerGroupsConfig, blind: bool = False) -> Verdict:
    """The group's verdict from its evidence (``blind``: the poller's rounds stopped)."""
    obs = track.latest
    if obs is None:
        return Verdict("unseen", {**_owner(track), "error": track.error, "last_known": None},
                       ("unseen",))  # fmt: skip
    found = _conditions(track, obs, cfg)
    holds = [v for v in PRECEDENCE if v in found] if found else ["ok"]
    details = _evidence(track, obs)
    if found:
        details.update(found[holds[0]])
    if blind or track.misses >= UNSEEN_MISSES:
        details.update(last_known=holds[0], error=track.error, misses=track.misses)
        return Verdict("unseen", details, ("unseen", *holds))
    return Verdict(holds[0], details, tuple(holds))


def _conditions(
    track: GroupTrack, obs: GroupObservation, cfg: ConsumerGroupsConfig
) -> dict[str, dict[str, Any]]:
    """Every verdict that holds, with its own evidence."""
    found: dict[str, dict[str, Any]] = {}
    scan = track.scan()
    behind = scan.behind
    if behind:
        found["behind_retention"] = {
            "deleted_unread_now": sum(t.offsets.deleted_unread for t in behind),
            "partitions_behind_retention": _named(behind),
        }
    waiting = scan.waiting
    at_ms = obs.at_ms
    if obs.members == 0:
        stopped = [t for t in waiting if _since(t, at_ms) < at_ms]
        if stopped:
            found["stopped"] = _waited(stopped, at_ms)
    elif waiting:
        window_ms = round(cfg.stall_window_s * 1000)
        stalled = [t for t in waiting if at_ms - _since(t, at_ms) >= window_ms]
        if stalled:
            found["stalled"] = _waited(stalled, at_ms)
    rewound = scan.rewound
    if rewound:
        found["rewound"] = {
            "rewinds": [
                {"topic": t.offsets.topic, "partition": t.offsets.partition,
                 "from": t.rewind.high, "to": t.rewind.to, "at": t.rewind.at_ms / 1000}
                for t in rewound[:MAX_WORST] if t.rewind is not None
            ],
            "partitions_rewound": len(rewound),
        }  # fmt: skip
    rebalancing = _rebalancing(track, obs, cfg)
    if rebalancing:
        found["rebalancing"] = rebalancing
    max_lag_s = track.max_lag_s
    if max_lag_s is not None and max_lag_s > track.objective.lag_objective_s:
        found["lagging"] = {"over_objective_s": max_lag_s - track.objective.lag_objective_s}
    return found


def _rebalancing(
    track: GroupTrack, obs: GroupObservation, cfg: ConsumerGroupsConfig
) -> dict[str, Any] | None:
    unstable_s = 0.0
    if track.unstable_since_ms is not None:
        unstable_s = (obs.at_ms - track.unstable_since_ms) / 1000
    churn = len(track.generation_changes)
    if unstable_s > cfg.rebalance_max_s or churn > cfg.churn_generations:
        return {
            "rebalancing_for_s": unstable_s,
            "generations_in_window": churn,
            "churn_window_s": cfg.churn_window_s,
        }
    return None


def _waited(tracks: Sequence[PartitionTrack], at_ms: int) -> dict[str, Any]:
    since = min(_since(t, at_ms) for t in tracks)
    return {
        "no_progress_for_s": (at_ms - since) / 1000,
        "partitions_waiting": len(tracks),
        "waiting_partitions": _named(tracks),
    }


def _since(track: PartitionTrack, at_ms: int) -> int:
    return at_ms if track.waiting_since_ms is None else track.waiting_since_ms


def _named(tracks: Sequence[PartitionTrack]) -> list[dict[str, Any]]:
    return [t.as_named() for t in _worst(tracks)]


def _worst_key(t: PartitionTrack) -> tuple[float, int, str, int]:
    p = t.offsets
    return (-(p.lag_s or 0.0), -(p.lag or 0), p.topic, p.partition)


def _worst(tracks: Sequence[PartitionTrack]) -> list[PartitionTrack]:
    if len(tracks) <= MAX_WORST:
        return sorted(tracks, key=_worst_key)
    return heapq.nsmallest(MAX_WORST, tracks, key=_worst_key)


def _owner(track: GroupTrack) -> dict[str, Any]:
    o = track.objective
    return {"objective_s": o.lag_objective_s, "severity": o.severity, "labels": dict(o.labels)}


def _evidence(track: GroupTrack, obs: GroupObservation) -> dict[str, Any]:
    """What every verdict shows: lag, objective and owners, state, the worst partitions."""
    scan = track.scan()
    o = track.objective
    return {
        "objective_s": o.lag_objective_s, "severity": o.severity, "labels": dict(o.labels),
        "max_lag": scan.max_lag,
        "sum_lag": scan.sum_lag,
        "max_lag_s": track.max_lag_s,
        "members": obs.members,
        "state": obs.state,
        "protocol": obs.protocol,
        "generation": obs.generation,
        "coordinator": obs.coordinator,
        "observed_at": obs.at_ms / 1000,
        "partitions": len(track.partitions),
        "worst_partitions": _named(scan.lagging),
        "lagging_leaders": sorted(scan.leaders)[:MAX_LEADERS],
        "deleted_unread_total": track.deleted_unread_total,
        "recent_rounds": list(track.recent),
    }  # fmt: skip
