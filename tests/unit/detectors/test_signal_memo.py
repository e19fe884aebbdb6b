"""Signals kept between folds (:mod:`kafka_health.detectors.memo`): asked again, a detector
gives what it would compute afresh, as its state and the clock move."""

from __future__ import annotations

from tests.support.detector_support import batch, by_name, event, failed, ok, part

from kafka_health.config import JobConfig
from kafka_health.detectors.elections import Elections
from kafka_health.detectors.incidents import Incidents
from kafka_health.detectors.isr import Isr
from kafka_health.detectors.memo import SignalMemo
from kafka_health.detectors.write_path import WritePath
from kafka_health.model import Signal, labels

T0 = 1_700_000_000_000  # a slide boundary (ms)


def test_computed_once_per_key_until_cleared() -> None:
    memo, calls = SignalMemo(), []

    def compute() -> list[Signal]:
        calls.append(1)
        return [Signal("x", (), float(len(calls)), 0.0)]

    assert memo.get(1, compute)[0].value == 1
    assert memo.get(1, compute)[0].value == 1
    assert memo.get(2, compute)[0].value == 2, "another key computes"
    memo.clear()
    assert memo.get(2, compute)[0].value == 3, "a cleared memo computes"
    memo.get(2, compute).clear()
    assert memo.get(2, compute), "the kept list is not the caller's"


def elections_total(d: Elections, now: float) -> float:
    return by_name(d.signals(now), "leader_elections_per_minute")[labels()].value


def test_a_snapshot_election_leaves_the_count_with_the_clock_between_folds() -> None:
    d = Elections(JobConfig(window_s=60.0))
    d.fold(batch(cluster=[part(T0, "orders", 0, 1, [1, 2, 3], epoch=4)]), 100.0)
    d.fold(batch(cluster=[part(T0 + 10_000, "orders", 0, 2, [1, 2, 3], epoch=5)]), 110.0)
    assert elections_total(d, 110.0) == 1
    assert elections_total(d, 169.0) == 1
    assert elections_total(d, 171.0) == 0, "seen 61 s ago, no fold since"
    d.fold(batch(events=[event("leader_change", "2", T0 + 70_000, topic="orders",
                               partition=1, leader=2, leader_epoch=3)]), 172.0)  # fmt: skip
    assert elections_total(d, 172.0) == 1, "a fold's news counts at once"
    again = Elections(JobConfig(window_s=60.0))
    again.restore(d.state())
    assert again.signals(173.0) == d.signals(173.0)


def test_write_path_signals_follow_each_fold() -> None:
    d = WritePath(JobConfig())
    d.fold(batch(outcomes=[ok(0, 1, T0), ok(1, 2, T0 + 100)]), 0.0)
    assert by_name(d.signals(1.0), "canary_sends")[labels()].value == 2
    d.fold(batch(outcomes=[failed(1, 3, T0 + 200, "Timeout")]), 1.0)
    s = d.signals(2.0)
    assert by_name(s, "canary_sends")[labels()].value == 3
    assert by_name(s, "canary_send_failures")[labels(error_class="Timeout")].value == 1
    again = WritePath(JobConfig())
    again.restore(d.state())
    assert again.signals(3.0) == d.signals(3.0)


def test_incident_counts_follow_each_fold() -> None:
    d = Incidents(JobConfig())
    d.fold(batch(events=[event("not_leader", "1", T0)]), 0.0)
    assert by_name(d.signals(1.0), "not_leader_errors")[labels(broker_id=1)].value == 1
    d.fold(batch(events=[event("not_leader", "1", T0 + 100)]), 1.0)
    assert by_name(d.signals(2.0), "not_leader_errors")[labels(broker_id=1)].value == 2
    again = Incidents(JobConfig())
    again.restore(d.state())
    assert again.signals(3.0) == d.signals(3.0)


def test_isr_signals_follow_each_fold_and_carry_the_time_asked() -> None:
    d = Isr(JobConfig())
    d.fold(batch(cluster=[part(T0, "orders", 0, 1, [1, 2, 3])]), 0.0)
    urp = by_name(d.signals(1.0), "under_replicated_partitions")[labels()]
    assert urp.value == 0 and urp.at == 1.0
    d.fold(batch(events=[event("isr_shrink", "1", T0 + 100, topic="orders", partition=0,
                               isr_after=(1,))]), 2.0)  # fmt: skip
    urp = by_name(d.signals(3.0), "under_replicated_partitions")[labels()]
    assert urp.value == 1 and urp.at == 3.0, "a fold's news counts at once"
    assert by_name(d.signals(4.0), "under_replicated_partitions")[labels()].at == 4.0
    again = Isr(JobConfig())
    again.restore(d.state())
    assert again.signals(5.0) == d.signals(5.0)
