"""Controller trust timelines: a former controller's stale fencing does not blame a broker."""

from __future__ import annotations

from tests.support.detector_support import batch, by_name, event

from kafka_health.config import JobConfig
from kafka_health.detectors.controller import ActiveController
from kafka_health.job.board import SignalBoard
from kafka_health.model import labels

T0 = 1_700_000_000_000


def elected(controller: int, at_ms: int, epoch: int | None) -> object:
    return event("controller_change", str(controller), at_ms, subject_broker_id=controller,
                 leader_epoch=epoch)  # fmt: skip


def fenced(by: int, broker: int, at_ms: int) -> object:
    return event("broker_failure", str(by), at_ms, subject_broker_id=broker)


def test_a_resumed_former_controller_does_not_blame_a_healthy_broker() -> None:
    """Seen here: controller 3 stopped 12 s; 1 took over at epoch 5; 3 resumed and logged
    'Fencing broker 2 ... session has timed out' about a healthy broker."""
    d = SignalBoard(JobConfig(), clock=lambda: 3.0)
    d.fold(0, batch(events=[elected(3, T0, 4)]))
    d.fold(1, batch(events=[elected(1, T0 + 4_000, 5), fenced(1, 3, T0 + 9_000)]))
    d.fold(2, batch(events=[fenced(3, 2, T0 + 12_500)]))
    failures = by_name(d.signals(), "broker_failures")
    assert set(failures) == {labels(broker_id="3")}, "only the active controller's report"


def test_reports_count_while_no_election_was_seen_and_from_the_active_controller() -> None:
    d = SignalBoard(JobConfig(), clock=lambda: 2.0)
    d.fold(0, batch(events=[fenced(1, 3, T0)]))
    d.fold(1, batch(events=[elected(1, T0 + 1_000, 7), fenced(1, 2, T0 + 2_000)]))
    assert set(by_name(d.signals(), "broker_failures")) == {
        labels(broker_id="3"),
        labels(broker_id="2"),
    }


def test_the_active_controller_at_a_time_and_state_round_trip() -> None:
    c = ActiveController()
    c.trusted([elected(3, T0, 4), elected(1, T0 + 4_000, 5)])  # type: ignore[list-item]
    assert (c.active_at(T0 - 1), c.active_at(T0 + 1), c.active_at(T0 + 5_000)) == (None, "3", "1")
    kept = c.trusted([fenced(3, 2, T0 + 6_000), fenced(3, 2, T0 + 2_000)])  # type: ignore[list-item]
    assert [e.event_ms for e in kept] == [T0 + 2_000] and c.untrusted == 1
    again = ActiveController()
    again.restore(c.state())
    assert again.state() == c.state()
