"""Consumer groups in a replay: what the group coordinators logged, judged by the live job's
consumer-group detector under the live alert rules.

The live job sees every group through the admin API every ``consumer_groups.interval_s``
(:mod:`kafka_health.consumer_groups`): its state, generation, members and coordinator, its
committed offsets and its partitions' log ends. An archive of broker logs holds only what the
coordinators wrote (:mod:`kafka_health.parsing.patterns`, the ``group_*`` events): a rebalance
begun ("Preparing to rebalance group G in state PreparingRebalance with old generation N"), a
generation reached ("Stabilized group G generation N ... with M members"), a group left empty,
a member that failed its session, a consumer-protocol group's new epoch; and the loads of the
``__consumer_offsets`` partitions (``coordinator_load_start`` / ``_finish``). A group's
coordinator is the broker whose log holds its lines; its offsets partition is in the line
(``(__consumer_offsets-P)``, or the 3.6+ coordinator's log context ``partition=P``).

:class:`LoggedGroups` turns them into what the poller would have handed the detector
(:class:`~kafka_health.consumer_groups.observation.GroupObservation`, without partitions): a
round every ``interval_s`` of the logs' time, each group as its last line left it, so the
detector counts generations as it does live (a burst of them between two rounds counts once:
the report's table counts every one). The board's
:class:`~kafka_health.detectors.consumer_groups.ConsumerGroups` judges them with the live
rules, and its held groups go to their broker's incident as live (BrokerHoldsUpConsumerGroups:
a group rebalancing too long whose coordinator failed or is stuck loading). While a broker
loads a group's offsets partition, the group is observed as the poller would find it: its
description fails (``COORDINATOR_LOAD_IN_PROGRESS``), so it is ``unseen`` until the load ends.

What the lines support: ``rebalancing`` (not Stable for over ``rebalance_max_s``: a
"Preparing to rebalance" with no "Stabilized" or "is now empty" after it; or more than
``churn_generations`` new generations within ``churn_window_s``), and which groups a load of
their offsets partition held up (:meth:`LoggedGroups.loads`: a load that lasted
``job.coordinator_load_stuck_s``, CoordinatorLoadStuck's threshold, or never finished, and the
groups of that partition: none of them could join, sync or commit meanwhile). What they
cannot: lag in offsets or seconds, ``lagging``, ``stalled``, ``stopped``, ``rewound`` and
``behind_retention`` all need committed and log-end offsets, which no log holds. So a group is
published with its ``consumergroup_status`` (and ``consumergroup_members`` where the line
counted them: Kafka 2.8+), not with the lag series the detector would show as zero. A
consumer-protocol group (KIP-848) logs no line when its members have converged on an
assignment: it is judged on its churn only (its state ``Unknown``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import GroupObservation, GroupsRound
from kafka_health.detectors.consumer_verdicts import REBALANCING_STATES
from kafka_health.detectors.inputs import LogEvent
from kafka_health.model import Signal

GROUP_EVENTS = (
    "group_rebalance_start", "group_stabilized", "group_empty", "group_member_failed",
    "group_epoch_bump",
)  # fmt: skip
"""The coordinators' group lines (the live job parses and counts them, and reads no more)."""
LOAD_EVENTS = ("coordinator_load_start", "coordinator_load_finish")
GROUP_COLUMNS = ("group", "generation", "members")
"""The parse's columns a group line brings besides :class:`LogEvent`'s."""
OFFSETS_TOPIC = "__consumer_offsets"
LOADING = "COORDINATOR_LOAD_IN_PROGRESS"


@dataclass(frozen=True)
class CoordinatorEvent(LogEvent):
    """A group coordinator's line: a :class:`LogEvent` with the group, its generation (a
    consumer-protocol group's epoch) and, where the line counts them, its members."""

    group: str | None = None
    generation: int | None = None
    members: int | None = None


@dataclass
class LoggedGroup:
    """One group as its coordinators' lines show it."""

    group: str
    first_ms: int
    last_ms: int = 0
    state: str = "Unknown"
    generation: int | None = None
    members: int | None = None
    """As the last line that counted them said (None: not counted since)."""
    coordinator: int | None = None
    offsets_partition: int | None = None
    protocol: str = "classic"
    rebalances: int = 0
    members_failed: int = 0
    generations: int = 0
    """New generations logged (the first one seen not counted)."""
    unstable_since_ms: int | None = None
    longest_unstable_s: float = 0.0
    round_unstable_ms: int | None = None
    """The first round that found it not Stable (the detector's own since), while it is not."""

    def summary(self, end_ms: int) -> dict[str, Any]:
        unstable = self.longest_unstable_s
        if self.unstable_since_ms is not None:
            unstable = max(unstable, (end_ms - self.unstable_since_ms) / 1000)
        return {
            "group": self.group, "protocol": self.protocol, "coordinator": self.coordinator,
            "offsets_partition": self.offsets_partition, "state": self.state,
            "generation": self.generation, "members": self.members,
            "rebalances": self.rebalances, "new_generations": self.generations,
            "members_failed": self.members_failed, "longest_unstable_s": unstable,
            "first_at": self.first_ms / 1000, "last_at": self.last_ms / 1000,
        }  # fmt: skip


