"""Reachability timelines: the job's pings of each broker, judged on the clock."""

from __future__ import annotations

from tests.support.detector_support import batch, broker, by_name, done

from kafka_health.detectors.reachability import Reachability
from kafka_health.reachability.config import ReachabilityConfig
from kafka_health.reachability.ping import Ping

ADDRESSES = {1: ("127.0.0.1", 9091), 2: ("127.0.0.1", 9092), 3: ("127.0.0.1", 9093)}


def pinged(broker_id: int, at: float, outcome: str = "answered") -> Ping:
    return Ping(broker_id, at, at + (2.0 if outcome == "timeout" else 0.001), outcome)


def unanswered(d: Reachability, now: float) -> dict[str, tuple[str, float]]:
    return {
        dict(k)["broker_id"]: (dict(k)["reason"], s.value)
        for k, s in by_name(d.signals(now), "broker_unanswered_seconds").items()
    }


def answering(d: Reachability, until: float, brokers: tuple[int, ...] = (1, 2, 3)) -> None:
    for t in range(int(until)):
        d.answered([pinged(b, float(t)) for b in brokers])


def test_a_killed_broker_is_refused_from_its_last_answer_on() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    answering(d, 10)  # answered at 9.001
    d.answered([pinged(3, 10.0, "refused")])
    assert unanswered(d, 10.0)["3"] == ("refused", 0.999)
    d.answered([pinged(3, 11.0, "refused"), pinged(3, 12.0, "refused")])
    assert unanswered(d, 13.5)["3"] == ("refused", 4.499)
    assert unanswered(d, 13.5)["1"] == ("answered", 0.0)


def test_a_hung_broker_grows_on_the_clock_with_no_new_ping() -> None:
    """A ping in flight is bounded by its deadline; between two, the value grows on each
    tick (the driver evaluates it every second)."""
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    answering(d, 10)
    d.answered([pinged(2, 10.0, "timeout")])  # finished at 12.0
    assert unanswered(d, 12.0)["2"] == ("timeout", 2.999)
    assert unanswered(d, 15.0)["2"] == ("timeout", 5.999), "no new ping, still growing"
    d.answered([pinged(2, 16.0)])
    assert unanswered(d, 16.5)["2"] == ("answered", 0.0)


def test_a_broker_never_pinged_is_unknown_not_healthy() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.answered([pinged(1, 1.0)])
    assert set(unanswered(d, 2.0)) == {"1"}


def test_a_broker_that_never_answered_counts_from_its_first_ping() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.answered([pinged(3, 5.0, "refused"), pinged(3, 6.0, "refused")])
    assert unanswered(d, 9.0)["3"] == ("refused", 4.0)


def test_an_older_ping_does_not_overwrite_a_newer_one() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.answered([pinged(3, 10.0)])
    d.answered([pinged(3, 8.0, "timeout")])  # began before, finished after? no: at 10.0
    d.answered([Ping(3, 5.0, 9.0, "timeout")])  # finished before the answer: stale
    assert unanswered(d, 11.0)["3"] == ("answered", 0.0)


def test_a_dead_broker_that_left_the_metadata_is_pinged_while_it_holds_replicas() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.fold(batch(cluster=[broker(1_000, 1), broker(1_000, 2), broker(1_000, 3), done(1_000)]), 1)
    d.listed({1: ADDRESSES[1], 2: ADDRESSES[2]}, 20.0)  # broker 3 died: fenced, unlisted
    d.fold(batch(cluster=[broker(21_000, 1), broker(21_000, 2),
                          broker(21_000, 3, live=False), done(21_000)]), 21)  # fmt: skip
    assert set(d.targets()) == {1, 2, 3}, "still a member: holds replicas"
    d.fold(batch(cluster=[broker(31_000, 1), broker(31_000, 2), done(31_000)]), 31)
    assert set(d.targets()) == {1, 2}, "decommissioned: no replica left"


def test_an_incomplete_snapshot_decides_nothing() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.listed({1: ADDRESSES[1]}, 20.0)
    d.fold(batch(cluster=[broker(21_000, 1)]), 21)  # no closing record
    assert set(d.targets()) == {1, 2, 3}


