"""Write-path detector timelines: quantiles, availability by error class, the sliding window."""

from __future__ import annotations

import pytest
from tests.support.detector_support import batch, by_name, failed, ok

from kafka_health.config import JobConfig
from kafka_health.detectors.write_path import WritePath
from kafka_health.model import labels

T0 = 1_700_000_000_000  # a slide boundary (ms)


def test_exact_quantiles_per_cluster_broker_and_partition() -> None:
    d = WritePath(JobConfig())
    outcomes = [
        ok(i % 4, i, T0 + i * 5, latency_s=(i + 1) / 1000, leader=1 if i % 4 < 2 else 2)
        for i in range(1000)
    ]
    d.fold(batch(outcomes=outcomes[:500]), 0.0)  # two batches: same figures as one
    d.fold(batch(outcomes=outcomes[500:]), 1.0)
    s = d.signals(2.0)
    latency = by_name(s, "canary_ack_latency_seconds")
    assert latency[labels(quantile="0.5")].value == 0.5
    assert latency[labels(quantile="0.99")].value == 0.99
    assert latency[labels(quantile="max")].value == 1.0
    assert latency[labels(broker_id=1, partition=0, quantile="0.5")].value == pytest.approx(0.497)
    assert by_name(s, "canary_sends")[labels(broker_id=2)].value == 500
    assert latency[labels(quantile="0.5")].at == (T0 + 10_000) / 1000, "window end"


def test_failures_by_error_class_and_availability() -> None:
    d = WritePath(JobConfig())
    d.fold(batch(outcomes=[ok(0, 1, T0), ok(1, 2, T0 + 100, leader=2)]), 0.0)
    d.fold(batch(outcomes=[failed(1, 3, T0 + 200, "Timeout", leader=2),
                           failed(1, 4, T0 + 300, None, leader=2)]), 1.0)  # fmt: skip
    s = d.signals(2.0)
    failures = by_name(s, "canary_send_failures")
    assert failures[labels(broker_id=2, error_class="Timeout")].value == 1
    assert failures[labels(error_class="Unknown")].value == 1
    ratio = by_name(s, "canary_availability_ratio")
    assert ratio[labels(broker_id=1)].value == 1.0
    assert ratio[labels(broker_id=2)].value == pytest.approx(1 / 3)
    assert ratio[labels()].details == {"failures": {"Timeout": 1, "Unknown": 1}, "sends": 4}


def test_old_outcomes_leave_the_window_and_acks1_is_not_counted() -> None:
    d = WritePath(JobConfig(window_s=60, slide_s=10))
    d.fold(batch(outcomes=[failed(0, 1, T0, "NotLeaderOrFollower"), ok(0, 2, T0, acks="1")]), 0.0)
    assert by_name(d.signals(0.0), "canary_sends")[labels()].value == 1
    d.fold(batch(outcomes=[ok(0, 3, T0 + 55_000)]), 55.0)  # window [T0, T0+60 s): still in
    assert by_name(d.signals(55.0), "canary_sends")[labels()].value == 2
    d.fold(batch(outcomes=[ok(0, 4, T0 + 61_000)]), 61.0)  # window [T0+10 s, T0+70 s)
    s = d.signals(61.0)
    assert by_name(s, "canary_sends")[labels()].value == 2
    assert by_name(s, "canary_availability_ratio")[labels()].value == 1.0


def test_a_dead_follower_does_not_fail_the_leaders_it_follows() -> None:
    """Broker 3 dies: acks=all probes to every partition time out (broker 3 follows them all)
    until the controller removes it from the ISR, but acks=1 probes to brokers 1 and 2 are
    acknowledged: only broker 3, whose own acks=1 probe fails too, loses availability."""
    d = WritePath(JobConfig())
    outcomes = []
    for i, leader in enumerate((1, 2, 3)):
        for t in range(0, 6_000, 1_000):
            outcomes.append(failed(i, t, T0 + t + 5, "Timeout", leader=leader))
            if leader == 3:
                outcomes.append(failed(i, 100 + t, T0 + t, "Timeout", leader=3, acks="1"))
            else:
                outcomes.append(ok(i, 100 + t, T0 + t, acks="1", leader=leader))
    d.fold(batch(outcomes=outcomes), 0.0)
    s = d.signals(1.0)
    ratio = by_name(s, "canary_availability_ratio")
    assert ratio[labels(broker_id=3)].value == 0.0
    assert labels(broker_id=1) not in ratio and labels(broker_id=2) not in ratio
    assert ratio[labels()].details == {"failures": {"Timeout": 6}, "sends": 6}
    waits = by_name(s, "canary_follower_wait_failures")[labels()]
    assert waits.value == 12 and waits.details == {"partitions": [0, 1]}


