"""Consumer-group traffic, simulated: ``groups`` groups each reading ``per_group`` partitions
of its own, answered by the fake admin client (:mod:`kafka_health.dev.fake_group_admin`:
kafka-python's own response objects, encoded and decoded as on the wire) for 3 brokers.

Every partition is written at :data:`RATE` records/s; an active group commits 1 s behind the
log end at each round; a rotating 10 % of the groups stop committing for 4 rounds out of 40
(their objective is 12 s: ``lagging`` from their 3rd round), so each round ~5 % of the groups
change verdict; 5 % of the groups have no members. Shared by
``benchmarks/consumer_groups_scale.py`` (simulated time, a round every 5 s: the round's steps
timed one by one) and ``kafka-health bench throughput --groups`` (:class:`LiveGroupAdmin`: the
wall clock, the job's own poller on its own schedule).

The consumer traffic exists only in the process that holds the fake: ``bench load``, which
writes to a running job's topics from another process, cannot carry it (a real cluster's
groups are read through its admin API, not from a topic).
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.dev.fake_group_admin import FakeCluster, FakeGroup, FakeGroupAdmin, cpu
from kafka_health.model import Signal

T0 = 1_700_000_000.0
INTERVAL_S = 5.0
RATE = 10
"""Records a second on every partition."""
BROKERS = (1, 2, 3)
PARTITIONS_PER_TOPIC = 100
STOP_PERIOD, STOP_ROUNDS = 40, 4
"""A group stops committing 4 rounds out of every 40 (which 4: by its index)."""
TEAMS = ("payments", "search", "ads", "billing", "risk")


def scale_config(interval_s: float = INTERVAL_S) -> ConsumerGroupsConfig:
    """The job's defaults, with owners per team and a 12 s objective (so verdicts move)."""
    objectives = [
        GroupObjective(f"app-{team}-.*", 12.0, "critical" if i < 2 else "warning",
                       {"team": team})
        for i, team in enumerate(TEAMS[:4])
    ]  # fmt: skip
    return ConsumerGroupsConfig(
        interval_s=interval_s,
        objectives=objectives,
        default_objective=GroupObjective(lag_objective_s=12.0),
    )


def _partition(n: int) -> tuple[str, int]:
    return f"topic-{n // PARTITIONS_PER_TOPIC:04d}", n % PARTITIONS_PER_TOPIC


class GroupsWorld(FakeCluster):
    """``groups`` groups, each reading ``per_group`` partitions of its own, at the time ``t``
    (the log end offsets follow it; ``start`` is its first value)."""

    def __init__(self, groups: int, per_group: int, start: float = T0) -> None:
        super().__init__(brokers=BROKERS)
        self.per_group = per_group
        self.start = start
        self.t = start
        self.round = 0
        self.names = [f"app-{TEAMS[i % len(TEAMS)]}-{i:05d}" for i in range(groups)]
        for i, g in enumerate(self.names):
            empty = i % 20 == 7  # 5 % without members
            members = [] if empty else [self._assignment(i)]
            state = "Empty" if empty else "Stable"
            self.groups[g] = FakeGroup(BROKERS[i % len(BROKERS)], state, assignments=members)
        for node in BROKERS:  # not watched: the default excludes
            for n in range(20):
                self.groups[f"spark-kafka-source-{node}-{n}"] = FakeGroup(node, "Empty")
        for n in range(groups * per_group):
            topic, partition = _partition(n)
            self.leaders.setdefault(topic, {})[partition] = BROKERS[n % len(BROKERS)]

    def partitions(self, i: int) -> list[tuple[str, int]]:
        first = i * self.per_group
        return [_partition(n) for n in range(first, first + self.per_group)]

    def _assignment(self, i: int) -> bytes:
        by_topic: dict[str, list[int]] = {}
        for t, p in self.partitions(i):
            by_topic.setdefault(t, []).append(p)
        A = ConsumerProtocolAssignment
        return bytes(
            A(
                version=3,
                assigned_partitions=[A.TopicPartition(topic=t, partitions=ps)
                                     for t, ps in by_topic.items()],
                user_data=None,
            ).encode()
        )  # fmt: skip

    def end_offset(self, key: tuple[str, int]) -> int:
        return int((self.t - self.start + 3600) * RATE) + key[1]

    def stopped(self, i: int) -> bool:
        return (self.round + i) % STOP_PERIOD < STOP_ROUNDS

    def advance(self, to: float | None = None) -> None:
        """The next round, at ``to`` (default: :data:`INTERVAL_S` after the last): every
        active group committed 1 s behind the log end."""
        self.round += 1
        self.t = self.t + INTERVAL_S if to is None else to
        for i, g in enumerate(self.names):
            if self.stopped(i) and self.round > 1:
                continue
            committed = self.groups[g].committed
            for key in self.partitions(i):
                committed[key] = self.end_offset(key) - RATE