def test_a_batch_in_no_order_keeps_the_dead_brokers_members() -> None:
    """The job collects a batch's records from an aggregation, in no order: a closing record
    taken before its broker records made the dead brokers no members, and while the
    metadata could not be listed (quorum lost) they were forgotten and their pages resolved
    (seen in the fault suite's monitor-kills)."""
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.fold(batch(cluster=[broker(1_000, 1), broker(1_000, 2), broker(1_000, 3), done(1_000, 3)]), 1)
    d.answered([pinged(2, 5.0, "refused"), pinged(3, 5.0, "refused")])  # no listing since
    shuffled = [done(21_000, 3), broker(21_000, 3), broker(21_000, 1), broker(21_000, 2)]
    d.fold(batch(cluster=shuffled), 21)
    assert set(d.targets()) == {1, 2, 3}
    assert set(unanswered(d, 22.0)) == {"2", "3"}


def test_a_snapshot_begun_before_the_jobs_restart_decides_nothing() -> None:
    """The previous process read the snapshot's first broker records; this one reads the
    rest: they are not the cluster's members (the closing record counts its brokers)."""
    before = Reachability()
    before.listed(ADDRESSES, 0.0)
    before.fold(batch(cluster=[broker(21_000, 1), broker(21_000, 2)]), 21)
    after = Reachability()
    after.restore(before.state())
    after.fold(batch(cluster=[broker(21_000, 3), done(21_000, 3)]), 22)
    assert set(after.targets()) == {1, 2, 3}
    after.fold(batch(cluster=[broker(31_000, 1), broker(31_000, 3), done(31_000, 2)]), 32)
    assert set(after.targets()) == {1, 3}, "a whole snapshot still decides"


def test_without_snapshots_an_unlisted_broker_is_forgotten_after_forget_after_s() -> None:
    d = Reachability(ReachabilityConfig(forget_after_s=600.0))
    d.listed(ADDRESSES, 0.0)
    d.listed({1: ADDRESSES[1], 2: ADDRESSES[2]}, 500.0)
    assert 3 in d.targets()
    d.listed({1: ADDRESSES[1], 2: ADDRESSES[2]}, 601.0)
    assert set(d.targets()) == {1, 2}


def test_a_moved_broker_is_pinged_at_its_new_address() -> None:
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    d.listed({**ADDRESSES, 3: ("10.0.0.3", 9092)}, 10.0)
    assert d.targets()[3] == ("10.0.0.3", 9092)


def test_a_restarted_job_knows_the_addresses_and_counts_from_its_own_first_ping() -> None:
    """Restored: the dead broker's address (it is no longer in the metadata) and its last
    answer; its outcome is unknown until pinged, and the job's downtime is not held against
    it."""
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    answering(d, 10)
    again = Reachability()
    again.restore(d.state())
    assert again.targets() == d.targets()
    assert unanswered(again, 500.0) == {}
    again.answered([pinged(3, 500.0, "refused")])
    assert unanswered(again, 503.0)["3"] == ("refused", 3.0)


def test_a_broker_failing_across_a_restart_of_the_job_stays_failing_from_its_last_answer() -> None:
    """Two brokers down while the job is SIGKILLed and restarted, again and again: the
    restored job reports them failing at once, counted from their last answer, so the incident
    does not resolve while Spark starts; an answer ends it, and a later failure counts afresh."""
    d = Reachability()
    d.listed(ADDRESSES, 0.0)
    answering(d, 10)  # answered at 9.001
    d.answered([pinged(3, float(t), "refused") for t in range(10, 20)])
    assert unanswered(d, 20.0)["3"] == ("refused", 10.999)
    again = Reachability()
    again.restore(d.state())
    assert unanswered(again, 60.0) == {"3": ("refused", 50.999)}  # 1 and 2: unknown
    third = Reachability()  # killed before it pinged anything
    third.restore(again.state())
    assert unanswered(third, 90.0)["3"] == ("refused", 80.999)
    third.answered([pinged(3, 90.0, "refused")])
    assert unanswered(third, 91.0)["3"] == ("refused", 81.999)
    third.answered([pinged(3, 95.0)])
    assert unanswered(third, 95.5)["3"] == ("answered", 0.0)
    third.answered([pinged(3, 100.0, "refused")])
    assert unanswered(third, 101.0)["3"] == ("refused", 5.999)