def test_a_hung_leader_fails_both_acks_modes_and_is_its_own_failure() -> None:
    d = WritePath(JobConfig())
    d.fold(batch(outcomes=[failed(0, 1, T0, "Timeout", leader=1),
                           failed(0, 2, T0 + 3, "Timeout", leader=1, acks="1"),
                           failed(1, 3, T0, "NotEnoughReplicas", leader=2),
                           ok(1, 4, T0 + 2, acks="1", leader=2)]), 0.0)  # fmt: skip
    s = d.signals(1.0)
    ratio = by_name(s, "canary_availability_ratio")
    assert ratio[labels(broker_id=1)].value == 0.0
    assert ratio[labels(broker_id=2)].value == 0.0, "the leader's own answer: not a wait"
    assert by_name(s, "canary_follower_wait_failures")[labels()].value == 0


def test_state_round_trip_gives_the_same_signals() -> None:
    d = WritePath(JobConfig())
    d.fold(batch(outcomes=[ok(0, 1, T0), failed(1, 2, T0 + 5, "Timeout")]), 0.0)
    again = WritePath(JobConfig())
    again.restore(d.state())
    assert again.signals(1.0) == d.signals(1.0)


def test_availability_is_over_the_last_20_s_so_a_broker_back_is_available_again_soon() -> None:
    d = WritePath(JobConfig(window_s=60, slide_s=10, availability_window_s=20))
    d.fold(batch(outcomes=[failed(0, s, T0 + s * 1000, "Timeout", leader=3) for s in range(2)]),
           0.0)  # fmt: skip
    s = d.signals(0.0)
    assert by_name(s, "canary_availability_ratio")[labels(broker_id=3)].value == 0.0
    d.fold(batch(outcomes=[ok(0, s, T0 + s * 1000, leader=3) for s in range(2, 31)]), 31.0)
    s = d.signals(31.0)  # window [T0-20 s, T0+40 s): the failures are still in it ...
    assert by_name(s, "canary_send_failures")[labels(broker_id=3, error_class="Timeout")].value == 2
    ratio = by_name(s, "canary_availability_ratio")[labels(broker_id=3)]
    assert ratio.value == 1.0, "... but not in its last 20 s"
    assert ratio.details == {"failures": {}, "sends": 11}, "sends at T0+20 s .. T0+30 s"


def test_a_leader_that_handed_its_partition_on_is_not_failing() -> None:
    """After broker 3 came back, the preferred leader election moved partition 2 from broker
    1 back to 3: the probes broker 1 refused with NotLeader in between are leadership moving,
    not broker 1 failing (seen in the fault suite as a CanaryWriteFailure for broker 1 after
    a thaw). A NotLeader with no other leader acknowledging afterwards still counts."""
    d = WritePath(JobConfig())
    d.fold(batch(outcomes=[ok(2, 1, T0, leader=1),
                           failed(2, 2, T0 + 1000, "NotLeaderOrFollower", leader=1),
                           failed(2, 3, T0 + 2000, "NotLeaderOrFollower", leader=1),
                           ok(2, 4, T0 + 3000, leader=3),
                           failed(0, 5, T0 + 1000, "NotLeaderOrFollower", leader=2),
                           failed(0, 6, T0 + 2000, "NotLeaderOrFollower", leader=2),
                           ok(0, 7, T0 + 3000, leader=2)]), 0.0)  # fmt: skip
    s = d.signals(1.0)
    ratio = by_name(s, "canary_availability_ratio")
    assert ratio[labels(broker_id=1)].value == 1.0
    assert ratio[labels(broker_id=2)].value == 1.0, "too recent to tell: another may take it"
    failures = by_name(s, "canary_send_failures")
    assert labels(broker_id=1, error_class="NotLeaderOrFollower") not in failures, (
        "retried on the new leader by any producer: no error class for an alert to carry"
    )
    d.fold(batch(outcomes=[ok(0, 8, T0 + 12_000, leader=2)]), 13.0)
    s = d.signals(13.0)
    ratio = by_name(s, "canary_availability_ratio")
    assert ratio[labels(broker_id=1)].value == 1.0
    assert ratio[labels(broker_id=2)].value == pytest.approx(2 / 4), "no other leader took it"
    failures = by_name(s, "canary_send_failures")
    assert failures[labels(broker_id=2, error_class="NotLeaderOrFollower")].value == 2
