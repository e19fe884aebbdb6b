"""KRaft quorum timelines: elections, stretches without a leader, brokers fenced again and
again. Plain events and a fake clock (the job's wall time); the logs' own clock is the newest
event or shipped record."""

from __future__ import annotations

from typing import Any

from tests.support.detector_support import batch, by_name, event

from kafka_health.config import JobConfig
from kafka_health.detectors.controller import ActiveController
from kafka_health.detectors.kraft_quorum import (
    CHURN_WINDOW_S,
    EVIDENCE_FRESH_S,
    KRAFT_EVENTS,
    MAX_EPOCH_JUMP,
    STORM_WINDOW_S,
    KRaftQuorum,
)
from kafka_health.job.batch import DETECTED_TYPES
from kafka_health.job.board import SignalBoard
from kafka_health.model import SIGNALS, Signal, labels

T0 = 1_700_000_000_000
W0 = T0 / 1000.0  # the job's wall clock at T0


def leader(node: int, epoch: int, at_ms: int, by: int | None = None) -> Any:
    """``by`` (a standby) logged "In the new epoch E, the leader is L."; else the winner's
    own Raft "Completed transition to Leader"."""
    return event("quorum_leader", str(by or node), at_ms, subject_broker_id=node,
                 leader_epoch=epoch)  # fmt: skip


def no_leader(epoch: int, at_ms: int, by: int, candidate: bool = False) -> Any:
    return event("quorum_no_leader", str(by), at_ms, leader_epoch=epoch,
                 subject_broker_id=by if candidate else None)  # fmt: skip


def resigned(node: int, at_ms: int, epoch: int | None = None) -> Any:
    return event("controller_resigned", str(node), at_ms, leader_epoch=epoch,
                 subject_broker_id=node if epoch is None else None)  # fmt: skip


def timed_out(node: int, at_ms: int) -> Any:
    return event("quorum_election_timeout", str(node), at_ms, subject_broker_id=node)


def fenced(broker: int, at_ms: int, by: int = 1) -> Any:
    return event("broker_failure", str(by), at_ms, subject_broker_id=broker)


def unfenced(broker: int, at_ms: int, by: int = 1) -> Any:
    return event("broker_unfenced", str(by), at_ms, subject_broker_id=broker)


def starting(broker: int, at_ms: int) -> Any:
    return event("broker_starting", str(broker), at_ms, subject_broker_id=broker)


def one(signals: list[Signal], name: str) -> Signal:
    [found] = [s for s in signals if s.name == name]
    return found


def elected_cluster(d: KRaftQuorum, at_ms: int = T0) -> None:
    """Epoch 1: node 3 wins, the standbys 1 and 2 learn it."""
    d.fold(batch(events=[leader(3, 1, at_ms), leader(3, 1, at_ms + 46, by=1),
                         leader(3, 1, at_ms + 47, by=2)]), W0)  # fmt: skip


def test_the_signals_are_in_the_catalogue_and_the_events_are_read_by_the_job() -> None:
    assert SIGNALS["kraft_controller_elections"].labels == ()
    assert SIGNALS["kraft_leaderless_seconds"].labels == ()
    assert SIGNALS["kraft_broker_fencings"].labels == ("broker_id",)
    assert set(KRAFT_EVENTS) <= set(DETECTED_TYPES)
    assert "broker_failure" in DETECTED_TYPES


