"""Broker failure timelines: failed from the controller's report until seen live again."""

from __future__ import annotations

from tests.support.detector_support import batch, broker, by_name, event

from kafka_health.config import JobConfig
from kafka_health.detectors.broker_failures import BrokerFailures

T0 = 1_700_000_000_000


def fenced(subject: int, at_ms: int) -> object:
    return event("broker_failure", "1", at_ms, subject_broker_id=subject)


def failures(d: BrokerFailures) -> dict[str, float]:
    return {
        dict(k)["broker_id"]: s.value for k, s in by_name(d.signals(0.0), "broker_failures").items()
    }


def test_a_failed_broker_stays_failed_until_a_snapshot_shows_it_live() -> None:
    d = BrokerFailures(JobConfig(window_s=60.0))
    d.fold(batch(cluster=[broker(T0, 3)]), 1.0)
    d.fold(batch(events=[fenced(3, T0 + 10_000)]), 2.0)
    d.fold(batch(cluster=[broker(T0 + 11_000, 3)]), 3.0)  # just after: maybe the old view
    assert failures(d) == {"3": 1.0}
    d.fold(batch(cluster=[broker(T0 + 20_000, 3, live=False)]), 4.0)
    d.fold(batch(events=[event("full_gc", "2", T0 + 200_000)]), 5.0)  # the log clock moves on
    assert failures(d) == {"3": 1.0}, "still dead three minutes later: still failed"
    d.fold(batch(cluster=[broker(T0 + 210_000, 3)]), 6.0)
    assert failures(d) == {}, "back at once, not a log window later"


def test_without_snapshots_a_report_counts_for_the_log_window() -> None:
    d = BrokerFailures(JobConfig(window_s=60.0))
    d.fold(batch(events=[fenced(2, T0)]), 1.0)
    assert failures(d) == {"2": 1.0}
    d.fold(batch(events=[event("full_gc", "1", T0 + 61_000)]), 2.0)
    assert failures(d) == {}


def test_state_round_trip() -> None:
    d = BrokerFailures(JobConfig())
    d.fold(batch(cluster=[broker(T0, 3)], events=[fenced(3, T0 + 5_000)]), 1.0)
    again = BrokerFailures(JobConfig())
    again.restore(d.state())
    assert again.state() == d.state() and failures(again) == {"3": 1.0}
