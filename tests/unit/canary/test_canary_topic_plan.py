"""Canary topic planning: one partition led by each broker, and no churn during restarts."""

from __future__ import annotations

import dataclasses

import pytest

from kafka_health.canary.topic import PartitionInfo, TopicPlan, layout, plan_topic
from kafka_health.config import CanaryConfig

AUTO = CanaryConfig()
GOOD_CONFIGS = {"min.insync.replicas": "2", "message.timestamp.type": "LogAppendTime"}


def parts(*specs: tuple[int | None, list[int], list[int]]) -> list[PartitionInfo]:
    """Partitions from (leader, replicas, isr), numbered in order."""
    return [PartitionInfo(i, lead, tuple(r), tuple(isr)) for i, (lead, r, isr) in enumerate(specs)]


HEALTHY = parts((1, [1, 2, 3], [1, 2, 3]), (2, [2, 3, 1], [2, 3, 1]), (3, [3, 1, 2], [3, 1, 2]))


def test_layout_gives_every_broker_one_partition_to_lead() -> None:
    assert layout([3, 1, 2], 3, 3) == {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}
    assert layout([1, 2, 3, 4], 5, 2) == {0: [1, 2], 1: [2, 3], 2: [3, 4], 3: [4, 1], 4: [1, 2]}


# (case, config, live brokers, current partitions, configs, reassignment running,
#  expected plan, why)
CASES = [
    ("missing topic, 3 brokers", AUTO, [1, 2, 3], None, {}, False,
     TopicPlan(create={0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}, configs=GOOD_CONFIGS),
     "RF min(3, brokers), min ISR RF-1, LogAppendTime, each broker leads one"),
    ("missing topic, 1 broker", AUTO, [1], None, {}, False,
     TopicPlan(create={0: [1]},
               configs={"min.insync.replicas": "1", "message.timestamp.type": "LogAppendTime"}),
     "min ISR is at least 1"),
    ("missing topic, more partitions configured", dataclasses.replace(AUTO, partitions=4),
     [1, 2], None, {}, False,
     TopicPlan(create={0: [1, 2], 1: [2, 1], 2: [1, 2], 3: [2, 1]},
               configs={"min.insync.replicas": "1", "message.timestamp.type": "LogAppendTime"}),
     "configured partitions win when there are more of them than brokers"),
    ("healthy", AUTO, [1, 2, 3], HEALTHY, GOOD_CONFIGS, False, TopicPlan(),
     "nothing to do, nothing done"),
    ("leadership drifted", AUTO, [1, 2, 3],
     parts((1, [1, 2, 3], [1, 2, 3]), (3, [2, 3, 1], [2, 3, 1]), (3, [3, 1, 2], [3, 1, 2])),
     GOOD_CONFIGS, False, TopicPlan(elect=[1]),
     "broker 2 is back in the ISR of the partition it should lead"),
    ("preferred replica not in sync", AUTO, [1, 2, 3],
     parts((1, [1, 2, 3], [1, 2, 3]), (3, [2, 3, 1], [3, 1]), (3, [3, 1, 2], [3, 1, 2])),
     GOOD_CONFIGS, False, TopicPlan(),
     "an election would fail until broker 2 has caught up"),
    ("a broker is restarting", AUTO, [1, 2],
     parts((1, [1, 2, 3], [1, 2]), (2, [2, 3, 1], [2, 1]), (1, [3, 1, 2], [1, 2])),
     GOOD_CONFIGS, False, TopicPlan(notes=["2 of 3 expected brokers live: layout kept"]),
     "a restart must not move replicas away (no churn)"),
    ("a broker joined", AUTO, [1, 2, 3, 4], HEALTHY, GOOD_CONFIGS, False,
     TopicPlan(add_partitions=[[4, 1, 2]],
               reassign={1: [2, 3, 4], 2: [3, 4, 1]}),
     "the new broker gets replicas and a partition to lead"),
    ("a broker joined during a reassignment", AUTO, [1, 2, 3, 4], HEALTHY, GOOD_CONFIGS, True,
     TopicPlan(notes=["a reassignment is running: layout kept"]),
     "never start a reassignment while one runs"),
    ("reassignments cannot be listed", AUTO, [1, 2, 3, 4], HEALTHY, GOOD_CONFIGS, None,
     TopicPlan(notes=["reassignments could not be listed: layout kept"]),
     "unknown is treated as running (managed clusters may forbid the call)"),
    ("a broker was removed for good", dataclasses.replace(AUTO, expected_brokers=2), [1, 2],
     parts((1, [1, 2, 3], [1, 2]), (2, [2, 3, 1], [2, 1]), (1, [3, 1, 2], [1, 2])),
     GOOD_CONFIGS, False,
     TopicPlan(reassign={0: [1, 2], 1: [2, 1], 2: [1, 2]}),
     "expected_brokers says 2 is the real size now; min ISR follows once RF really is 2"),
    ("configs drifted", AUTO, [1, 2, 3], HEALTHY,
     {"min.insync.replicas": "1", "message.timestamp.type": "CreateTime"}, False,
     TopicPlan(configs=GOOD_CONFIGS), "both configs are restored"),
    ("explicit min ISR", dataclasses.replace(AUTO, min_insync_replicas=3), [1, 2, 3], HEALTHY,
     GOOD_CONFIGS, False, TopicPlan(configs={"min.insync.replicas": "3"}),
     "a configured min ISR replaces RF-1"),
    ("no live broker", AUTO, [], HEALTHY, GOOD_CONFIGS, False,
     TopicPlan(notes=["no live brokers"]), "nothing can be done without brokers"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "config", "live", "current", "configs", "running", "expected", "why"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_plan(
    case: str,
    config: CanaryConfig,
    live: list[int],
    current: list[PartitionInfo] | None,
    configs: dict[str, str],
    running: bool | None,
    expected: TopicPlan,
    why: str,
) -> None:
    assert plan_topic(config, live, current, configs, running) == expected, why


def test_a_broker_gone_for_good_is_not_waited_for_and_its_replicas_move() -> None:
    """Broker 3 died or was unregistered without the canary topic moved off it: a restart
    (not departed) keeps the layout; once it is departed, the replicas move to the live
    brokers, each of which still leads a partition."""
    kept = plan_topic(AUTO, [1, 2], HEALTHY, GOOD_CONFIGS, False)
    assert kept.reassign == {} and kept.notes == ["2 of 3 expected brokers live: layout kept"]
    moved = plan_topic(AUTO, [1, 2], HEALTHY, GOOD_CONFIGS, False, departed={3})
    assert moved.reassign == {0: [1, 2], 1: [2, 1], 2: [1, 2]}
    assert all(3 not in replicas for replicas in moved.reassign.values())


def test_the_topic_manager_calls_a_broker_departed_only_after_gone_after_s() -> None:
    """A layout broker missing from the registered brokers (fenced ones are registered) is
    departed once it has been missing ``gone_after_s``; seen registered again, it starts over."""
    from kafka_health.canary.topic import TopicManager

    now = [0.0]
    manager = TopicManager(lambda: None, "t", AUTO, gone_after_s=300.0, clock=lambda: now[0])
    assert manager.departed({1, 2}, HEALTHY) == set()
    now[0] = 299.0
    assert manager.departed({1, 2}, HEALTHY) == set()
    now[0] = 300.0
    assert manager.departed({1, 2}, HEALTHY) == {3}
    now[0] = 310.0
    assert manager.departed({1, 2, 3}, HEALTHY) == set()
    now[0] = 320.0
    assert manager.departed({1, 2}, HEALTHY) == set(), "missing again: counted from now"