def test_a_killed_active_controller_is_one_election_and_no_page() -> None:
    """The devcluster's 4.1.1 timeline (fault suite, broker 3 the active controller SIGKILLed
    and started again): the followers' fetch timeout (2 s), a vote at epoch 2 that controller
    1 wins 13 ms later, 3 back as a standby; its old session fenced and a new incarnation
    unfenced: a restart, not a fencing storm."""
    d = KRaftQuorum()
    elected_cluster(d)
    kill = T0 + 88_000
    d.fold(batch(events=[no_leader(2, kill + 2_151, by=1, candidate=True),
                         no_leader(2, kill + 2_151, by=1), no_leader(2, kill + 2_156, by=2)],
                 log_shipped_ms=kill + 2_160), W0 + 90.2)  # fmt: skip
    during = one(d.signals(W0 + 90.3), "kraft_leaderless_seconds")
    assert during.details["state"] == "no_leader" and during.value < 1.0
    assert "no leader at epoch 2" in during.details["evidence"]
    d.fold(batch(events=[leader(1, 2, kill + 2_164), leader(1, 2, kill + 2_182, by=2),
                         starting(3, kill + 3_000), leader(1, 2, kill + 3_367, by=3),
                         fenced(3, kill + 11_203), fenced(3, kill + 11_895),
                         unfenced(3, kill + 11_934)], log_shipped_ms=kill + 12_000),
           W0 + 100.0)  # fmt: skip
    signals = d.signals(W0 + 100.0)
    assert one(signals, "kraft_leaderless_seconds").value == 0.0
    churn = one(signals, "kraft_controller_elections")
    assert churn.value == 2.0  # epoch 1's (in the window) and the failover's
    assert churn.details["moves"] == "? -> 3 (epoch 1), 3 -> 1 (epoch 2)"
    assert churn.details["voters"] == ["1", "2", "3"]
    assert churn.details["partitions"] == [
        {"topic": "__cluster_metadata", "partition": 0, "replicas": [1, 2, 3]}
    ]
    assert by_name(signals, "kraft_broker_fencings") == {}, "a restart is BrokerNotAnswering's"


def test_a_restarted_standby_learning_the_current_epoch_is_no_election() -> None:
    d = KRaftQuorum()
    elected_cluster(d)
    d.fold(batch(events=[leader(3, 1, T0 + 60_000, by=2)]), W0 + 60)
    assert one(d.signals(W0 + 60), "kraft_controller_elections").value == 1.0


def test_leadership_churn_counts_the_elections_of_the_last_five_minutes() -> None:
    d = KRaftQuorum()
    elected_cluster(d)
    moves = [(1, 2, 30_000), (2, 3, 70_000), (3, 4, 110_000)]
    for node, epoch, at in moves:
        d.fold(batch(events=[no_leader(epoch, T0 + at - 20, by=node, candidate=True),
                             leader(node, epoch, T0 + at)]), W0 + at / 1000)  # fmt: skip
    churn = one(d.signals(W0 + 111), "kraft_controller_elections")
    assert churn.value == 4.0
    assert churn.details["leaders"] == "3, 1, 2"
    assert churn.details["votes_without_leader"] == 3
    assert [e["epoch"] for e in churn.details["elections"]] == [1, 2, 3, 4]
    # the logs move on: epoch 1's election leaves the window, then the others
    later = T0 + round(CHURN_WINDOW_S * 1000) + 1_000
    d.fold(batch(log_shipped_ms=later), W0 + later / 1000)
    assert one(d.signals(W0 + 400), "kraft_controller_elections").value == 3.0
    d.fold(batch(log_shipped_ms=later + 200_000), W0 + 600)
    assert one(d.signals(W0 + 600), "kraft_controller_elections").value == 0.0


def test_quorum_lost_with_the_leader_surviving_4_x() -> None:
    """Two of three voters killed (devcluster 4.1.1): the leader (1) misses the majority's
    fetches for 3 s and resigns, bumps the epoch with no leader, and its pre-votes time out
    every 1-2 s. The stretch counts from the resignation, in the logs' time and no longer than
    the job has seen it; it ends at a leader of a newer epoch."""
    d = KRaftQuorum()
    d.fold(batch(events=[leader(1, 2, T0), leader(1, 2, T0 + 20, by=2),
                         leader(1, 2, T0 + 21, by=3)]), W0)  # fmt: skip
    down = T0 + 100_000
    d.fold(batch(events=[resigned(1, down + 3_000), resigned(1, down + 3_400, epoch=2),
                         no_leader(3, down + 4_800, by=1)], log_shipped_ms=down + 5_000),
           W0 + 105.5)  # fmt: skip
    first = one(d.signals(W0 + 105.5), "kraft_leaderless_seconds")
    assert first.value == 0.0, "the job has seen it for no time yet"
    assert first.details["since"] == (down + 3_000) / 1000
    assert first.details["last_leader"] == "1" and first.details["last_epoch"] == 2
    t = down + 5_000
    while t < down + 30_000:
        t += 1_500
        d.fold(batch(events=[timed_out(1, t)], log_shipped_ms=t + 100), W0 + (t + 500 - T0) / 1000)
    now = W0 + (t + 500 - T0) / 1000
    stretch = one(d.signals(now), "kraft_leaderless_seconds")
    # the logs say 27 s; the job first saw it at 105.5 s: about 25 s
    assert 20.0 < stretch.value <= (t + 100 - down - 3_000) / 1000
    assert stretch.details["election_timeouts"] >= 15
    assert "resigned the leadership of epoch 2" in stretch.details["evidence"]
    assert "no majority of the voters" in stretch.details["cause"]
    # the two voters come back: a new leader at epoch 4
    d.fold(batch(events=[leader(2, 4, t + 2_000)], log_shipped_ms=t + 2_100), now + 2)
    assert one(d.signals(now + 2), "kraft_leaderless_seconds").value == 0.0


