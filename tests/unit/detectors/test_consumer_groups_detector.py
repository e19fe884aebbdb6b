"""Consumer-group verdicts over timelines of the poller's rounds: each verdict, recovery, a
group that disappears, the caps and the series' shapes."""

from __future__ import annotations

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
    PartitionOffsets,
)
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.model import SIGNALS, LabelSet, Signal, labels

PAY = GroupObjective("pay.*", lag_objective_s=30.0, severity="critical", labels={"team": "pay"})
CFG = ConsumerGroupsConfig(
    interval_s=5.0, stall_window_s=60.0, rebalance_max_s=30.0, churn_generations=3,
    churn_window_s=120.0, forget_after_s=60.0, objectives=[PAY],
)  # fmt: skip


def part(committed: int | None, log_end: int | None, lag_s: float | None = None,
         log_start: int = 0, n: int = 0, topic: str = "orders",
         leader: int | None = 1) -> PartitionOffsets:  # fmt: skip
    return PartitionOffsets(topic, n, committed, log_start, log_end, leader, lag_s,
                            "unknown" if lag_s is None else "interpolated")  # fmt: skip


def obs(at_s: float, *parts: PartitionOffsets, members: int = 1, state: str = "Stable",
        generation: int = 1, group: str = "pay-1",
        error: str | None = None) -> GroupObservation:  # fmt: skip
    return GroupObservation(group, round(at_s * 1000), state, members, generation=generation,
                            coordinator=2, partitions=parts, error=error)  # fmt: skip


def rnd(at_s: float, *groups: GroupObservation, error: str | None = None) -> GroupsRound:
    return GroupsRound(round(at_s * 1000), tuple(groups), error)


def feed(det: ConsumerGroups, *rounds: GroupsRound) -> ConsumerGroups:
    for r in rounds:
        det.observe(r)
    return det


def verdict(det: ConsumerGroups, now: float, group: str = "pay-1") -> str:
    return det.verdicts(now)[group].verdict


def named(det: ConsumerGroups, now: float, name: str) -> dict[LabelSet, Signal]:
    return {s.labels: s for s in det.signals(now) if s.name == name}


# ---------------------------------------------------------------- ok, lagging and recovery


def test_a_keeping_up_group_is_ok_with_its_group_series_and_no_partition_series() -> None:
    det = feed(ConsumerGroups(CFG), *(rnd(t, obs(t, part(10 * t, 10 * t + 3, 0.3)))
                                      for t in range(0, 30, 5)))  # fmt: skip
    assert verdict(det, 26) == "ok"
    sigs = det.signals(26)
    names = {s.name for s in sigs}
    assert {"consumergroup_max_lag", "consumergroup_sum_lag", "consumergroup_members",
            "consumergroup_max_lag_seconds", "consumergroup_status",
            "consumergroup_deleted_unread_records_total",
            "consumer_groups_last_round_timestamp"} <= names  # fmt: skip
    assert "consumergroup_lag" not in names and "consumergroup_lag_seconds" not in names
    status = named(det, 26, "consumergroup_status")
    assert list(status) == [labels(group="pay-1", verdict="ok")], "the current verdict only"
    assert named(det, 26, "consumergroup_max_lag")[labels(group="pay-1")].value == 3
    assert named(det, 26, "consumer_groups_last_round_timestamp")[()].value == 25.0
    for s in sigs:
        assert set(dict(s.labels)) <= set(SIGNALS[s.name].labels), s


def test_lagging_above_its_objective_with_owners_then_back_to_ok() -> None:
    det = feed(ConsumerGroups(CFG), rnd(0, obs(0, part(100, 900, 40.0, leader=3))))
    assert verdict(det, 1) == "lagging"
    d = det.verdicts(1)["pay-1"].details
    assert (d["objective_s"], d["severity"], d["labels"]) == (30.0, "critical", {"team": "pay"})
    assert d["max_lag_s"] == 40.0 and d["max_lag"] == 800 and d["lagging_leaders"] == [3]
    assert d["worst_partitions"][0]["lag_s"] == 40.0 and d["coordinator"] == 2
    assert det.verdicts(4)["pay-1"].details["for_s"] == 4.0, "lagging since the round at 0"
    scope = labels(group="pay-1", topic="orders", partition=0)
    assert named(det, 1, "consumergroup_lag_seconds")[scope].value == 40.0
    assert named(det, 1, "consumergroup_lag")[scope].value == 800

    det.observe(rnd(5, obs(5, part(900, 905, 0.5))))
    assert verdict(det, 6) == "ok"
    assert not named(det, 6, "consumergroup_lag"), "per-partition series only when not OK"


