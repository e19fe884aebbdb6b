"""The cause named once: timelines of the poller's rounds and the brokers' health, no Spark.

A group behind because its coordinator or the leader of partitions it waits on is unhealthy
is held by that broker (its status and objective-ratio series carry the broker's
``broker_id``); with every broker healthy it has none (its own page); once held it stays held
while its coordinator moves and it catches up, until the broker has been healthy for the
bound."""

from __future__ import annotations

from collections.abc import Mapping

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
    PartitionOffsets,
)
from kafka_health.detectors.consumer_causes import (
    RELEASE_AFTER_MIN_S,
    Culprits,
    unhealthy_brokers,
)
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.detectors.consumer_verdicts import Verdict
from kafka_health.model import SIGNALS, Signal, labels

PAY = GroupObjective("pay.*", lag_objective_s=30.0, severity="critical", labels={"team": "pay"})
CFG = ConsumerGroupsConfig(
    interval_s=5.0, stall_window_s=20.0, rebalance_max_s=30.0, churn_generations=3,
    churn_window_s=120.0, forget_after_s=600.0, objectives=[PAY],
)  # fmt: skip
DOWN = {2: "not answering (refused for 7 s)"}


def part(committed: int, log_end: int | None, lag_s: float | None, leader: int = 1,
         n: int = 0) -> PartitionOffsets:  # fmt: skip
    basis = "unknown" if lag_s is None else "interpolated"
    return PartitionOffsets("orders", n, committed, 0, log_end, leader, lag_s, basis)


def obs(at_s: float, *parts: PartitionOffsets, coordinator: int = 2, members: int = 1,
        error: str | None = None) -> GroupObservation:  # fmt: skip
    return GroupObservation("pay-1", round(at_s * 1000), "Stable", members, generation=1,
                            coordinator=coordinator, partitions=parts, error=error)  # fmt: skip


def rnd(at_s: float, *groups: GroupObservation) -> GroupsRound:
    return GroupsRound(round(at_s * 1000), tuple(groups))


def series(det: ConsumerGroups, now: float, unhealthy: Mapping[int, str]) -> dict[str, Signal]:
    """The group's status and objective-ratio series (the ones that carry a culprit)."""
    out = {}
    for s in det.signals(now, unhealthy):
        if s.name in ("consumergroup_status", "consumergroup_lag_objective_ratio"):
            assert s.name not in out, "one series per group"
            assert set(dict(s.labels)) <= set(SIGNALS[s.name].labels), s
            out[s.name] = s
    return out


def culprit(det: ConsumerGroups, now: float, unhealthy: Mapping[int, str]) -> str:
    """The ``broker_id`` of the group's status series ("": its own)."""
    return series(det, now, unhealthy)["consumergroup_status"].label("broker_id")


def keeping_up(det: ConsumerGroups, until: float, coordinator: int = 2, leader: int = 1) -> None:
    for t in range(0, int(until) + 1, 5):
        det.observe(rnd(t, obs(t, part(10 * t, 10 * t + 5, 0.5, leader), coordinator=coordinator)))


def test_coordinator_down_holds_the_group_and_names_why() -> None:
    det = ConsumerGroups(CFG)
    keeping_up(det, 95)
    assert culprit(det, 96, DOWN) == "", "OK: a dead broker holds up nothing"
    # broker 2, the coordinator, is killed at 100: the group cannot be read (unseen at 110)
    for t in (100, 105, 110):
        det.observe(rnd(t, obs(t, error="ListGroups failed: KafkaConnectionError")))
    assert det.verdicts(111)["pay-1"].verdict == "unseen"
    found = series(det, 111, DOWN)
    status = found["consumergroup_status"]
    assert status.labels == labels(group="pay-1", verdict="unseen", broker_id=2)
    held = status.details["held_by"]
    assert held["broker_id"] == 2 and "its coordinator, broker 2" in held["why"]
    assert "refused" in held["why"]
    assert status.details["groups_held"] == ["pay-1"]
    assert status.details["held_owners"] == [
        {"group": "pay-1", "severity": "critical", "labels": {"team": "pay"}}
    ]
    assert "team=pay" in status.details["held_groups"][0]


