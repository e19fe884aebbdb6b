"""What the consumer-group detector keeps from round to round (a group's partition summary
and named offsets while its offsets stand still) gives the series and verdicts a detector that
keeps nothing computes: after a change, after a round that changed nothing, and as the clock
alone moves a group on (stalled, stopped, rebalancing, a rewind aging out, a blind poller,
failed rounds, ``for_s``). And a round folded is not seen until it is installed."""

from __future__ import annotations

from typing import Any

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
    PartitionOffsets,
)
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.model import Signal

CFG = ConsumerGroupsConfig(
    interval_s=5.0, stall_window_s=30.0, rebalance_max_s=20.0, churn_generations=2,
    churn_window_s=40.0, forget_after_s=60.0,
    objectives=[GroupObjective("pay.*", 30.0, "critical", {"team": "pay"})],
)  # fmt: skip


def part(committed: int, log_end: int | None, lag_s: float | None, n: int = 0,
         leader: int | None = 1) -> PartitionOffsets:  # fmt: skip
    basis = "unknown" if lag_s is None else "caught_up" if lag_s == 0 else "interpolated"
    return PartitionOffsets("orders", n, committed, 0, log_end, leader, lag_s, basis)


def obs(at_s: float, *parts: PartitionOffsets, group: str = "pay-1", members: int = 1,
        state: str = "Stable", generation: int = 1) -> GroupObservation:  # fmt: skip
    return GroupObservation(group, round(at_s * 1000), state, members, generation=generation,
                            coordinator=2, partitions=parts)  # fmt: skip


def rnd(at_s: float, *groups: GroupObservation, error: str | None = None) -> GroupsRound:
    return GroupsRound(round(at_s * 1000), groups, error)


def shown(signals: list[Signal]) -> list[tuple[Any, ...]]:
    """Everything a series carries (``Signal``'s own equality leaves the details out)."""
    return [(s.name, s.labels, s.value, s.at, s.details) for s in signals]


Step = GroupsRound | float
"""A round fed, or the series asked for at that time."""


def recomputed(steps: list[Step]) -> tuple[ConsumerGroups, list[Signal]]:
    """A detector that keeps nothing, taken through the same steps: every summary and named
    partition made again at every round. Returns it and its last series."""
    det = ConsumerGroups(CFG)
    out: list[Signal] = []
    for step in steps:
        if not isinstance(step, GroupsRound):
            out = det.signals(step)
            continue
        for track in det._groups.values():
            track.scanned = None
            for p in track.partitions.values():
                p.named = None
        det.observe(step)
    return det, out


class Timeline:
    """A detector fed round by round and asked at every step, each answer checked against
    :func:`recomputed` on the same steps (the series of a round are made at the first call
    after it: ``for_s`` as of then, in both)."""

    def __init__(self) -> None:
        self.det = ConsumerGroups(CFG)
        self.steps: list[Step] = []

    def feed(self, r: GroupsRound, now: float) -> str:
        self.steps.append(r)
        self.det.observe(r)
        return self.check(now)

    def check(self, now: float, group: str = "pay-1") -> str:
        self.steps.append(now)
        fresh, expected = recomputed(self.steps)
        assert shown(self.det.signals(now)) == shown(expected)
        assert self.det.verdicts(now) == fresh.verdicts(now)
        return self.det.verdicts(now)[group].verdict


def scan_of(det: ConsumerGroups, group: str = "pay-1") -> object:
    return det._groups[group].scanned


# ---------------------------------------------------------------- a change, and no change


