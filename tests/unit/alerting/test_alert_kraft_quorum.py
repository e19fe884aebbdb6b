"""The KRaft quorum rules of conf/alerts.yaml, fed by the real detector (detectors/
kraft_quorum.py) from controller log events: a killed active controller is the dead broker's
incident and no quorum page; a quorum without a majority is named in the dead voters'
incident, or pages on its own when no voter's page explains it; a leadership that keeps moving
pages; a broker fenced again and again is named in its own failure's incident."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.detectors.inputs import Batch, LogEvent
from kafka_health.detectors.kraft_quorum import KRaftQuorum
from kafka_health.model import Signal

KILLED_AT = 30.0


def ms(t: float) -> int:
    return round((T0 + t) * 1000)


def leader(node: int, epoch: int, t: float, by: int | None = None) -> tuple[float, LogEvent]:
    return t, LogEvent("quorum_leader", str(by or node), ms(t), subject_broker_id=node,
                       leader_epoch=epoch)  # fmt: skip


def no_leader(epoch: int, t: float, by: int) -> tuple[float, LogEvent]:
    return t, LogEvent("quorum_no_leader", str(by), ms(t), leader_epoch=epoch,
                       subject_broker_id=by)  # fmt: skip


def about(kind: str, broker: int, t: float, by: int = 1) -> tuple[float, LogEvent]:
    """broker_failure (a fence), broker_unfenced, broker_starting, controller_resigned,
    quorum_election_timeout about (or by) ``broker``."""
    logger = broker if kind in ("broker_starting", "controller_resigned",
                                "quorum_election_timeout") else by  # fmt: skip
    return t, LogEvent(kind, str(logger), ms(t), subject_broker_id=broker)


class Logs:
    """The controllers' events, folded into the detector as the test time reaches them (a
    batch a step, the logs shipped up to the step)."""

    def __init__(self, events: list[tuple[float, LogEvent]]) -> None:
        self.pending = sorted(events, key=lambda e: e[0])
        self.detector = KRaftQuorum()

    def signals(self, t: float) -> list[Signal]:
        due = [e for at, e in self.pending if at <= t]
        self.pending = [(at, e) for at, e in self.pending if at > t]
        self.detector.fold(Batch(events=due, log_shipped_ms=ms(t)), T0 + t)
        return self.detector.signals(T0 + t)


def pings(t: float, down: dict[int, tuple[float, float]], brokers: tuple[int, ...] = (1, 2, 3)
          ) -> list[Signal]:  # fmt: skip
    """Each broker's pings: refused, with the metadata's crash verdict, while it is down."""
    out = []
    for b in brokers:
        since, back = down.get(b, (1e9, 1e9))
        if since <= t < back:
            out += [
                sig("broker_unanswered_seconds", t - since, t, broker_id=b, reason="refused"),
                sig("broker_shutdown_evidence", 1, t, broker_id=b, evidence="crash"),
            ]
        else:
            out.append(sig("broker_unanswered_seconds", 0.0, t, broker_id=b, reason="answered"))
    return out


def elected(
    leader_node: int, epoch: int, t: float, voters: tuple[int, ...] = (1, 2, 3)
) -> list[tuple[float, LogEvent]]:
    """``leader_node`` wins ``epoch``; the other voters learn it."""
    return [leader(leader_node, epoch, t)] + [
        leader(leader_node, epoch, t + 0.02, by=v) for v in voters if v != leader_node
    ]


def controller_kill() -> Callable[[float], list[Signal]]:
    """The devcluster's timeline (4.1.1): broker 3, the active controller, SIGKILLed at 30 s;
    its followers' fetch timeout (2 s), controller 1 elected 13 ms after the vote began;
    broker 3 started again at 42 s, its old session fenced at 41.2 s (9 s after controller 1
    took over), its new incarnation unfenced at 44 s."""
    k = KILLED_AT
    logs = Logs([
        *elected(3, 1, 0.0),
        no_leader(2, k + 2.151, by=1), no_leader(2, k + 2.156, by=2),
        *elected(1, 2, k + 2.164, voters=(1, 2)),
        about("broker_failure", 3, k + 11.2),
        about("broker_starting", 3, k + 12.0), leader(1, 2, k + 13.4, by=3),
        about("broker_failure", 3, k + 13.9), about("broker_unfenced", 3, k + 14.0),
    ])  # fmt: skip

    def signals(t: float) -> list[Signal]:
        out = pings(t, {3: (k, k + 12.5)}) + logs.signals(t)
        if k + 11.2 <= t < k + 20:  # the controller's report, until a snapshot shows it live
            out.append(sig("broker_failures", 1, t, broker_id=3))
        return out

    return signals


def test_a_killed_active_controller_is_its_brokers_incident_and_no_quorum_page(
    tmp_path: Path,
) -> None:
    """The fault suite's controller-kill: one election in 2 s is KRaft working; the page is
    the dead node's own, nothing about the quorum fires or waits."""
    h = Harness(tmp_path)
    h.run(0, 400, controller_kill(), step=1, snapshot=True)
    assert h.paged_rules()[0] == "BrokerNotAnswering"
    assert set(h.paged_rules()) <= {"BrokerNotAnswering", "BrokerFailed"}
    assert list(h.incidents()) == ['{broker_id="3"}'], "one incident: broker 3's"
    for rule in ("KRaftNoActiveController", "KRaftControllerUnstable", "KRaftBrokerFencingStorm"):
        assert not h.alerts(rule), f"{rule} was not even pending"