@dataclass
class Load:
    """A broker loading an offsets partition: since ``start_ms``, until ``end_ms`` (None: not
    finished in the logs), ``ended`` how (``finished``, or ``moved``: another broker began
    loading the partition); the state of the partition's groups when it began."""

    broker_id: str
    partition: int
    start_ms: int
    end_ms: int | None = None
    ended: str | None = None
    before: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    """Group -> (state, members) when the load began."""


class LoggedGroups:
    """The groups of an archive's coordinator lines, as rounds for the detector."""

    def __init__(
        self, settings: ConsumerGroupsConfig, stuck_after_s: float, step_s: float = 2.0
    ) -> None:
        """``stuck_after_s``: CoordinatorLoadStuck's threshold (``job.coordinator_load_stuck_s``);
        ``step_s``: the replay's step (a load is counted from the step that folds its line)."""
        self.settings = settings
        self.stuck_after_s = stuck_after_s
        self.step_s = step_s
        self.groups: dict[str, LoggedGroup] = {}
        self._loading: dict[int, Load] = {}
        self._loads: list[Load] = []
        self._last_round_ms: int | None = None
        self._changed = False
        """A line or a load since the last round."""

    def take(self, events: Iterable[LogEvent]) -> None:
        """Fold ``events`` (in time order; the others are passed over)."""
        for e in events:
            if e.event_ms is None:
                continue
            if e.type in LOAD_EVENTS:
                self._load(e, e.event_ms)
            elif isinstance(e, CoordinatorEvent) and e.type in GROUP_EVENTS and e.group:
                self._line(e, e.group, e.event_ms)
            else:
                continue
            self._changed = True

    def _line(self, e: CoordinatorEvent, group: str, at_ms: int) -> None:
        g = self.groups.get(group)
        if g is None:
            if len(self.groups) >= self.settings.max_groups:
                return
            g = self.groups[group] = LoggedGroup(group, at_ms)
        g.last_ms = max(g.last_ms, at_ms)
        coordinator = _broker(e.broker_id)
        if coordinator is not None:
            g.coordinator = coordinator
        if e.topic == OFFSETS_TOPIC and e.partition is not None:
            g.offsets_partition = e.partition
        if e.type == "group_member_failed":
            g.members_failed += 1
            return
        before = g.generation
        if e.type == "group_rebalance_start":
            g.rebalances += 1
            self._state(g, "PreparingRebalance", at_ms)
        elif e.type == "group_stabilized":
            # the join phase is over; the sync phase that follows takes a round trip
            self._state(g, "Stable", at_ms)
            g.members = e.members
        elif e.type == "group_empty":
            self._state(g, "Empty", at_ms)
            g.members = 0
        elif e.type == "group_epoch_bump":
            g.protocol = "consumer"
            self._state(g, "Unknown", at_ms)
        if e.generation is not None:
            g.generation = e.generation
        if before is not None and g.generation != before:
            g.generations += 1

    def _state(self, g: LoggedGroup, state: str, at_ms: int) -> None:
        if state in REBALANCING_STATES:
            if g.unstable_since_ms is None:
                g.unstable_since_ms = at_ms
        elif g.unstable_since_ms is not None:
            g.longest_unstable_s = max(g.longest_unstable_s, (at_ms - g.unstable_since_ms) / 1000)
            g.unstable_since_ms = None
        g.state = state

    def _load(self, e: LogEvent, at_ms: int) -> None:
        if e.topic != OFFSETS_TOPIC or e.partition is None or e.broker_id is None:
            return
        partition, current = e.partition, self._loading.get(e.partition)
        if e.type == "coordinator_load_finish":
            if current is not None and current.broker_id == e.broker_id:
                current.end_ms, current.ended = at_ms, "finished"
                del self._loading[partition]
            return
        if current is not None:
            if current.broker_id == e.broker_id:
                return  # the same load, logged again
            current.end_ms, current.ended = at_ms, "moved"
        mine = [g for g in self.groups.values() if g.offsets_partition == partition]
        load = Load(e.broker_id, partition, at_ms,
                    before={g.group: (g.state, g.members) for g in mine})  # fmt: skip
        self._loading[partition] = load
        self._loads.append(load)
        coordinator = _broker(e.broker_id)
        for g in mine:
            # The partition's new leader is their coordinator now. It loads what the old one
            # stored, the last generation completed: a rebalance under way there is over
            # (its members join the new coordinator, which logs the rebalance they start).
            g.coordinator = coordinator
            if g.state in REBALANCING_STATES:
                self._state(g, "Stable", at_ms)

    def _observation(self, g: LoggedGroup, at_ms: int) -> GroupObservation:
        # members uncounted (before 2.8): at least one, as a group left with none is logged
        # empty (the series is not published then: :meth:`supported`)
        members = g.members if g.members is not None else 0 if g.state == "Empty" else 1
        return GroupObservation(g.group, at_ms, g.state, members, protocol=g.protocol,
                                generation=g.generation, coordinator=g.coordinator)  # fmt: skip

    def _now(self, g: LoggedGroup, at_ms: int) -> GroupObservation:
        """The group as a round at ``at_ms`` finds it: as last logged, or, while its offsets
        partition loads, not described."""
        load = self._loading.get(g.offsets_partition) if g.offsets_partition is not None else None
        if load is None:
            return self._observation(g, at_ms)
        error = (f"{LOADING} (DescribeGroups): broker {load.broker_id} is loading "
                 f"{OFFSETS_TOPIC}-{load.partition}")  # fmt: skip
        return GroupObservation(g.group, at_ms, "Unknown", 0, protocol=g.protocol,
                                coordinator=g.coordinator, error=error)  # fmt: skip

    def round(self, now_ms: int) -> GroupsRound | None:
        """The poller's round at ``now_ms``, once ``interval_s`` has passed since the last one
        (None before that, and while no group has been logged): every group as it is now."""
        if not self.groups:
            return None
        last = self._last_round_ms
        if last is not None and now_ms - last < self.settings.interval_s * 1000:
            return None
        self._last_round_ms, self._changed = now_ms, False
        observed = []
        for g in self.groups.values():
            obs = self._now(g, now_ms)
            if obs.error is None and obs.state in REBALANCING_STATES:
                g.round_unstable_ms = g.round_unstable_ms or now_ms
            elif obs.error is None:
                g.round_unstable_ms = None
            observed.append(obs)
        return GroupsRound(now_ms, tuple(observed))

    def next_due(self, after_s: float) -> float | None:
        """The first time after ``after_s`` at which a round is owed (lines came since the
        last), or at which something turns with no new line: a rebalance too long (at the
        first round after ``rebalance_max_s`` from the round that found it), a load stuck (a
        step after ``stuck_after_s``: the load is counted from the step that folds its line).
        A replay skipping a quiet stretch stops there."""
        due = [
            g.round_unstable_ms / 1000 + self.settings.rebalance_max_s + 0.001
            for g in self.groups.values()
            if g.round_unstable_ms is not None
        ] + [
            load.start_ms / 1000 + self.stuck_after_s + self.step_s
            for load in self._loading.values()
        ]
        if self._changed and self._last_round_ms is not None:
            due.append(self._last_round_ms / 1000 + self.settings.interval_s)
        return min((t for t in due if t > after_s), default=None)

    def supported(self, signals: list[Signal]) -> list[Signal]:
        """``signals`` without the consumer-group series the logs cannot support: lag, offsets,
        the poller's own; members only where the line counted them."""
        out = []
        for s in signals:
            if s.name == "consumergroup_status" or not s.name.startswith(
                ("consumergroup_", "consumer_groups_")
            ):
                out.append(s)
            elif s.name == "consumergroup_members":
                g = self.groups.get(s.label("group"))
                if g is not None and g.members is not None:
                    out.append(s)
        return out

    def summary(self, end_ms: int) -> list[dict[str, Any]]:
        """Each group: its coordinator and offsets partition, rebalances, new generations,
        members failed, its longest time not Stable, as the lines show them up to ``end_ms``."""
        return [g.summary(end_ms) for _name, g in sorted(self.groups.items())]

    def loads(self, end_ms: int) -> list[dict[str, Any]]:
        """Each load of an offsets partition that lasted ``stuck_after_s`` (or never
        finished), with the groups of that partition logged before it ended: ``held`` had
        members when it began (they could not join, sync or commit until it ended), ``idle``
        were empty."""
        out = []
        for load in self._loads:
            until = load.end_ms if load.end_ms is not None else end_ms
            took = (until - load.start_ms) / 1000
            if load.end_ms is not None and took < self.stuck_after_s:
                continue
            held: list[dict[str, Any]] = []
            idle: list[dict[str, Any]] = []
            for g in sorted(self.groups.values(), key=lambda g: g.group):
                if g.offsets_partition != load.partition or g.first_ms > until:
                    continue
                state, members = load.before.get(g.group, (g.state, g.members))
                (idle if state == "Empty" else held).append(
                    {"group": g.group, "state": state, "members": members}
                )
            out.append({
                "broker_id": load.broker_id, "partition": f"{OFFSETS_TOPIC}-{load.partition}",
                "started_at": load.start_ms / 1000,
                "ended_at": None if load.end_ms is None else load.end_ms / 1000,
                "ended": load.ended, "loading_s": took,
                "stuck": took >= self.stuck_after_s, "held": held, "idle": idle,
            })  # fmt: skip
        return out


def _broker(broker_id: str | None) -> int | None:
    try:
        return None if broker_id is None else int(broker_id)
    except ValueError:
        return None