def test_a_change_then_rounds_that_change_nothing_show_what_a_recomputation_shows() -> None:
    line = Timeline()
    assert line.feed(rnd(0, obs(0, part(100, 100, 0.0), part(50, 60, 2.0, n=1))), 1) == "ok"
    assert line.feed(rnd(5, obs(5, part(120, 120, 0.0), part(60, 60, 0.0, n=1))), 6) == "ok"
    kept = scan_of(line.det)
    for t in (10, 15, 20):  # caught up, nothing written: the same offsets
        assert line.feed(rnd(t, obs(t, part(120, 120, 0.0), part(60, 60, 0.0, n=1))), t) == "ok"
        assert scan_of(line.det) is kept, "the partitions' summary is kept"
    status = next(s for s in line.det.signals(21) if s.name == "consumergroup_status")
    assert status.at == 20.0 and status.details["observed_at"] == 20.0, "observed again"
    assert status.details["for_s"] == 20.0, "ok since the round at 0 (as of the call at 20)"
    assert len(status.details["recent_rounds"]) == 5
    assert line.det.verdicts(21)["pay-1"].details["for_s"] == 21.0

    assert line.feed(rnd(25, obs(25, part(120, 180, 40.0), part(60, 60, 0.0, n=1))), 26) == (
        "lagging"
    )
    assert scan_of(line.det) is not kept, "an offset moved: summarised again"
    worst = line.det.verdicts(26)["pay-1"].details["worst_partitions"]
    assert [(w["partition"], w["lag"], w["lag_s"]) for w in worst] == [(0, 60, 40.0)]


def test_partitions_in_another_order_or_a_new_one_are_summarised_again() -> None:
    line = Timeline()
    line.feed(rnd(0, obs(0, part(10, 10, 0.0), part(20, 20, 0.0, n=1))), 1)
    kept = scan_of(line.det)
    line.feed(rnd(5, obs(5, part(20, 20, 0.0, n=1), part(10, 10, 0.0))), 6)
    assert scan_of(line.det) is not kept
    line.feed(rnd(10, obs(10, part(20, 20, 0.0, n=1), part(10, 10, 0.0), part(5, 9, 1.0, n=2))),
              11)  # fmt: skip
    assert line.det.verdicts(11)["pay-1"].details["partitions"] == 3
    line.feed(rnd(15, obs(15, part(10, 10, 0.0))), 16)
    assert line.det.verdicts(16)["pay-1"].details["partitions"] == 1


# ---------------------------------------------------------------- the clock alone


def test_offsets_that_do_not_move_still_go_stalled_as_time_passes() -> None:
    """Committed offset and log end unmoved, records waiting: the poller's time lag grows
    with the clock; after stall_window_s the group is stalled, and stays so."""
    line = Timeline()
    verdicts = [line.feed(rnd(t, obs(t, part(100, 150, 1.0 + t / 5))), t + 1)
                for t in range(0, 60, 5)]  # fmt: skip
    assert verdicts[:6] == ["ok"] * 6, "waiting under 30 s"
    assert set(verdicts[6:]) == {"stalled"}
    assert line.det.verdicts(61)["pay-1"].details["no_progress_for_s"] == 55.0


def test_a_stalled_group_whose_leader_stops_answering_stays_stalled() -> None:
    line = Timeline()
    for t in range(0, 40, 5):
        line.feed(rnd(t, obs(t, part(100, 150, 1.0 + t / 5, leader=3))), t + 1)
    for t in range(40, 60, 5):  # the log end unread: the last one stands, its lag ages
        assert line.feed(rnd(t, obs(t, part(100, None, None, leader=None))), t + 1) == "stalled"
    w = line.det.verdicts(56)["pay-1"].details["waiting_partitions"][0]
    assert (w["lag_basis"], w["lag_s"], w["leader"]) == ("extrapolated", 28.0, 3)


def test_offsets_that_do_not_move_without_members_go_stopped() -> None:
    line = Timeline()
    assert line.feed(rnd(0, obs(0, part(100, 100, 0.0))), 1) == "ok"
    assert line.feed(rnd(5, obs(5, part(100, 140, 4.0), members=0, state="Empty")), 6) == "ok"
    for t in (10, 15, 20):  # nothing more written, nobody reading
        assert line.feed(rnd(t, obs(t, part(100, 140, t - 1.0), members=0, state="Empty")),
                         t + 1) == "stopped"  # fmt: skip