def test_default_objective_for_a_group_no_pattern_matches() -> None:
    det = feed(ConsumerGroups(CFG), rnd(0, obs(0, part(0, 10, 100.0), group="other")))
    assert verdict(det, 1, "other") == "ok", "the default objective is 300 s"
    assert det.verdicts(1)["other"].details["severity"] == "warning"


# ---------------------------------------------------------------- stalled and stopped


def test_members_present_offsets_unmoved_lag_growing_is_stalled_after_the_window() -> None:
    det = ConsumerGroups(CFG)
    for t in range(0, 60, 5):
        det.observe(rnd(t, obs(t, part(100, 110 + t, min(float(t), 20.0)))))
    assert verdict(det, 56) == "ok", "55 s without progress: under stall_window_s"
    det.observe(rnd(60, obs(60, part(100, 170, 20.0))))
    v = det.verdicts(61)["pay-1"]
    assert v.verdict == "stalled" and v.details["no_progress_for_s"] == 60.0
    assert v.details["waiting_partitions"][0]["leader"] == 1
    det.observe(rnd(65, obs(65, part(175, 176, 0.1))))
    assert verdict(det, 66) == "ok", "progress again"


def test_a_stall_stays_visible_when_the_partitions_leader_stops_answering() -> None:
    """The cause of a stall is often the partition's leader: its offsets unread, the last ones
    stand (the time lag a lower bound, grown by the time since)."""
    det = ConsumerGroups(CFG)
    for t in range(0, 65, 5):
        det.observe(rnd(t, obs(t, part(100, 110 + t, float(t), leader=4))))
    assert verdict(det, 61) == "stalled"
    det.observe(rnd(65, obs(65, part(100, None, None, leader=None))))
    v = det.verdicts(66)["pay-1"]
    assert v.verdict == "stalled" and v.details["lagging_leaders"] == [4]
    w = v.details["waiting_partitions"][0]
    assert (w["lag"], w["lag_s"], w["lag_basis"], w["leader"]) == (70, 65.0, "extrapolated", 4)


def test_members_present_and_nothing_waiting_is_not_stalled() -> None:
    """Burrow's false STOP (issues 38, 140, 303): a quiet partition, commits rare. Here lag 0
    is never a stall, however long since the last commit."""
    det = feed(ConsumerGroups(CFG), *(rnd(t, obs(t, part(500, 500, 0.0)))
                                      for t in range(0, 600, 5)))  # fmt: skip
    assert verdict(det, 601) == "ok"


def test_infrequent_commits_on_a_busy_partition_are_not_a_stall() -> None:
    """Commits every 30 s (stall window 60 s), the consumer catching up at each."""
    det = ConsumerGroups(CFG)
    for t in range(0, 300, 5):
        committed = 10 * (t - t % 30)
        det.observe(rnd(t, obs(t, part(committed, 10 * t + 5, float(t % 30) + 0.5))))
        assert verdict(det, t) == "ok", t


def test_no_members_lag_growing_is_stopped_and_its_lag_keeps_growing() -> None:
    """Burrow's zero/stale lag for a stopped group (issues 58, 113, 126, 287): here the log end
    is read every round, so the lag of a stopped group grows with it."""
    det = ConsumerGroups(CFG)
    det.observe(rnd(0, obs(0, part(100, 100, 0.0))))
    det.observe(rnd(5, obs(5, part(100, 150, 4.0), members=0, state="Empty")))
    assert verdict(det, 6) == "ok", "one round of records waiting: not yet"
    lags = []
    for t in (10, 15, 20):
        det.observe(rnd(t, obs(t, part(100, 100 + 10 * t, t - 1.0), members=0, state="Empty")))
        assert verdict(det, t) == "stopped"
        lags.append(named(det, t, "consumergroup_max_lag")[labels(group="pay-1")].value)
    assert lags == [100, 150, 200]
    assert named(det, 20, "consumergroup_members")[labels(group="pay-1")].value == 0
    det.observe(rnd(25, obs(25, part(300, 300, 0.0), members=2)))
    assert verdict(det, 26) == "ok"


def test_an_empty_group_with_nothing_to_read_is_ok() -> None:
    det = feed(ConsumerGroups(CFG), *(rnd(t, obs(t, part(50, 50, 0.0), members=0, state="Empty"))
                                      for t in range(0, 100, 5)))  # fmt: skip
    assert verdict(det, 100) == "ok"