def quorum_lost(
    voters: tuple[int, ...],
    dead_brokers: dict[int, tuple[float, float]],
    brokers: tuple[int, ...] = (1, 2, 3),
) -> Callable[[float], list[Signal]]:
    """Two of three voters die at 30 s; the survivor (``voters[0]``, the leader of epoch 2)
    misses the majority's fetches, resigns, bumps the epoch without a leader and its
    pre-votes time out every 1.5 s (devcluster 4.1.1) until the others are back at 120 s and
    ``voters[1]`` wins epoch 4."""
    k, survivor = KILLED_AT, voters[0]
    events = [*elected(survivor, 2, 0.0, voters), about("controller_resigned", survivor, k + 3),
              no_leader(3, k + 4.8, by=survivor)]  # fmt: skip
    t = k + 5.0
    while t < 120:
        events.append(about("quorum_election_timeout", survivor, t))
        t += 1.5
    events += elected(voters[1], 4, 123.0, voters)
    logs = Logs(events)

    def signals(t: float) -> list[Signal]:
        return pings(t, dead_brokers, brokers) + logs.signals(t)

    return signals


def test_two_dead_voters_are_their_incidents_naming_the_quorum_without_a_leader(
    tmp_path: Path,
) -> None:
    """Combined nodes: brokers 2 and 3 are voters; their own pages explain the quorum that
    has no majority left, and name it."""
    h = Harness(tmp_path)
    down = {2: (KILLED_AT, 118.0), 3: (KILLED_AT, 118.0)}
    timeline = quorum_lost((1, 2, 3), down)
    h.run(0, 100, timeline, step=1, snapshot=True)
    [quorum] = h.alerts("KRaftNoActiveController")
    assert quorum.starts_at - T0 < KILLED_AT + 20, "evaluated: the stretch passed 10 s"
    explained = "inhibited by BrokerNotAnswering (voter-down-leaves-the-quorum)"
    assert quorum.muted_by == [explained], "a dead voter's page explains it"
    h.run(101, 400, timeline, step=1, snapshot=True)
    assert set(h.paged_rules()) == {"BrokerNotAnswering"}
    assert list(h.incidents()) == ['{broker_id="2"}', '{broker_id="3"}'], "the dead voters'"
    assert not h.alerts("KRaftControllerUnstable")