def test_an_unchanged_group_rebalancing_too_long_or_too_often_and_back() -> None:
    line = Timeline()
    steady = (part(10, 10, 0.0),)
    for t in range(0, 25, 5):
        v = line.feed(rnd(t, obs(t, *steady, state="PreparingRebalance")), t)
        assert v == ("rebalancing" if t > 20 else "ok"), t
    assert line.feed(rnd(25, obs(25, *steady, state="PreparingRebalance")), 25) == "rebalancing"
    assert line.feed(rnd(30, obs(30, *steady)), 30) == "ok"

    churn = Timeline()
    for i, t in enumerate(range(0, 20, 5)):
        churn.feed(rnd(t, obs(t, *steady, generation=i + 1)), t)
    assert churn.check(16) == "rebalancing", "3 new generations in 40 s > 2"
    verdicts = [churn.feed(rnd(t, obs(t, *steady, generation=4)), t) for t in range(20, 60, 5)]
    assert verdicts[0] == "rebalancing" and verdicts[-1] == "ok", "the changes left the window"


def test_a_rewind_ages_out_with_the_offsets_unmoved() -> None:
    """A committed offset back from 500 to 200, then nothing moves (time lag unknown): the
    rewind holds stall_window_s, then the group is ok again on the clock alone."""
    line = Timeline()
    line.feed(rnd(0, obs(0, part(500, 510, None))), 1)
    verdicts = [line.feed(rnd(t, obs(t, part(200, 510, None))), t) for t in range(5, 50, 5)]
    assert verdicts[:6] == ["rewound"] * 6 and verdicts[-1] == "ok"
    kept = scan_of(line.det)
    line.feed(rnd(50, obs(50, part(200, 510, None))), 50)
    assert scan_of(line.det) is kept, "nothing left to age: the summary is kept again"


def test_a_blind_poller_and_for_s_move_with_the_clock_between_rounds() -> None:
    line = Timeline()
    line.feed(rnd(0, obs(0, part(10, 10, 0.0))), 1)
    line.feed(rnd(5, obs(5, part(10, 10, 0.0))), 6)
    fors = [line.det.verdicts(t)["pay-1"].details["for_s"] for t in (6, 10, 20)]
    assert fors == [6.0, 10.0, 20.0]
    assert line.check(20) == "ok"
    assert line.check(20.5) == "unseen", "three intervals without a round"
    assert line.check(21) == "unseen"
    assert line.feed(rnd(25, obs(25, part(10, 10, 0.0))), 26) == "ok"


# ---------------------------------------------------------------- no new observation


def test_failed_rounds_keep_a_groups_last_evidence_until_it_is_unseen() -> None:
    line = Timeline()
    line.feed(rnd(0, obs(0, part(10, 30, 40.0), part(5, 5, 0.0, n=1))), 1)
    kept = scan_of(line.det)
    assert line.feed(rnd(5, error="timeout"), 6) == "lagging", "one failed round"
    lag = [s for s in line.det.signals(6) if s.name == "consumergroup_max_lag"]
    assert [(s.value, s.at) for s in lag] == [(20.0, 0.0)], "as last observed"
    assert line.feed(rnd(10, error="timeout"), 11) == "unseen"
    assert not [s for s in line.det.signals(11) if s.name == "consumergroup_max_lag"]
    assert line.feed(rnd(15, obs(15, part(10, 30, 55.0), part(5, 5, 0.0, n=1))), 16) == "lagging"
    assert scan_of(line.det) is not kept
    assert line.feed(rnd(20, obs(20, part(30, 30, 0.0), part(5, 5, 0.0, n=1))), 21) == "ok"


# ---------------------------------------------------------------- fold, then install


def test_a_folded_round_is_not_seen_until_it_is_installed() -> None:
    first = rnd(0, obs(0, part(10, 10, 0.0)))
    second = rnd(5, obs(5, part(10, 90, 40.0)), obs(5, part(1, 1, 0.0), group="pay-2"))
    det = ConsumerGroups(CFG)
    det.observe(first)
    before = shown(det.signals(1))
    folded = det.fold(second)
    assert shown(det.signals(1)) == before and det.groups() == ["pay-1"]
    assert det.verdicts(1)["pay-1"].verdict == "ok"
    det.install(folded)
    assert det.groups() == ["pay-1", "pay-2"]
    assert det.verdicts(6)["pay-1"].verdict == "lagging"
    _, expected = recomputed([first, 1.0, second, 6.0])
    assert shown(det.signals(6)) == shown(expected)
