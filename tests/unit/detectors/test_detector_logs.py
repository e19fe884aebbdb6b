"""GC, incident and coverage detector timelines on a fake clock."""

from __future__ import annotations

import json

import pytest
from tests.support.detector_support import batch, broker, by_name, event, failed, ok

from kafka_health.config import JobConfig
from kafka_health.detectors.coverage import Coverage
from kafka_health.detectors.gc import Gc
from kafka_health.detectors.incidents import Incidents
from kafka_health.detectors.inputs import LogStream
from kafka_health.model import labels

T0 = 1_700_000_000_000


def test_full_gc_against_each_brokers_session_timeout() -> None:
    job = JobConfig(session_timeout_ms=18_000, session_timeout_ms_by_broker={"1": 6000})
    d = Gc(job)
    d.fold(batch(events=[
        event("full_gc", "1", T0 + 100, pause_s=10.39),
        event("full_gc", "1", T0 + 200, pause_s=0.2),
        event("full_gc", "2", T0 + 300, pause_s=10.0),
        event("young_gc", "2", T0 + 400, pause_s=0.05),
        event("young_gc", "2", T0 + 500, pause_s=0.05),
    ]), 0.0)  # fmt: skip
    s = d.signals(0.0)
    assert by_name(s, "full_gc_count")[labels(broker_id=1)].value == 2
    assert by_name(s, "full_gc_pause_seconds_max")[labels(broker_id=1)].value == 10.39
    over = by_name(s, "full_gc_over_session_timeout")
    assert over[labels(broker_id=1)].value == 1
    assert over[labels(broker_id=1)].details["session_timeout_s"] == 6.0
    assert over[labels(broker_id=2)].value == 0, "10 s is within broker 2's 18 s"
    assert by_name(s, "young_gc_pause_seconds_sum")[labels(broker_id=2)].value == (
        pytest.approx(0.1)
    )
    # A minute of newer log events later, the pauses have left the window.
    d.fold(batch(events=[event("not_leader", "3", T0 + 70_000)]), 70.0)
    assert by_name(d.signals(70.0), "full_gc_count") == {}


def test_full_gc_against_the_session_timeout_the_brokers_log_states() -> None:
    """The seeds' 10 s Full GC on a broker whose log said zookeeper.session.timeout.ms = 6000
    is over its session with the default config (18 s); without the line it is not."""
    d = Gc(JobConfig())
    d.fold(batch(events=[
        event("session_timeout", "1", T0 - 60_000, session_timeout_ms=6000),
        event("full_gc", "1", T0 + 100, pause_s=10.39),
        event("full_gc", "2", T0 + 300, pause_s=10.23),
    ]), 0.0)  # fmt: skip
    over = by_name(d.signals(0.0), "full_gc_over_session_timeout")
    assert over[labels(broker_id=1)].value == 1
    assert over[labels(broker_id=1)].details == {
        "session_timeout_s": 6.0, "session_timeout_source": "log"}  # fmt: skip
    assert over[labels(broker_id=2)].value == 0, "10 s is within the configured 18 s"
    assert over[labels(broker_id=2)].details == {
        "session_timeout_s": 18.0, "session_timeout_source": "config"}  # fmt: skip


def test_the_log_beats_the_per_broker_config_and_the_newest_line_wins() -> None:
    """A restart with a longer timeout logs it again: the newest statement counts, a replayed
    older one does not undo it, and the state carries it across a restart of the job."""
    d = Gc(JobConfig(session_timeout_ms_by_broker={"1": 30_000}))
    d.fold(batch(events=[
        event("session_timeout", "1", T0, session_timeout_ms=6000),
        event("session_timeout", "1", T0 + 10_000, session_timeout_ms=12_000),
        event("full_gc", "1", T0 + 20_000, pause_s=10.0),
    ]), 0.0)  # fmt: skip
    d.fold(batch(events=[event("session_timeout", "1", T0, session_timeout_ms=6000)]), 1.0)
    over = by_name(d.signals(1.0), "full_gc_over_session_timeout")[labels(broker_id=1)]
    assert (over.value, over.details["session_timeout_s"]) == (0, 12.0)
    again = Gc(JobConfig(session_timeout_ms_by_broker={"1": 30_000}))
    again.restore(json.loads(json.dumps(d.state())))
    assert again.signals(1.0) == d.signals(1.0)
    d.fold(batch(events=[event("full_gc", "1", T0 + 21_000, pause_s=13.0)]), 2.0)
    assert by_name(d.signals(2.0), "full_gc_over_session_timeout")[labels(broker_id=1)].value == 1


def test_incidents_count_for_the_broker_they_are_about() -> None:
    d = Incidents(JobConfig())
    d.fold(batch(events=[
        event("broker_failure", "1", T0, subject_broker_id=3),
        event("controlled_shutdown", "1", T0 + 1, subject_broker_id=2),
        event("zk_session_expired", "2", T0 + 2),
        event("zk_session_expired", "2", T0 + 3),
        event("isr_shrink", "2", T0 + 4),
    ]), 0.0)  # fmt: skip
    s = d.signals(0.0)
    assert by_name(s, "broker_failures") == {}, "detectors/broker_failures.py's signal"
    assert by_name(s, "controlled_shutdowns")[labels(broker_id=2)].value == 1
    assert by_name(s, "zk_session_expirations")[labels(broker_id=2)].value == 2
    again = Incidents(JobConfig())
    again.restore(d.state())
    assert again.signals(0.0) == s


