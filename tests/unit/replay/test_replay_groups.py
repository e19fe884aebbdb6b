"""The replay's consumer side, without Spark: the group coordinators' lines (as the parser gives
them) through the live consumer-group detector and alert rules, on the lines' own time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.support.alerting_harness import RULES_FILE

from kafka_health.alerting.rule_config import load_rules
from kafka_health.config import MonitorConfig
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.detectors.inputs import LogEvent
from kafka_health.model import Signal, labels
from kafka_health.replay.engine import Replay, replay_events
from kafka_health.replay.groups import CoordinatorEvent, LoggedGroups

T0 = datetime(2021, 4, 16, 17, 50, tzinfo=UTC).timestamp()
LATE_S = 15.0
"""A verdict a bound of time makes pages within two of the poller's rounds (the one that first
sees the state, the one that sees it over the bound) and a step of the replay, as live."""


def ms(t: float) -> int:
    return round((T0 + t) * 1000)


def line(
    kind: str,
    t: float,
    group: str,
    broker: str = "3",
    partition: int | None = 43,
    generation: int | None = None,
    members: int | None = None,
) -> CoordinatorEvent:
    """A coordinator's line ``t`` seconds after T0, as the parse gives it."""
    topic = "__consumer_offsets" if partition is not None else None
    return CoordinatorEvent(kind, broker, ms(t), topic=topic, partition=partition, group=group,
                            generation=generation, members=members)  # fmt: skip


def storm(group: str = "orders-consumer", cycles: int = 4) -> list[LogEvent]:
    """A consumer that crash-loops: every two minutes its member times out (a generation) and
    rejoins a minute later (another); each rebalance completes in 3 s."""
    out: list[LogEvent] = [line("group_stabilized", 0, group, generation=1)]
    gen = 1
    for k in range(cycles):
        at = 60 + 120 * k
        out += [
            line("group_member_failed", at - 0.002, group),
            line("group_rebalance_start", at, group, generation=gen),
            line("group_stabilized", at + 3, group, generation=gen + 1),
            line("group_rebalance_start", at + 60, group, generation=gen + 1),
            line("group_stabilized", at + 63, group, generation=gen + 2),
        ]
        gen += 2
    return out


def firing(replay: Replay, alert: str, **match: str) -> list[tuple[float, dict[str, Any]]]:
    return [
        (n.at, a) for n in replay.notifications for a in n.alerts
        if a["alertname"] == alert and a["status"] == "firing"
        and all(a["labels"].get(k) == v for k, v in match.items())
    ]  # fmt: skip


def resolved(replay: Replay, alert: str) -> list[float]:
    return [
        n.at for n in replay.notifications for a in n.alerts
        if a["alertname"] == alert and a["status"] == "resolved"
    ]  # fmt: skip


def test_a_rebalance_storm_pages_at_the_generation_past_the_churn_limit() -> None:
    """More than 6 new generations within 10 minutes: the 7th, logged 7 minutes after the
    first (T0+423 s), pages ConsumerGroupRebalancing for the group, not the 6th."""
    replay = replay_events(storm(), MonitorConfig(), load_rules(RULES_FILE))
    pages = firing(replay, "ConsumerGroupRebalancing", group="orders-consumer")
    assert pages, replay.notifications
    seventh = T0 + 60 + 120 * 3 + 3  # generation 8: the 7th new one
    first_at = pages[0][0]
    assert seventh <= first_at <= seventh + 10, first_at - seventh  # the next round
    assert {n.group_key for n in replay.notifications} == {'{group="orders-consumer"}'}
    # once the oldest generations leave the 10-minute window the group is OK again
    assert resolved(replay, "ConsumerGroupRebalancing"), replay.notifications
    assert replay.open_at_end == []
    summary = {g["group"]: g for g in replay.consumer_groups}["orders-consumer"]
    assert summary["new_generations"] == 8 and summary["rebalances"] == 8
    assert summary["members_failed"] == 4 and summary["offsets_partition"] == 43


def test_as_many_generations_as_the_limit_page_nothing() -> None:
    """Six new generations in the window are the limit, not over it."""
    events = storm(cycles=3)
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    assert firing(replay, "ConsumerGroupRebalancing") == []


def test_a_rebalance_longer_than_rebalance_max_s_pages_then_resolves() -> None:
    """PreparingRebalance for 220 s (a member that does not rejoin within its rebalance
    timeout): paged once it passes rebalance_max_s (120 s), resolved when it stabilizes; a
    quiet stretch in the logs is not skipped past the moment the verdict turns."""
    events = [
        line("group_stabilized", 0, "billing-audit", partition=12, generation=4, members=2),
        line("group_rebalance_start", 30, "billing-audit", partition=12, generation=4),
        line("group_stabilized", 250, "billing-audit", partition=12, generation=5, members=1),
        line("group_stabilized", 900, "other", partition=3, generation=2, members=1),
    ]
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    pages = firing(replay, "ConsumerGroupRebalancing", group="billing-audit")
    assert pages, replay.notifications
    too_long = T0 + 30 + 120
    assert too_long < pages[0][0] <= too_long + LATE_S, pages[0][0] - too_long
    assert "PreparingRebalance" in pages[0][1]["summary"]
    ends = resolved(replay, "ConsumerGroupRebalancing")
    assert ends and T0 + 250 < ends[0] <= T0 + 250 + 60 + 10, [e - T0 for e in ends]
    summary = {g["group"]: g for g in replay.consumer_groups}["billing-audit"]
    assert summary["longest_unstable_s"] == 220 and summary["members"] == 1