def test_a_follower_surviving_keeps_its_dead_leader_and_its_pre_votes_time_out() -> None:
    """4.x: the survivor of a dead majority that followed the dead leader never bumps the
    epoch (KIP-996): only its election timeouts say the quorum has no leader."""
    d = KRaftQuorum()
    elected_cluster(d)  # 3 leads epoch 1
    base = T0 + 200_000
    d.fold(batch(events=[timed_out(1, base)], log_shipped_ms=base), W0 + 200)
    assert one(d.signals(W0 + 200), "kraft_leaderless_seconds").value == 0.0, "a split vote"
    for i in range(1, 12):
        at = base + i * 1_500
        d.fold(batch(events=[timed_out(1, at)], log_shipped_ms=at), W0 + (at - T0) / 1000)
    now = W0 + (base + 16_500 - T0) / 1000
    stretch = one(d.signals(now), "kraft_leaderless_seconds")
    # since the first timeout in the logs (16.5 s), seen by the job from the second: 15 s
    assert stretch.value == 15.0 and stretch.details["since"] == base / 1000
    assert "only controller 1 reports failed elections" in stretch.details["cause"]
    # its timeouts stop (it reached the others, the leader is alive): over once stale
    quiet = base + 16_500 + round(EVIDENCE_FRESH_S * 1000) + 1
    d.fold(batch(log_shipped_ms=quiet), W0 + (quiet - T0) / 1000)
    assert one(d.signals(W0 + (quiet - T0) / 1000), "kraft_leaderless_seconds").value == 0.0


def test_a_resumed_former_leader_resigning_is_not_a_quorum_without_leader() -> None:
    """Controller 3 (leader of epoch 1) frozen: 1 wins epoch 2. When 3 resumes it misses the
    majority's fetches and renounces epoch 1: the quorum had a leader all along."""
    d = KRaftQuorum()
    elected_cluster(d)
    d.fold(batch(events=[no_leader(2, T0 + 10_000, by=1, candidate=True),
                         leader(1, 2, T0 + 10_010), leader(1, 2, T0 + 10_030, by=2)]),
           W0 + 10)  # fmt: skip
    d.fold(batch(events=[resigned(3, T0 + 42_000), resigned(3, T0 + 42_100, epoch=1)],
                 log_shipped_ms=T0 + 43_000), W0 + 43)  # fmt: skip
    quorum = one(d.signals(W0 + 80), "kraft_leaderless_seconds")
    assert quorum.value == 0.0 and quorum.details["last_leader"] == "1"


def test_a_vote_that_is_not_won_keeps_the_stretch_open_across_epochs() -> None:
    """3.x (no pre-vote): the candidates bump the epoch each round; the stretch counts from
    the first epoch without a leader."""
    d = KRaftQuorum()
    elected_cluster(d)
    events = [no_leader(n, T0 + 50_000 + (n - 2) * 2_500, by=2, candidate=True)
              for n in range(2, 8)]  # fmt: skip
    d.fold(batch(events=events[:1], log_shipped_ms=T0 + 50_000), W0 + 50)
    d.fold(batch(events=events[1:], log_shipped_ms=T0 + 63_000), W0 + 63)
    stretch = one(d.signals(W0 + 63), "kraft_leaderless_seconds")
    assert stretch.value == 13.0 and stretch.details["since"] == (T0 + 50_000) / 1000
    assert "no leader at epoch 7 (controller 2)" in stretch.details["evidence"]


def test_an_absurd_epoch_is_a_mutated_line() -> None:
    d = KRaftQuorum()
    elected_cluster(d)
    d.fold(batch(events=[no_leader(MAX_EPOCH_JUMP + 5, T0 + 1_000, by=2)],
                 log_shipped_ms=T0 + 40_000), W0 + 40)  # fmt: skip
    assert one(d.signals(W0 + 40), "kraft_leaderless_seconds").value == 0.0


