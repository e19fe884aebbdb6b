"""Loss detector timelines: lost and duplicated acknowledged writes after the grace period."""

from __future__ import annotations

from tests.support.detector_support import batch, by_name, ok, probe

from kafka_health.config import JobConfig
from kafka_health.detectors.loss import Loss
from kafka_health.model import labels

T0 = 1_700_000_000_000


def test_lost_and_duplicate_only_after_the_grace_period() -> None:
    d = Loss(JobConfig(loss_grace_s=5.0, slide_s=10.0))
    acks = [ok(0, s, T0 + s * 10) for s in range(1, 101)]
    seen = [probe(0, s, T0 + s * 10, offset=s) for s in range(1, 101) if s not in (37, 64)]
    seen.append(probe(0, 50, T0 + 500, offset=1000))  # written twice
    d.fold(batch(outcomes=acks[:50], probes=seen[:40]), 1.0)
    d.fold(batch(outcomes=acks[50:], probes=seen[40:]), 2.0)
    assert d.signals(2.0) == [], "the watermark has not passed the grace period yet"
    d.fold(batch(outcomes=[ok(0, 1000, T0 + 60_000)], probes=[probe(0, 1000, T0 + 60_000, 2000)]),
           3.0)  # fmt: skip
    s = d.signals(3.0)
    lost = by_name(s, "canary_lost_writes")[labels(partition=0, acks="all", broker_id="1")]
    assert lost.value == 2 and lost.details["seqs"] == [37, 64]
    dup = by_name(s, "canary_duplicate_writes")[labels(partition=0, acks="all", broker_id="1")]
    assert dup.value == 1 and dup.details["seqs"] == [50]
    assert d.lost_writes() == [(0, "all", 37), (0, "all", 64)]


def test_a_late_probe_copy_does_not_revive_a_verdict_and_reports_expire() -> None:
    job = JobConfig(loss_grace_s=5.0, slide_s=10.0, loss_report_window_s=100.0)
    d = Loss(job)
    d.fold(batch(outcomes=[ok(0, 1, T0), ok(0, 2, T0 + 30_000)]), 10.0)
    d.fold(batch(probes=[probe(0, 2, T0 + 30_000, offset=8)]), 10.5)
    assert d.lost_writes() == [(0, "all", 1)]
    d.fold(batch(probes=[probe(0, 1, T0, offset=7)]), 11.0)  # too late: the verdict stands
    assert d.lost_writes() == [(0, "all", 1)]
    assert by_name(d.signals(200.0), "canary_lost_writes") == {}, "reported for 100 s"


def test_lost_writes_name_the_broker_that_acknowledged_them() -> None:
    """acks=1 writes a leader acknowledged and then lost (it died before a follower copied
    them) belong to that leader's incident; the state keeps the broker across a restart."""
    d = Loss(JobConfig(loss_grace_s=5.0, slide_s=10.0))
    acked = [ok(2, s, T0 + s * 1000, leader=3 if s < 5 else 1, acks="1") for s in range(1, 9)]
    seen = [probe(2, s, T0 + s * 1000, offset=s, acks="1") for s in range(1, 9) if s not in (3, 4)]
    twice = probe(2, 99, T0 + 1000, offset=50), probe(2, 99, T0 + 1000, offset=51)
    d.fold(batch(outcomes=acked, probes=[*seen, *twice]), 1.0)
    restored = Loss(JobConfig(loss_grace_s=5.0, slide_s=10.0))
    restored.restore(d.state())
    late = T0 + 60_000
    for detector in (d, restored):
        later = ok(2, 100, late, acks="1"), probe(2, 100, late, 100, acks="1")
        detector.fold(batch(outcomes=[later[0]], probes=[later[1]]), 2.0)
        s = detector.signals(2.0)
        lost = by_name(s, "canary_lost_writes")
        assert list(lost) == [labels(partition=2, acks="1", broker_id="3")]
        assert lost[labels(partition=2, acks="1", broker_id="3")].details["seqs"] == [3, 4]
        dup = by_name(s, "canary_duplicate_writes")
        assert list(dup) == [labels(partition=2, acks="all", broker_id="unknown")]
    assert restored.state() == d.state()


def test_unacknowledged_probes_are_not_lost() -> None:
    d = Loss(JobConfig(loss_grace_s=1.0))
    d.fold(batch(probes=[probe(0, 1, T0, 1)], outcomes=[ok(0, 9, T0 + 60_000)]), 1.0)
    assert d.lost_writes() == []
    restored = Loss(JobConfig(loss_grace_s=1.0))
    restored.restore(d.state())
    assert restored.state() == d.state()


def test_outcomes_ahead_of_a_stalled_canary_topic_read_are_not_lost() -> None:
    """The canary topic's read stalls on a dead leader while outcomes keep coming: no verdict
    until the probes catch up, then only what is really missing is lost."""
    d = Loss(JobConfig(loss_grace_s=5.0, slide_s=10.0))
    d.fold(batch(outcomes=[ok(0, 1, T0)], probes=[probe(0, 1, T0, offset=1)]), 1.0)
    d.fold(batch(outcomes=[ok(0, s, T0 + s * 1000) for s in range(2, 60)]), 60.0)
    assert d.lost_writes() == [], "the canary topic is behind: nothing is judged yet"
    caught_up = [probe(0, s, T0 + s * 1000, offset=s) for s in range(2, 60) if s != 17]
    d.fold(batch(probes=caught_up), 61.0)
    assert d.lost_writes() == [(0, "all", 17)]


def test_probes_never_read_back_are_dropped_unjudged() -> None:
    d = Loss(JobConfig(loss_grace_s=5.0, slide_s=10.0))
    d.fold(batch(outcomes=[ok(0, 1, T0)]), 1.0)
    d.fold(batch(outcomes=[ok(0, 2, T0 + 1_000_000)]), 2.0)
    assert d.lost_writes() == [] and d.unjudged == 1
    assert d.state()["pending"] == [["c", 0, 2, "all", True, [], T0 + 1_000_000, "1"]]


def test_a_partition_read_behind_the_others_is_not_called_lost() -> None:
    """The canary query reads partition 0 while partitions 1 and 2 wait for their dead
    leaders: partition 0's probes must not move the watermark past partition 1's acknowledged
    writes (seen: 5 acks=1 writes called lost that were in the topic)."""
    d = Loss(JobConfig(loss_grace_s=5.0, slide_s=10.0))
    acked = [ok(p, s, T0 + s * 1000, acks="1") for p in (0, 1) for s in range(1, 60)]
    read = [probe(0, s, T0 + s * 1000, offset=s, acks="1") for s in range(1, 60)]
    d.fold(batch(outcomes=acked, probes=read), 60.0)
    assert d.lost_writes() == [], "partition 1 is not read yet: nothing of it is judged"
    caught_up = [probe(1, s, T0 + s * 1000, offset=s, acks="1") for s in range(1, 60) if s != 7]
    d.fold(batch(probes=caught_up), 61.0)
    assert d.lost_writes() == [(1, "1", 7)], "then only what is really missing"
