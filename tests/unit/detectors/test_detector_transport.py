"""Transport timelines: the job's pings of a separate transport's brokers, judged as one
cluster on the clock."""

from __future__ import annotations

from tests.support.detector_support import batch, broker, by_name, done

from kafka_health.detectors.transport import TransportReachability, bootstrap_addresses
from kafka_health.reachability.ping import Ping

BOOTSTRAP = ["t1.example:9092", "[::1]:9093"]


def pinged(broker_id: int, at: float, outcome: str = "answered", detail: str = "") -> Ping:
    return Ping(broker_id, at, at + (2.0 if outcome == "timeout" else 0.001), outcome, detail)


def unanswered(d: TransportReachability, now: float) -> tuple[str, float] | None:
    found = by_name(d.signals(now), "transport_unanswered_seconds")
    assert len(found) <= 1, "one signal for the whole transport"
    for key, s in found.items():
        return dict(key)["reason"], s.value
    return None


def test_the_bootstrap_servers_are_pinged_before_any_metadata() -> None:
    """A transport down when the job starts has no metadata to list; its bootstrap servers
    are pinged all the same, as pseudo brokers with negative ids."""
    assert bootstrap_addresses(BOOTSTRAP) == {-1: ("t1.example", 9092), -2: ("::1", 9093)}
    d = TransportReachability(BOOTSTRAP)
    assert d.targets() == {-2: ("::1", 9093), -1: ("t1.example", 9092)}
    assert unanswered(d, 1.0) is None, "not pinged yet: unknown, not healthy"
    d.answered([pinged(-1, 1.0, "refused"), pinged(-2, 1.0, "refused")])
    d.answered([pinged(-1, 7.0, "refused"), pinged(-2, 7.0, "refused")])
    assert unanswered(d, 7.5) == ("refused", 6.5), "never answered: counted from the first ping"


def test_killed_it_is_refused_from_the_last_answer_on_and_named() -> None:
    d = TransportReachability(BOOTSTRAP)
    for t in range(10):
        d.answered([pinged(-1, float(t)), pinged(-2, float(t))])
    assert unanswered(d, 9.5) == ("answered", 0.0)
    for t in range(10, 16):
        d.answered([pinged(-1, float(t), "refused", "Connection refused"),
                    pinged(-2, float(t), "refused", "Connection refused")])  # fmt: skip
    assert unanswered(d, 15.5) == ("refused", 6.499)
    (signal,) = d.signals(15.5)
    assert signal.details["outcomes"] == "[::1]:9093 refused, t1.example:9092 refused"
    assert signal.details["error"] == "Connection refused"


def test_one_broker_answering_is_no_outage() -> None:
    """A client needs one broker of the transport: the least unanswered time counts."""
    d = TransportReachability(BOOTSTRAP)
    d.listed({1: ("10.0.0.1", 9092), 2: ("10.0.0.2", 9092)}, 0.0)
    assert set(d.targets()) == {-2, -1, 1, 2}, "the metadata's brokers beside the bootstrap"
    for t in range(20):
        d.answered([pinged(-1, float(t), "refused"), pinged(-2, float(t), "refused"),
                    pinged(1, float(t), "timeout"), pinged(2, float(t))])  # fmt: skip
    assert unanswered(d, 21.5) == ("answered", 0.0)


def test_hung_it_grows_on_the_clock_with_the_failure_of_the_one_that_answered_last() -> None:
    d = TransportReachability(BOOTSTRAP)
    d.answered([pinged(-1, 0.0), pinged(-2, 0.0)])
    d.answered([pinged(-1, 1.0, "refused")])  # this one died first
    d.answered([pinged(-2, 3.0), pinged(-2, 4.0, "timeout")])  # last answered at 3.001
    assert unanswered(d, 6.0) == ("timeout", 2.999)
    assert unanswered(d, 9.5) == ("timeout", 6.499), "no new ping, still growing"


def test_the_snapshots_of_the_monitored_cluster_do_not_touch_it() -> None:
    """Its brokers are not the monitored cluster's: a snapshot without them forgets none."""
    d = TransportReachability(BOOTSTRAP)
    d.listed({1: ("10.0.0.1", 9092)}, 0.0)
    d.fold(batch(cluster=[broker(5, 1000), done(1000)]), 2.0)
    assert set(d.targets()) == {-2, -1, 1}


def test_a_restart_keeps_an_outage_and_takes_the_bootstrap_servers_of_its_config() -> None:
    """A transport down across the job's restart stays down from when it stopped answering
    (no resolution while Spark starts); a bootstrap server no longer configured is dropped."""
    d = TransportReachability(BOOTSTRAP)
    d.answered([pinged(-1, 0.0), pinged(-2, 0.0)])
    d.answered([pinged(-1, 1.0, "refused"), pinged(-2, 1.0, "refused")])
    again = TransportReachability(["t1.example:9092"])
    again.restore(d.state())
    assert again.targets() == {-1: ("t1.example", 9092)}
    again.answered([pinged(-1, 30.0, "refused")])
    assert unanswered(again, 30.5) == ("refused", 30.499)
    moved = TransportReachability(["t9.example:9092"])
    moved.restore(d.state())
    assert moved.targets() == {-1: ("t9.example", 9092)}, "a new address is a new broker"
    assert unanswered(moved, 30.0) is None