def test_a_stopped_group_whose_coordinator_is_down_is_held() -> None:
    det = ConsumerGroups(CFG)
    for t in range(0, 40, 5):  # no members, records waiting, lag growing: stopped
        det.observe(rnd(t, obs(t, part(100, 110 + t, 1.0 + t / 2), members=0)))
    assert det.verdicts(36)["pay-1"].verdict == "stopped", "within its objective still"
    assert culprit(det, 36, {}) == ""
    assert culprit(det, 36, DOWN) == "2"
    ratio = series(det, 36, DOWN)["consumergroup_lag_objective_ratio"]
    assert ratio.labels == labels(group="pay-1", broker_id=2), "the page's series too"


def test_hung_leader_of_a_lagging_partition_holds_the_group() -> None:
    det = ConsumerGroups(CFG)
    hung = {4: "not answering (timeout for 6 s)"}
    for t in range(0, 30, 5):  # partition 1's offsets move, partition 0 (led by 4) does not
        det.observe(rnd(t, obs(t, part(100, 110 + 10 * t, 1.0 + t, leader=4, n=0),
                               part(10 * t, 10 * t + 1, 0.1, leader=1, n=1))))  # fmt: skip
    assert det.verdicts(26)["pay-1"].verdict == "stalled"
    status = series(det, 26, hung)["consumergroup_status"]
    assert status.label("broker_id") == "4"
    assert "leader of partitions orders/0" in status.details["held_by"]["why"]
    assert culprit(det, 26, {1: "failed (the controller saw it fail)"}) != "1", (
        "broker 1 leads only a partition that keeps up"
    )


def test_all_brokers_healthy_the_group_pages_on_its_own() -> None:
    det = ConsumerGroups(CFG)
    det.observe(rnd(0, obs(0, part(100, 900, 45.0))))
    found = series(det, 1, {})
    assert found["consumergroup_status"].labels == labels(group="pay-1", verdict="lagging")
    assert found["consumergroup_lag_objective_ratio"].labels == labels(group="pay-1")
    assert "held_by" not in found["consumergroup_status"].details
    healthy_elsewhere = {5: "not answering (refused for 9 s)"}
    assert culprit(det, 2, healthy_elsewhere) == "", "an unhealthy broker it does not use"


def test_coordinator_moves_while_held_no_own_page_until_ok() -> None:
    """coordinator-kill: broker 2 coordinates the group and dies; the coordinator moves to 3,
    the group stays behind while it rejoins and catches up: held by 2 all along."""
    det = ConsumerGroups(CFG)
    keeping_up(det, 95)
    seen: list[tuple[float, str]] = []
    for t in (100, 105, 110):
        det.observe(rnd(t, obs(t, error="ListGroups failed: KafkaConnectionError")))
        seen.append((t, culprit(det, t + 1, DOWN)))
    # broker 3 now coordinates it; committed offsets unmoved since 95 and the lag grows
    # past the objective (a ratio above 1: ConsumerGroupLagging's condition but for the label)
    for t in range(115, 160, 5):
        det.observe(rnd(t, obs(t, part(950, 960 + 10 * (t - 95), t - 95.0), coordinator=3)))
        seen.append((t, culprit(det, t + 1, DOWN)))
    assert det.verdicts(156)["pay-1"].verdict in ("stalled", "lagging")
    ratio = series(det, 156, DOWN)["consumergroup_lag_objective_ratio"]
    assert ratio.value > 1 and ratio.label("broker_id") == "2"
    # broker 2 is back; the group consumes again but is still behind its objective
    for t in range(160, 200, 5):
        det.observe(rnd(t, obs(t, part(10 * t - 400, 10 * t, 60.0 - (t - 160) / 2),
                               coordinator=3)))  # fmt: skip
        seen.append((t, culprit(det, t + 1, {})))
    assert det.verdicts(196)["pay-1"].verdict == "lagging"
    assert [t for t, c in seen if c != "2" and t >= 110] == [], seen
    # caught up: OK, no culprit; the hold is remembered (dormant) for the bound
    det.observe(rnd(200, obs(200, part(1995, 2000, 0.5), coordinator=3)))
    assert det.verdicts(201)["pay-1"].verdict == "ok"
    assert culprit(det, 201, {}) == ""
    assert "pay-1" in det.culprits.holds()


