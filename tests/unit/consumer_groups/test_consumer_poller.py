"""The poller with a fake source: lag filled in from the table, failures as rounds, metrics,
and the thread that hands each round on."""

from __future__ import annotations

import threading

import pytest
from prometheus_client import CollectorRegistry
from tests.support.canary_fakes import FakeClock as Clock

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.lag import LagTable
from kafka_health.consumer_groups.observation import GroupObservation, GroupsRound, PartitionOffsets
from kafka_health.consumer_groups.poller import GroupsPoller, PollerMetrics


class FakeSource:
    """A group that committed offset 100 of one partition, written at 10 records/s from
    the start (record n at n / 10 s, making the log end n + 1)."""

    def __init__(self, clock: Clock, committed: int = 100, over_cap: int = 0) -> None:
        self.clock = clock
        self.committed = committed
        self.over_cap = over_cap
        self.start = clock.wall
        self.fail: Exception | None = None
        self.closed = False
        self.took_s = 0.25

    def poll(self, at_ms: int) -> GroupsRound:
        self.clock.mono += self.took_s
        if self.fail is not None:
            raise self.fail
        log_end = round(10 * (at_ms / 1000 - self.start)) + 1
        part = PartitionOffsets("orders", 0, self.committed, 0, log_end, leader=1)
        unread = PartitionOffsets("orders", 1, None, 0, 7, leader=2)
        group = GroupObservation("billing", at_ms, "Stable", 2, partitions=(part, unread))
        broken = GroupObservation("other", at_ms, "Unknown", 0, error="Timeout (offsets)")
        return GroupsRound(at_ms=at_ms, groups=(group, broken), over_cap=self.over_cap)

    def close(self) -> None:
        self.closed = True


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    got = registry.get_sample_value(name, labels)
    return 0.0 if got is None else got


def test_each_round_feeds_the_table_and_gets_the_time_lag() -> None:
    clock = Clock()
    source = FakeSource(clock)
    poller = GroupsPoller(source, LagTable(), ConsumerGroupsConfig(), clock)
    for _ in range(4):
        clock.advance(5.0)
        result = poller.poll_once()
    # Written at 10/s from the start: record 100 at 10.0 s; the round is at 20 s.
    (billing, other) = result.groups
    p0, p1 = billing.partitions
    assert (p0.committed, p0.log_end, p0.lag) == (100, 201, 101)
    assert p0.lag_s == pytest.approx(10.0)
    assert p0.lag_basis == "interpolated"
    assert (p1.lag_s, p1.lag_basis) == (None, "unknown")
    assert billing.max_lag_s == pytest.approx(10.0)
    assert other.error == "Timeout (offsets)"
    assert result.duration_s == pytest.approx(0.25)
    assert poller.last is result


def test_the_first_round_is_a_lower_bound() -> None:
    clock = Clock()
    poller = GroupsPoller(FakeSource(clock), LagTable(), ConsumerGroupsConfig(), clock)
    clock.advance(20.0)
    p0 = poller.poll_once().groups[0].partitions[0]
    # One sample (now): record 100 was written before it, at least 0 s ago.
    assert (p0.lag_s, p0.lag_basis) == (0.0, "extrapolated")


def test_a_caught_up_group_has_no_time_lag() -> None:
    clock = Clock()
    poller = GroupsPoller(
        FakeSource(clock, committed=51), LagTable(), ConsumerGroupsConfig(), clock
    )
    clock.advance(5.0)
    p0 = poller.poll_once().groups[0].partitions[0]
    assert (p0.lag, p0.lag_s, p0.lag_basis) == (0, 0.0, "caught_up")


def test_a_failed_round_is_a_round_with_its_error() -> None:
    clock = Clock()
    source = FakeSource(clock)
    source.fail = ConnectionError("no broker listed its groups")
    registry = CollectorRegistry()
    poller = GroupsPoller(
        source, LagTable(), ConsumerGroupsConfig(), clock, metrics=PollerMetrics(registry)
    )
    result = poller.poll_once()
    assert result.groups == ()
    assert result.error == "ConnectionError: no broker listed its groups"
    ns = "kafka_health_consumer_groups"
    assert value(registry, f"{ns}_rounds_total", outcome="failed") == 1
    assert value(registry, f"{ns}_rounds_total", outcome="ok") == 0


def test_metrics_of_a_round() -> None:
    clock = Clock()
    registry = CollectorRegistry()
    poller = GroupsPoller(
        FakeSource(clock, over_cap=3),
        LagTable(),
        ConsumerGroupsConfig(),
        clock,
        metrics=PollerMetrics(registry),
    )
    poller.poll_once()
    poller.poll_once()
    ns = "kafka_health_consumer_groups"
    assert value(registry, f"{ns}_rounds_total", outcome="ok") == 2
    assert value(registry, f"{ns}_watched") == 2
    assert value(registry, f"{ns}_over_cap_total") == 6
    assert value(registry, f"{ns}_group_errors_total") == 2
    assert value(registry, f"{ns}_round_duration_seconds_count") == 2
    assert value(registry, f"{ns}_round_duration_seconds_bucket", le="0.25") == 2


def test_the_thread_hands_on_rounds_until_stopped() -> None:
    from kafka_health.clock import SYSTEM_CLOCK

    source = FakeSource(Clock())
    source.took_s = 0.0
    rounds: list[GroupsRound] = []
    three = threading.Event()

    def on_round(result: GroupsRound) -> None:
        rounds.append(result)
        if len(rounds) == 1:
            raise RuntimeError("a handler's failure stops nothing")
        if len(rounds) >= 3:
            three.set()

    poller = GroupsPoller(
        source, LagTable(), ConsumerGroupsConfig(interval_s=0.05), SYSTEM_CLOCK, on_round=on_round
    )
    poller.start()
    try:
        assert three.wait(5.0)
    finally:
        poller.stop()
    assert source.closed
    count = len(rounds)
    threading.Event().wait(0.2)
    assert len(rounds) == count
    assert all(r.error is None for r in rounds)