def test_quick_rebalances_page_nothing() -> None:
    events = []
    for k in range(3):
        events += [
            line("group_rebalance_start", 100 * k, "quick", generation=k),
            line("group_stabilized", 100 * k + 2, "quick", generation=k + 1, members=3),
        ]
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    assert replay.notifications == []
    assert replay.consumer_groups[0]["longest_unstable_s"] == 2


def test_a_stuck_offsets_load_names_the_groups_it_holds_up() -> None:
    """Broker 3 begins loading __consumer_offsets-7 and never finishes: CoordinatorLoadStuck
    pages broker 3 at 300 s, the group whose offsets are there (seen on broker 1 before) is
    listed as held up, and it pages nothing of its own (its description fails: unseen)."""
    events = [
        line("group_stabilized", 0, "inventory-sync", broker="1", partition=7, generation=9,
             members=4),
        line("group_stabilized", 0, "idle-group", broker="1", partition=7, generation=2),
        line("group_empty", 5, "idle-group", broker="1", partition=7, generation=3),
        line("group_stabilized", 0, "elsewhere", broker="1", partition=8, generation=1),
        LogEvent("coordinator_load_start", "3", ms(60), topic="__consumer_offsets", partition=7),
        LogEvent("coordinator_load_start", "3", ms(60), topic="__consumer_offsets", partition=8),
        LogEvent("coordinator_load_finish", "3", ms(61), topic="__consumer_offsets", partition=8),
        line("group_stabilized", 500, "elsewhere", partition=8, generation=2),
    ]  # fmt: skip
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    stuck = firing(replay, "CoordinatorLoadStuck", broker_id="3")
    assert stuck, replay.notifications
    assert T0 + 60 + 300 <= stuck[0][0] <= T0 + 60 + 300 + 10, stuck[0][0] - T0
    assert {a["alertname"] for n in replay.notifications for a in n.alerts} == {
        "CoordinatorLoadStuck"
    }
    assert replay.coordinator_loads == [{
        "broker_id": "3", "partition": "__consumer_offsets-7", "started_at": T0 + 60,
        "ended_at": None, "ended": None, "loading_s": 440.0, "stuck": True,
        "held": [{"group": "inventory-sync", "state": "Stable", "members": 4}],
        "idle": [{"group": "idle-group", "state": "Empty", "members": 0}],
    }]  # fmt: skip


def test_a_group_rebalancing_too_long_under_a_failed_coordinator_joins_its_incident() -> None:
    """The controller reports broker 1 failed while the group it coordinates is rebalancing:
    once the rebalance is too long the group is listed in broker 1's incident
    (BrokerHoldsUpConsumerGroups), not paged to its owners (ConsumerGroupRebalancing). Broker
    2 then loads the group's offsets partition, the members join it and the group is stable:
    the hold resolves."""
    events = [
        line("group_stabilized", 0, "payments", broker="1", partition=11, generation=7),
        line("group_rebalance_start", 10, "payments", broker="1", partition=11, generation=7),
        LogEvent("broker_failure", "2", ms(20), subject_broker_id=1),
        LogEvent("broker_failure", "2", ms(100), subject_broker_id=1),
        LogEvent("coordinator_load_start", "2", ms(170), topic="__consumer_offsets",
                 partition=11),
        LogEvent("coordinator_load_finish", "2", ms(171), topic="__consumer_offsets",
                 partition=11),
        line("group_rebalance_start", 175, "payments", broker="2", partition=11, generation=7),
        line("group_stabilized", 178, "payments", broker="2", partition=11, generation=8,
             members=3),
    ]  # fmt: skip
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    held = firing(replay, "BrokerHoldsUpConsumerGroups", broker_id="1")
    assert held, replay.notifications
    assert T0 + 10 + 120 < held[0][0] <= T0 + 10 + 120 + LATE_S, held[0][0] - T0
    assert "payments" in held[0][1]["summary"]
    assert firing(replay, "ConsumerGroupRebalancing") == []
    assert resolved(replay, "BrokerHoldsUpConsumerGroups"), replay.notifications
    assert replay.open_at_end == []
    summary = {g["group"]: g for g in replay.consumer_groups}["payments"]
    assert summary["coordinator"] == 2 and summary["longest_unstable_s"] == 160


def test_only_the_series_logs_can_support_are_published() -> None:
    """Status always, members where the line counted them; never the lag series (zero for
    want of offsets) or the poller's own."""
    groups = LoggedGroups(ConsumerGroupsConfig(), 300.0)
    groups.take([line("group_stabilized", 0, "counted", generation=1, members=3),
                 line("group_stabilized", 0, "uncounted", generation=1)])  # fmt: skip
    signals = [
        Signal("consumergroup_status", (("group", "counted"), ("verdict", "ok")), 1.0, T0),
        Signal("consumergroup_members", labels(group="counted"), 3.0, T0),
        Signal("consumergroup_members", labels(group="uncounted"), 1.0, T0),
        Signal("consumergroup_max_lag", labels(group="counted"), 0.0, T0),
        Signal("consumergroup_partition_series_dropped", (), 0.0, T0),
        Signal("consumer_groups_round_failing", (), 0.0, T0),
        Signal("coordinator_loads_stuck", labels(broker_id="3"), 1.0, T0),
    ]
    kept = [(s.name, s.label("group")) for s in groups.supported(signals)]
    assert kept == [("consumergroup_status", "counted"), ("consumergroup_members", "counted"),
                    ("coordinator_loads_stuck", "")]  # fmt: skip


def test_an_archive_without_group_lines_replays_as_before() -> None:
    events = [LogEvent("broker_failure", "2", ms(0), subject_broker_id=3)]
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    assert replay.consumer_groups == [] and replay.coordinator_loads == []
    names = {s.name for _at, signals in replay.timeline for s in signals}
    assert not any(n.startswith(("consumergroup_", "consumer_groups_")) for n in names)