def test_held_group_still_behind_after_the_bound_is_released_to_its_owners() -> None:
    det = ConsumerGroups(CFG)
    for t in range(0, 40, 5):
        det.observe(rnd(t, obs(t, part(100, 110 + t, 31.0 + t), members=0)))
    assert culprit(det, 36, DOWN) == "2"
    back = 36.0 + 1
    assert culprit(det, back + RELEASE_AFTER_MIN_S - 1, {}) == "2", "held after the broker"
    assert culprit(det, back + RELEASE_AFTER_MIN_S + 1, {}) == "", "behind on its own"


def test_a_group_paged_on_its_own_is_not_taken_over_by_a_broker_failing_later() -> None:
    det = ConsumerGroups(CFG)
    det.observe(rnd(0, obs(0, part(100, 900, 45.0))))
    assert culprit(det, 1, {}) == "", "its own page"
    assert culprit(det, 2, DOWN) == "", "its coordinator fails after it paged: it keeps it"
    det.observe(rnd(5, obs(5, part(900, 905, 0.5))))
    assert culprit(det, 6, DOWN) == ""
    det.observe(rnd(10, obs(10, part(905, 1800, 40.0))))
    assert culprit(det, 11, DOWN) == "2", "OK in between: the broker is its cause now"


def test_an_idle_group_unreadable_behind_a_dead_coordinator_is_not_held() -> None:
    det = ConsumerGroups(CFG)
    for t in range(0, 20, 5):
        det.observe(rnd(t, obs(t, part(100, 100, 0.0))))
    for t in (20, 25):
        det.observe(rnd(t, obs(t, error="ListGroups failed: KafkaConnectionError")))
    assert det.verdicts(26)["pay-1"].verdict == "unseen"
    assert culprit(det, 26, DOWN) == "", "nothing unread when last seen: nothing held up"


def test_unhealthy_brokers_from_the_pages_series() -> None:
    def s(name: str, value: float, **lbl: str | int) -> Signal:
        return Signal(name, labels(**lbl), value, 0.0)

    found = unhealthy_brokers([
        s("broker_unanswered_seconds", 0.0, broker_id=1, reason="answered"),
        s("broker_unanswered_seconds", 4.0, broker_id=2, reason="timeout"),
        s("broker_unanswered_seconds", 6.0, broker_id=3, reason="timeout"),
        s("broker_unanswered_seconds", 0.5, broker_id=4, reason="refused"),
        s("broker_shutdown_evidence", 1.0, broker_id=4, evidence="crash"),
        s("broker_shutdown_evidence", 1.0, broker_id=5, evidence="controlled_shutdown"),
        s("broker_failures", 1.0, broker_id=6),
        s("coordinator_loads_stuck", 2.0, broker_id=7),
        s("coordinator_loads_stuck", 0.0, broker_id=8),
    ])  # fmt: skip
    assert sorted(found) == [3, 4, 6, 7]
    assert found[3] == "not answering (timeout for 6 s)"
    assert "crashed" in found[4]
    assert "failed" in found[6]
    assert found[7] == "stuck loading 2 __consumer_offsets partitions"


def test_culprits_alone_coordinator_first_then_the_leader_of_the_most_partitions() -> None:
    def verdict(coordinator: int, leaders: list[int]) -> Verdict:
        parts = [{"topic": "t", "partition": i, "leader": b} for i, b in enumerate(leaders)]
        details = {"coordinator": coordinator, "waiting_partitions": parts, "objective_s": 30.0}
        return Verdict("stalled", details, ("stalled",))

    c = Culprits()
    held = c.update({"g": verdict(1, [4, 5, 5])}, {1: "x", 5: "y"}, 0.0)
    assert held["g"].broker_id == 1, "the coordinator first"
    c = Culprits()
    held = c.update({"g": verdict(1, [4, 5, 5])}, {4: "x", 5: "y"}, 0.0)
    assert held["g"].broker_id == 5 and "t/1, t/2" in held["g"].why
    assert c.update({}, {}, 1.0) == {}, "OK: nothing held (the hold dormant)"
    assert c.update({"g": verdict(1, [1])}, {}, 2.0)["g"].broker_id == 5, "behind again: 5's"