# ---------------------------------------------------------------- rewound, rebalancing


def test_a_rewind_holds_until_the_offset_is_back_or_the_window_passes() -> None:
    det = ConsumerGroups(CFG)
    det.observe(rnd(0, obs(0, part(500, 510, 1.0))))
    det.observe(rnd(5, obs(5, part(200, 515, 1.0))))
    v = det.verdicts(6)["pay-1"]
    assert v.verdict == "rewound"
    assert v.details["rewinds"][0] | {"at": 0} == {"topic": "orders", "partition": 0,
                                                   "from": 500, "to": 200, "at": 0}  # fmt: skip
    det.observe(rnd(10, obs(10, part(400, 520, 1.0))))
    assert verdict(det, 11) == "rewound", "not back at 500 yet"
    det.observe(rnd(15, obs(15, part(505, 525, 1.0))))
    assert verdict(det, 16) == "ok", "recovered (Burrow's rule)"

    det.observe(rnd(20, obs(20, part(100, 530, 1.0))))
    for t in range(25, 95, 5):
        det.observe(rnd(t, obs(t, part(100 + t, 100 + t + 1, 0.1))))
    assert verdict(det, 95) == "ok", "the rewind left the window (stall_window_s)"


def test_rebalancing_too_long_and_too_often() -> None:
    det = ConsumerGroups(CFG)
    for t in range(0, 35, 5):
        det.observe(rnd(t, obs(t, part(t, t, 0.0), state="PreparingRebalance")))
    assert verdict(det, 31) == "ok", "30 s not Stable: not longer than rebalance_max_s"
    det.observe(rnd(35, obs(35, part(35, 35, 0.0), state="CompletingRebalance")))
    assert verdict(det, 36) == "rebalancing"
    assert det.verdicts(36)["pay-1"].details["rebalancing_for_s"] == 35.0
    det.observe(rnd(40, obs(40, part(40, 40, 0.0))))
    assert verdict(det, 41) == "ok"

    churn = ConsumerGroups(CFG)
    for i, t in enumerate(range(0, 25, 5)):
        churn.observe(rnd(t, obs(t, part(t, t, 0.0), generation=i + 1)))
    assert churn.verdicts(21)["pay-1"].details["generations_in_window"] == 4
    assert verdict(churn, 21) == "rebalancing", "4 new generations in 120 s > 3"
    for t in range(25, 150, 5):
        churn.observe(rnd(t, obs(t, part(t, t, 0.0), generation=5)))
    assert verdict(churn, 150) == "ok", "the changes left churn_window_s"


# ---------------------------------------------------------------- behind retention


def test_behind_retention_counts_each_deleted_range_once_and_outranks_stopped() -> None:
    det = ConsumerGroups(CFG)
    det.observe(rnd(0, obs(0, part(100, 400, 50.0, log_start=150), members=0)))
    det.observe(rnd(5, obs(5, part(100, 450, 55.0, log_start=180), members=0)))
    v = det.verdicts(6)["pay-1"]
    assert v.verdict == "behind_retention" and "stopped" in v.holds
    assert v.details["deleted_unread_now"] == 80 and v.details["deleted_unread_total"] == 80
    total = named(det, 6, "consumergroup_deleted_unread_records_total")
    assert total[labels(group="pay-1")].value == 80, "50, then 30 more: not 50 + 80"
    det.observe(rnd(10, obs(10, part(100, 450, 60.0, log_start=180), members=0)))
    assert det.verdicts(11)["pay-1"].details["deleted_unread_total"] == 80, "same range"
    det.observe(rnd(15, obs(15, part(180, 450, 40.0, log_start=180), members=1)))
    assert verdict(det, 16) == "lagging", "reset to the log start: no longer losing data"
    assert named(det, 16, "consumergroup_deleted_unread_records_total")[
        labels(group="pay-1")].value == 80, "the counter never goes down"  # fmt: skip


# ---------------------------------------------------------------- unseen, gone, blind


def test_a_group_whose_rounds_fail_is_unseen_never_ok_and_its_lag_left_out() -> None:
    det = feed(ConsumerGroups(CFG), rnd(0, obs(0, part(10, 10, 0.0))))
    det.observe(rnd(5, obs(5, group="pay-1", error="COORDINATOR_NOT_AVAILABLE")))
    assert verdict(det, 6) == "ok", "one failed round: the last evidence stands"
    det.observe(rnd(10, obs(10, group="pay-1", error="COORDINATOR_NOT_AVAILABLE")))
    v = det.verdicts(11)["pay-1"]
    assert v.verdict == "unseen" and v.details["last_known"] == "ok"
    assert v.details["error"] == "COORDINATOR_NOT_AVAILABLE"
    names = {s.name for s in det.signals(11) if s.label("group") == "pay-1"}
    assert names == {"consumergroup_status", "consumergroup_deleted_unread_records_total"}
    det.observe(rnd(15, obs(15, part(10, 10, 0.0))))
    assert verdict(det, 16) == "ok"