def test_a_broker_fenced_and_unfenced_again_and_again_is_a_storm() -> None:
    """Broker 2 loses its session three times (a 12 s pause each time), never restarting;
    broker 3 is fenced once and restarts: not counted."""
    d = KRaftQuorum()
    elected_cluster(d)
    events = []
    for i in range(3):
        at = T0 + 20_000 + i * 60_000
        events += [fenced(2, at), unfenced(2, at + 4_000)]
    events += [fenced(3, T0 + 30_000), starting(3, T0 + 35_000), fenced(3, T0 + 36_000),
               unfenced(3, T0 + 36_050)]  # fmt: skip
    d.fold(batch(events=events, log_shipped_ms=T0 + 150_000), W0 + 150)
    storms = by_name(d.signals(W0 + 150), "kraft_broker_fencings")
    assert set(storms) == {labels(broker_id="2")}
    storm = storms[labels(broker_id="2")]
    assert storm.value == 3.0
    assert storm.details["cycles"][0] == {"fenced_at": (T0 + 20_000) / 1000,
                                          "unfenced_at": (T0 + 24_000) / 1000}  # fmt: skip
    assert storm.details["flapping_brokers"] == "2" and storm.details["others_flapping"] == 0
    # five minutes later the first cycle has left the window
    later = T0 + 24_000 + round(STORM_WINDOW_S * 1000) + 1
    d.fold(batch(log_shipped_ms=later), W0 + 330)
    assert by_name(d.signals(W0 + 330), "kraft_broker_fencings")[labels(broker_id="2")].value == 2


def test_a_start_line_read_late_makes_the_cycle_a_restart() -> None:
    d = KRaftQuorum()
    d.fold(batch(events=[fenced(2, T0), unfenced(2, T0 + 12_000)]), W0 + 12)
    assert by_name(d.signals(W0 + 12), "kraft_broker_fencings")[labels(broker_id="2")].value == 1
    d.fold(batch(events=[starting(2, T0 + 10_000)]), W0 + 13)  # its own log, shipped later
    assert by_name(d.signals(W0 + 13), "kraft_broker_fencings") == {}


def test_a_zookeeper_cluster_has_no_quorum_signals() -> None:
    """ZooKeeper's controller elections and broker failures are no KRaft quorum."""
    d = KRaftQuorum()
    d.fold(batch(events=[event("controller_change", "1", T0, subject_broker_id=1,
                               leader_epoch=4),
                         fenced(2, T0 + 1_000)]), W0)  # fmt: skip
    assert d.signals(W0) == []


def test_state_round_trips() -> None:
    d = KRaftQuorum()
    elected_cluster(d)
    d.fold(batch(events=[resigned(3, T0 + 5_000, epoch=1), no_leader(2, T0 + 5_100, by=1),
                         fenced(2, T0 + 6_000), unfenced(2, T0 + 9_000),
                         timed_out(1, T0 + 7_000)], log_shipped_ms=T0 + 9_000),
           W0 + 9)  # fmt: skip
    again = KRaftQuorum()
    again.restore(d.state())
    assert again.state() == d.state()
    assert again.signals(W0 + 20) == d.signals(W0 + 20)
    fresh = KRaftQuorum()
    fresh.restore({})
    assert fresh.signals(W0) == []


def test_the_board_folds_the_quorum_and_trusts_the_new_leader_named_by_a_standby() -> None:
    """A standby's "In the new epoch 5, the leader is 1" makes 1 the active controller: the
    former one's stale fencing (and unfencing) reports are left out."""
    board = SignalBoard(JobConfig(), clock=lambda: W0 + 20)
    board.fold(0, batch(events=[leader(3, 4, T0), leader(1, 5, T0 + 4_000, by=2)]))
    board.fold(1, batch(events=[fenced(2, T0 + 12_500, by=3), unfenced(2, T0 + 13_000, by=3),
                                fenced(3, T0 + 13_000, by=1)]))  # fmt: skip
    signals = board.signals()
    assert set(by_name(signals, "broker_failures")) == {labels(broker_id="3")}
    assert by_name(signals, "kraft_broker_fencings") == {}
    assert one(signals, "kraft_controller_elections").value == 2.0
    c = ActiveController()
    c.trusted([leader(1, 5, T0, by=2)])
    assert c.active_at(T0 + 1) == "1"