def test_a_quorum_of_separate_controllers_without_a_leader_pages_on_its_own(
    tmp_path: Path,
) -> None:
    """Controllers 101-103 are not brokers (nor pinged): no broker's page explains their
    quorum, not even a dead broker that is no voter."""
    h = Harness(tmp_path)
    h.run(0, 200, quorum_lost((101, 102, 103), {7: (20.0, 1e9)}, brokers=(1, 7)), step=1,
          snapshot=True)  # fmt: skip
    assert "KRaftNoActiveController" in h.paged_rules()
    page = next(a for n in h.pages() for a in n.alerts
                if a.labels["alertname"] == "KRaftNoActiveController")  # fmt: skip
    assert page.labels["severity"] == "critical" and "broker_id" not in page.labels
    assert "last: controller 101 at epoch 2" in page.annotations["summary"]
    assert "resigned the leadership of epoch 2" in page.annotations["description"]
    assert page.starts_at - T0 <= KILLED_AT + 3 + 10 + 3, "10 s after the resignation, +1 fold"
    assert h.resolutions("KRaftNoActiveController"), "resolved once epoch 4 had a leader"


def test_a_leadership_that_keeps_moving_pages_once(tmp_path: Path) -> None:
    """Controllers 1 and 2 take turns, each a 3 s pause of the other (GC) away: 6 elections
    in 4 minutes, with no broker page to explain them."""
    events: list[tuple[float, Any]] = [*elected(3, 1, 0.0)]
    for i in range(6):
        at = 40.0 + 40 * i
        events += [no_leader(2 + i, at, by=1 + i % 2), *elected(1 + i % 2, 2 + i, at + 0.01)]
    logs = Logs(events)
    h = Harness(tmp_path)
    h.run(0, 900, lambda t: pings(t, {}) + logs.signals(t), step=2, snapshot=True)
    assert h.paged_rules() == ["KRaftControllerUnstable"]
    [page] = [a for n in h.pages() for a in n.alerts]
    assert "moved 4 times in 5 minutes" in page.annotations["summary"], "at the 4th in 5 min"
    assert "2 -> 1 (epoch 4)" in page.annotations["summary"]
    assert len(h.resolutions("KRaftControllerUnstable")) == 1, "resolved once they held"


def test_a_flapping_broker_pages_its_failures_and_names_the_storm(tmp_path: Path) -> None:
    """Broker 2 loses its session three times (never restarting): each fence is BrokerFailed
    (the controller's report); the third names the storm in its incident."""
    fences = [(20.0, 30.0), (80.0, 90.0), (140.0, 150.0)]
    events: list[tuple[float, Any]] = [*elected(1, 1, 0.0)]
    for fenced, back in fences:
        events += [about("broker_failure", 2, fenced), about("broker_unfenced", 2, back)]
    logs = Logs(events)

    def signals(t: float) -> list[Signal]:
        out = pings(t, {}) + logs.signals(t)
        if any(f <= t < b + 5 for f, b in fences):
            out.append(sig("broker_failures", 1, t, broker_id=2))
        return out

    h = Harness(tmp_path)
    h.run(0, 152, signals, step=1, snapshot=True)
    [storm] = h.alerts("KRaftBrokerFencingStorm")
    assert storm.starts_at - T0 == 150.0, "at the third unfence"
    assert storm.muted_by == ["inhibited by BrokerFailed (broker-fault-explains-its-fencings)"]
    h.run(153, 600, signals, step=1, snapshot=True)
    assert set(h.paged_rules()) == {"BrokerFailed"}


def test_a_fencing_storm_nothing_else_explains_pages_as_a_warning(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    detail = {"flapping_brokers": "2, 4", "others_flapping": 1}
    h.run(0, 60, lambda t: [sig("kraft_broker_fencings", 3, t, detail, broker_id=2)])
    assert h.paged_rules() == ["KRaftBrokerFencingStorm"]
    [alert] = [a for n in h.pages() for a in n.alerts]
    assert alert.labels["severity"] == "warning" and alert.labels["broker_id"] == "2"
    assert "fenced and unfenced 3 times in 5 minutes" in alert.annotations["summary"]