def test_failed_rounds_and_a_blind_poller_make_every_group_unseen() -> None:
    det = feed(ConsumerGroups(CFG), rnd(0, obs(0, part(10, 10, 0.0))))
    det.observe(rnd(5, error="timeout"))
    assert named(det, 6, "consumer_groups_round_failing")[()].value == 1
    det.observe(rnd(10, error="timeout"))
    assert verdict(det, 11) == "unseen"

    quiet = feed(ConsumerGroups(CFG), rnd(0, obs(0, part(10, 10, 0.0))))
    assert verdict(quiet, 15) == "ok"
    assert verdict(quiet, 15.5) == "unseen", "three intervals without a round: blind"
    assert named(quiet, 15.5, "consumergroup_status")[
        labels(group="pay-1", verdict="unseen")].value == 1  # fmt: skip
    assert named(quiet, 15.5, "consumer_groups_last_round_timestamp")[()].value == 0.0


def test_a_deleted_group_is_unseen_then_forgotten_a_failed_round_forgets_none() -> None:
    det = feed(ConsumerGroups(CFG), rnd(0, obs(0, part(10, 10, 0.0))))
    for t in range(5, 60, 5):
        det.observe(rnd(t, error="timeout"))
    det.observe(rnd(60, obs(60, part(10, 10, 0.0), group="pay-2")))
    assert det.groups() == ["pay-1", "pay-2"], "failed rounds say nothing of its absence"
    for t in range(65, 125, 5):
        det.observe(rnd(t, obs(t, part(10, 10, 0.0), group="pay-2")))
    assert verdict(det, 120) == "unseen"
    det.observe(rnd(125, obs(125, part(10, 10, 0.0), group="pay-2")))
    assert det.groups() == ["pay-2"], "absent from the successful rounds over 60 s"
    assert not [s for s in det.signals(126) if s.label("group") == "pay-1"]


# ---------------------------------------------------------------- caps


def test_max_groups_counts_the_rest_and_unwatched_groups_are_not_counted() -> None:
    det = ConsumerGroups(ConsumerGroupsConfig(max_groups=2))
    groups = [obs(0, part(1, 1, 0.0), group=g) for g in ("a", "b", "c", "spark-kafka-source-1")]
    det.observe(rnd(0, *groups))
    assert det.groups() == ["a", "b"]
    assert named(det, 1, "consumer_groups_dropped")[()].value == 1


def test_partition_series_are_capped_worst_groups_first_and_the_rest_counted() -> None:
    cfg = ConsumerGroupsConfig(interval_s=5.0, stall_window_s=5.0, max_partition_series=3,
                               default_objective=GroupObjective(lag_objective_s=10.0))  # fmt: skip
    det = ConsumerGroups(cfg)
    for t in (0, 5):
        det.observe(rnd(t,
            obs(t, part(0, 100, 20.0), part(0, 100, 30.0, n=1), group="a-lagging"),
            obs(t, part(0, 100 + t, 20.0 + t), part(0, 50 + t, 15.0 + t, n=1), group="b-stall"),
        ))  # fmt: skip
    assert verdict(det, 6, "a-lagging") == "lagging" and verdict(det, 6, "b-stall") == "stalled"
    per_partition = ("consumergroup_lag", "consumergroup_lag_seconds")
    out = [s for s in det.signals(6) if s.name in per_partition]
    assert len(out) == 3
    assert {s.label("group") for s in out} == {"b-stall"}, "stalled outranks lagging"
    assert out[0].label("partition") == "0", "the worst partition first"
    assert named(det, 6, "consumergroup_partition_series_dropped")[()].value == 5


def test_worst_partitions_are_at_most_ten() -> None:
    parts = [part(0, 100, float(i), n=i) for i in range(25)]
    det = feed(ConsumerGroups(CFG), rnd(0, obs(0, *parts)))
    d = det.verdicts(1)["pay-1"].details
    assert len(d["worst_partitions"]) == 10 and d["worst_partitions"][0]["lag_s"] == 24.0
    assert d["partitions"] == 25