class LiveGroupAdmin(FakeGroupAdmin):
    """The fake admin client of a :class:`GroupsWorld` on the wall clock, for a poller that
    runs on its own schedule (the job's). A round begins with the source's metadata request
    for no topic (:class:`~kafka_health.consumer_groups.source.AdminGroupsSource` asks for the
    brokers first): the world moves to now, and the round's start is recorded
    (``starts``: monotonic and wall seconds). ``fake_s``: this fake's CPU seconds in all
    (the world's commits, building and encoding the answers: what the brokers would do);
    ``decode_s``: kafka-python's decoding of them (the driver's, as with a real cluster)."""

    def __init__(self, world: GroupsWorld) -> None:
        super().__init__(world, wire=True)
        self.world = world
        self.starts: list[tuple[float, float]] = []
        self._advance_s = 0.0

    async def _get_cluster_metadata(self, topics: list[str]) -> dict[str, Any]:
        if not topics:
            now = time.time()
            self.starts.append((time.monotonic(), now))
            started = cpu()
            self.world.advance(now)
            self._advance_s += cpu() - started
        return await super()._get_cluster_metadata(topics)

    @property
    def fake_s(self) -> float:
        return self._advance_s + self._manager.build_s

    @property
    def decode_s(self) -> float:
        return self._manager.decode_s


def spread(values: Sequence[float]) -> dict[str, float]:
    """p50, p95 and max of ``values`` (0 when empty), rounded to ms; the rank as ``bench
    throughput``'s batch p95 has always taken it (``round(q * (n - 1))``)."""
    ordered = sorted(values) or [0.0]

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {"p50": round(rank(0.5), 3), "p95": round(rank(0.95), 3), "max": round(ordered[-1], 3)}


class RoundsSeen:
    """A sink of the job's signals (``MonitorJob(sinks=...)``): the consumer-group rounds its
    publishes showed, so on the board (``rounds``: each successful round's time, from
    ``consumer_groups_round_failing``, and its duration as the poller measured it), and the
    groups' verdicts in the last publish that had any."""

    def __init__(self) -> None:
        self.rounds: dict[float, float] = {}
        self.verdicts: dict[str, int] = {}

    def publish(self, signals: list[Signal], snapshot: bool = True) -> None:
        verdicts: Counter[str] = Counter()
        for s in signals:
            if s.name == "consumergroup_status":
                verdicts[s.label("verdict") or "?"] += 1
            elif s.name == "consumer_groups_round_failing" and not s.value:
                self.rounds.setdefault(s.at, float(s.details.get("duration_s") or 0.0))
        if verdicts:
            self.verdicts = dict(verdicts)

    def reached(self, wall: float) -> float | None:
        """The duration of the round that began at ``wall`` (as the fake admin recorded its
        first request) if a publish showed it, else None. The poller takes a round's time
        just before the request (to the ms, truncated): at most :data:`TAKEN_BEFORE_S`
        earlier."""
        times = sorted(self.rounds)
        i = bisect.bisect_right(times, wall) - 1
        if i < 0 or wall - times[i] > TAKEN_BEFORE_S:
            return None
        return self.rounds[times[i]]


TAKEN_BEFORE_S = 1.0
"""How long before the fake admin sees a round's first request the poller may have taken its
time (a new admin client made in between; rounds are :data:`INTERVAL_S` apart)."""


class GroupsLoad:
    """``bench throughput --groups``: the simulated groups (started on the wall clock now),
    the job's settings for them (``config``: :func:`scale_config`, rounds every
    ``interval_s``), their admin client for the job (``MonitorJob(groups_admin=
    load.make_admin)``, so the job runs its own poller, source and board on them) and the
    sink that sees what reached the board (``MonitorJob(sinks=[load.seen])``)."""

    def __init__(self, groups: int, per_group: int, interval_s: float = INTERVAL_S) -> None:
        self.config = scale_config(interval_s)
        self.world = GroupsWorld(groups, per_group, start=time.time())
        self.admin = LiveGroupAdmin(self.world)
        self.seen = RoundsSeen()

    def make_admin(self) -> LiveGroupAdmin:
        return self.admin

    def wait_published(self, until: float, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) until the last round begun by the monotonic ``until``
        was published, or is known not to have been (a later one was)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            began = [wall for mono, wall in list(self.admin.starts) if mono <= until]
            if not began or self.seen.reached(began[-1]) is not None:
                return
            if any(t > began[-1] for t in list(self.seen.rounds)):
                return
            time.sleep(0.2)

    def figures(self, since: float, until: float) -> dict[str, Any]:
        """The rounds begun between the monotonic ``since`` and ``until``: the time between
        their starts, their durations, how many reached the board; the fake's own CPU a round
        (what the brokers would do: the world's commits, building and encoding the answers)
        and kafka-python's decoding of the answers (the driver's, as with a real cluster)."""
        starts = list(self.admin.starts)
        window = [(mono, wall) for mono, wall in starts if since <= mono <= until]
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(window)]
        durations = [d for d in (self.seen.reached(wall) for _, wall in window) if d is not None]
        rounds = max(1, len(starts))
        return {
            "groups": len(self.world.names),
            "partitions": len(self.world.names) * self.world.per_group,
            "interval_s": self.config.interval_s,
            "rounds": len(window),
            "rounds_reached_board": len(durations),
            "round_interval_s": spread(gaps),
            "round_duration_s": spread(durations),
            "fake_answers_cpu_s_per_round": round(self.admin.fake_s / rounds, 3),
            "decode_cpu_s_per_round": round(self.admin.decode_s / rounds, 3),
            "verdicts_last_publish": dict(sorted(self.seen.verdicts.items())),
        }