def test_a_silent_canary_partition_shows_on_the_clock_alone() -> None:
    d = Coverage(JobConfig(canary_silence_s=3.0))
    d.fold(batch(outcomes=[ok(0, 1, T0, leader=1), failed(1, 2, T0, "Timeout", leader=2)]),
           T0 / 1000)  # fmt: skip
    silent = by_name(d.signals(T0 / 1000 + 2.0), "canary_partition_silent_seconds")
    assert {s.value for s in silent.values()} == {0.0}
    silent = by_name(d.signals(T0 / 1000 + 5.0), "canary_partition_silent_seconds")
    assert silent[labels(broker_id=1, partition=0)].value == pytest.approx(4.995)
    assert silent[labels(broker_id=2, partition=1)].details["state"] == "expired"
    d.fold(batch(outcomes=[ok(0, 3, T0 + 5000)]), T0 / 1000 + 5.0)
    silent = by_name(d.signals(T0 / 1000 + 5.5), "canary_partition_silent_seconds")
    assert silent[labels(broker_id=1, partition=0)].value == 0.0


def test_log_streams_ages_and_live_brokers_that_never_logged() -> None:
    d = Coverage(JobConfig(isr_expire_after_s=60.0))
    d.fold(batch(cluster=[broker(T0, 1), broker(T0, 2), broker(T0, 3, live=False)]), 1000.0)
    d.fold(batch(streams=[LogStream("1", kind, 5) for kind in
                          ("server", "controller", "state-change", "gc")]), 1000.0)  # fmt: skip
    d.fold(batch(cluster=[broker(T0, 1), broker(T0, 2), broker(T0, 3, live=False)]), 1040.0)
    ages = by_name(d.signals(1040.0), "log_stream_age_seconds")
    assert ages[labels(broker_id=1, kind="server")].value == 40.0
    never = ages[labels(broker_id=2, kind="gc")]
    assert never.value == 40.0 and never.details["state"] == "never"
    assert not [a for a in ages if dict(a)["broker_id"] == "3"], "a dead broker is not blind"


def test_the_newest_snapshot_in_a_batch_says_whether_a_broker_is_live() -> None:
    """A batch's records come in no order (collected from an aggregation)."""
    d = Coverage(JobConfig(isr_expire_after_s=60.0))
    d.fold(batch(cluster=[broker(T0 + 10_000, 2, live=False), broker(T0, 2)]), 1000.0)
    ages = by_name(d.signals(1040.0), "log_stream_age_seconds")
    assert not [a for a in ages if dict(a)["broker_id"] == "2"], "dead since the newer snapshot"


def test_a_coordinator_load_that_does_not_finish_is_stuck() -> None:
    d = Coverage(JobConfig(coordinator_load_stuck_s=300.0))
    loads = [event("coordinator_load_start", "1", T0, partition=7),
             event("coordinator_load_start", "1", T0, partition=8),
             event("coordinator_load_finish", "1", T0 + 5, partition=8)]  # fmt: skip
    d.fold(batch(events=loads), 0.0)
    assert by_name(d.signals(299.0), "coordinator_loads_stuck") == {}
    stuck = by_name(d.signals(301.0), "coordinator_loads_stuck")[labels(broker_id=1)]
    assert stuck.value == 1 and stuck.details["partitions"] == ["7"]
    d.fold(batch(events=[event("coordinator_load_finish", "1", T0 + 400_000, partition=7)]), 400.0)
    assert by_name(d.signals(401.0), "coordinator_loads_stuck") == {}


def test_after_a_restart_silence_counts_from_the_job_s_first_batch() -> None:
    """A kill -9 of the job and a restart 35 s later: its downtime is not the partitions' or
    the log streams' silence. Nothing is judged until it folds a batch; from then on each
    silence counts from that batch at the earliest."""
    d = Coverage(JobConfig(canary_silence_s=30.0))
    d.fold(batch(outcomes=[ok(0, 1, T0, leader=1)],
                 streams=[LogStream("1", "server", 5)]), T0 / 1000)  # fmt: skip
    again = Coverage(JobConfig(canary_silence_s=30.0))
    again.restore(d.state())
    assert again.signals(T0 / 1000 + 40.0) == [], "unknown until the job reads again"
    again.fold(batch(outcomes=[ok(1, 2, T0 + 41_000, leader=2)]), T0 / 1000 + 41.0)
    silent = by_name(again.signals(T0 / 1000 + 45.0), "canary_partition_silent_seconds")
    assert silent[labels(broker_id=1, partition=0)].value == 0.0, "not silent: 4 s since"
    ages = by_name(again.signals(T0 / 1000 + 45.0), "log_stream_age_seconds")
    assert ages[labels(broker_id=1, kind="server")].value == 4.0
    silent = by_name(again.signals(T0 / 1000 + 72.0), "canary_partition_silent_seconds")
    assert silent[labels(broker_id=1, partition=0)].details["state"] == "expired"
