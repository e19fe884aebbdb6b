"""Why a broker's port refuses, from the metadata at its first refused ping: the pure decision
on timelines shaped after Kafka 4.1.1 (KRaft) and 3.9.1 (ZooKeeper) shutdowns and kills, and
the pinger asking it (fake pings and looks) beside its rounds, once per outage."""

from __future__ import annotations

import socket
import threading
import time

from kafka_health.config import JobConfig, MonitorConfig, from_mapping
from kafka_health.job.board import SignalBoard
from kafka_health.reachability.pinger import BrokerPings
from kafka_health.reachability.shutdown_evidence import (
    CONTROLLED,
    CRASH,
    UNKNOWN,
    ClusterView,
    Judgement,
    Partition,
    classify,
    settle,
    view_of,
)

T = 1_700_000_000.0
ALL = frozenset({1, 2, 3})


def rf3(leaders: dict[int, int], isr: dict[int, tuple[int, ...]]) -> tuple[Partition, ...]:
    """Partitions 0-2 of an RF 3 topic: partition -> leader, partition -> ISR."""
    return tuple(Partition("t", p, leaders[p], (1, 2, 3), isr[p]) for p in sorted(leaders))


HEALTHY = rf3({0: 1, 1: 2, 2: 3}, {p: (1, 2, 3) for p in range(3)})


def view(
    at: float,
    brokers: frozenset[int] = ALL,
    fenced: frozenset[int] | None = frozenset(),
    partitions: tuple[Partition, ...] | None = HEALTHY,
) -> ClusterView:
    return ClusterView(T + at, brokers, fenced, partitions)


# ---------------------------------------------------------------------- KRaft


def test_kraft_controlled_shutdown_is_fenced_and_handed_over_at_the_first_refusal() -> None:
    """SIGTERM at 0: leaders moved and ISRs shrunk at once, shutdown granted ~2 s later with
    the fence; the port refuses right after."""
    before = view(-8)  # the last listing, every broker answering
    handed_over = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    at_refusal = view(2.1, fenced=frozenset({1}), partitions=handed_over)
    assert classify(1, before, at_refusal) == Judgement(
        CONTROLLED, "fenced by the controller since the last listing"
    )


def test_kraft_fence_not_yet_seen_but_partitions_handed_over_is_a_controlled_shutdown() -> None:
    handed_over = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    judged = classify(1, view(-8), view(2.1, partitions=handed_over))
    assert judged.verdict == CONTROLLED
    assert "leads none" in judged.reason


def test_kraft_kill_keeps_its_leaders_and_stays_unfenced_so_it_is_a_crash() -> None:
    """SIGKILL: nothing moves until broker.session.timeout.ms (9 s)."""
    judged = classify(1, view(-3), view(0.4))
    assert judged.verdict == CRASH
    assert judged.reason.startswith("still leads 1 and is in the ISR of 3 of the 3")


def test_a_broker_fenced_already_before_is_no_new_evidence() -> None:
    """Fenced at the last listing (it was starting): being fenced now says nothing; its
    partitions decide, and here it hosts none."""
    single = (Partition("t", 0, 2, (2,), (2,)),)
    before = view(-5, fenced=frozenset({1}), partitions=single)
    now = view(0.5, fenced=frozenset({1}), partitions=single)
    assert classify(1, before, now).verdict == UNKNOWN


# ---------------------------------------------------------------------- ZooKeeper


def test_zookeeper_controlled_shutdown_moved_leaders_and_shrank_isrs() -> None:
    """No fencing in the metadata (fenced None); registration still there at the refusal."""
    moved = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    judged = classify(1, view(-4, fenced=None), view(0.3, fenced=None, partitions=moved))
    assert judged.verdict == CONTROLLED


def test_zookeeper_kill_keeps_leaders_until_the_session_expires() -> None:
    judged = classify(1, view(-4, fenced=None), view(0.3, fenced=None))
    assert judged.verdict == CRASH


def test_leading_nothing_but_still_in_an_isr_is_not_yet_evidence() -> None:
    """Seen on ZooKeeper 3.9.1: leaders moved, the port closed, the ISR shrink still on its
    way (first look: in the ISR of 2 of 3), done at the second look 0.45 s later. A crashed
    pure follower looks the same: neither, so the second look (or the 5 s rule) decides."""
    before = view(-4, fenced=None)
    shrinking = rf3({0: 2, 1: 2, 2: 3}, {0: (1, 2, 3), 1: (1, 2, 3), 2: (2, 3)})
    first = classify(1, before, view(0.01, fenced=None, partitions=shrinking))
    assert first == Judgement(
        UNKNOWN,
        "leads none of the 3 multi-replica partitions it hosts but is still in the ISR of 2: "
        "a handover under way, or a crashed follower",
    )
    shrunk = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    second = classify(1, before, view(0.46, fenced=None, partitions=shrunk))
    assert settle(first, second).verdict == CONTROLLED


def test_zookeeper_deregistered_broker_hosting_nothing_is_a_controlled_shutdown() -> None:
    """A clean exit closes its ZooKeeper session: gone from the listing within a second; a
    killed one stays registered until its session times out."""
    nothing = (Partition("t", 0, 2, (2, 3), (2, 3)),)
    before = view(-4, fenced=None, partitions=nothing)
    gone = view(0.8, brokers=frozenset({2, 3}), fenced=None, partitions=nothing)
    assert classify(1, before, gone).verdict == CONTROLLED
    still = view(0.8, fenced=None, partitions=nothing)
    assert classify(1, before, still).verdict == UNKNOWN


# ---------------------------------------------------------------------- ambiguous, re-check


def test_ambiguous_a_broker_hosting_only_single_replica_partitions() -> None:
    """A single-replica partition cannot move: it says nothing either way."""
    single = (Partition("t", 0, 1, (1,), (1,)), Partition("t", 1, 2, (2, 3), (2, 3)))
    judged = classify(1, view(-4, partitions=single), view(0.4, partitions=single))
    assert judged == Judgement(UNKNOWN, "hosts no multi-replica partition and is not newly fenced")
    no_partitions = classify(1, None, view(0.4, fenced=None, partitions=None))
    assert no_partitions.verdict == UNKNOWN


def test_the_second_look_decides_unless_the_first_saw_a_controlled_shutdown() -> None:
    controlled = Judgement(CONTROLLED, "fenced")
    crash = Judgement(CRASH, "leads")
    unknown = Judgement(UNKNOWN, "nothing")
    # the fence reached the broker asked only for the second look
    assert settle(unknown, controlled) == controlled
    # a leader move seen late: not paged on the first, stale look
    assert settle(crash, controlled) == controlled
    assert settle(crash, crash) == crash
    assert settle(controlled, None) == controlled  # no second look needed
    assert settle(crash, None) == crash  # the second look got no answer


def test_the_fence_seen_only_at_the_recheck() -> None:
    """KRaft, a broker hosting nothing: the fence record had not reached the broker asked at
    the first look; 0.5 s later it had."""
    empty: tuple[Partition, ...] = ()
    before = view(-6, partitions=empty)
    first = classify(1, before, view(0.1, partitions=empty))
    second = classify(1, before, view(0.6, fenced=frozenset({1}), partitions=empty))
    assert (first.verdict, second.verdict, settle(first, second).verdict) == (
        UNKNOWN, CONTROLLED, CONTROLLED,
    )  # fmt: skip


def test_view_of_kafka_python_dicts() -> None:
    described = {"brokers": [
        {"broker_id": 1, "host": "h", "port": 1, "rack": None, "is_fenced": True},
        {"broker_id": 2, "host": "h", "port": 2, "rack": None, "is_fenced": False},
    ]}  # fmt: skip
    topics = [
        {"error_code": 0, "name": "t", "partitions": [
            {"error_code": 0, "partition_index": 0, "leader_id": 2, "replica_nodes": [1, 2],
             "isr_nodes": [2]}]},
        {"error_code": 3, "name": "gone", "partitions": []},
    ]  # fmt: skip
    v = view_of(T, described, topics)
    assert v == ClusterView(T, frozenset({1, 2}), frozenset({1}),
                            (Partition("t", 0, 2, (1, 2), (2,)),))  # fmt: skip
    zookeeper = view_of(T, {"brokers": [{"broker_id": 1, "host": "h", "port": 1}]})
    assert zookeeper.fenced is None and zookeeper.partitions is None


# ---------------------------------------------------------------------- the pinger


def config() -> MonitorConfig:
    return from_mapping({"kafka": {"bootstrap_servers": ["127.0.0.1:9091"]},
                         "reachability": {"interval_s": 0.1, "deadline_s": 0.5}})  # fmt: skip


ADDRESSES = {1: ("127.0.0.1", 9091), 2: ("127.0.0.1", 9092), 3: ("127.0.0.1", 9093)}


class FakeCluster:
    """Broker 1 answers until ``down_at`` (monotonic), then refuses; the metadata it shows
    after, per look: ``views`` in turn (the last one repeated)."""

    def __init__(self, after: list[ClusterView]) -> None:
        self.down = threading.Event()
        self.after = after
        self.looks: list[float] = []

    def ping(self, host: str, port: int) -> tuple[str, str]:
        if port == 9091 and self.down.is_set():
            return "refused", "[Errno 111] Connection refused"
        return "answered", ""

    def look(self) -> ClusterView:
        if not self.down.is_set():
            return view(0)
        self.looks.append(time.monotonic())
        return self.after[min(len(self.looks), len(self.after)) - 1]


def evidence_of(board: SignalBoard) -> dict[str, str]:
    return {
        s.label("broker_id"): s.label("evidence")
        for s in board.signals()
        if s.name == "broker_shutdown_evidence"
    }


def run_outage(after: list[ClusterView]) -> tuple[SignalBoard, FakeCluster, list[float], float]:
    board = SignalBoard(JobConfig(), live=True)
    cluster = FakeCluster(after)
    published: list[float] = []
    pings = BrokerPings(
        config(), board, lister=lambda: ADDRESSES, pinger=cluster.ping, look=cluster.look,
        on_evidence=lambda: published.append(time.monotonic()),
    )  # fmt: skip
    pings.list_once()
    pings.start()
    try:
        deadline = time.monotonic() + 5
        while {
            s.label("broker_id"): s.label("reason")
            for s in board.signals()
            if s.name == "broker_unanswered_seconds"
        } != {"1": "answered", "2": "answered", "3": "answered"}:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        down_at = time.monotonic()
        cluster.down.set()
        while not evidence_of(board):
            assert time.monotonic() < deadline + 5, "no verdict"
            time.sleep(0.02)
        time.sleep(0.5)  # more refused pings: no more looks
    finally:
        pings.stop()
    return board, cluster, published, down_at


def test_a_controlled_shutdown_is_decided_on_one_look_at_the_first_refusal() -> None:
    handed_over = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    board, cluster, published, down_at = run_outage([view(1, partitions=handed_over)])
    assert evidence_of(board) == {"1": CONTROLLED}
    assert len(cluster.looks) == 1, "one look per outage, not one per refused ping"
    assert cluster.looks[0] - down_at < 0.3, "at the first refused ping (every 0.1 s)"
    assert len(published) == 1 and published[0] - down_at < 0.3


def test_a_crash_is_looked_at_again_half_a_second_later() -> None:
    board, cluster, _, _ = run_outage([view(1)])
    assert evidence_of(board) == {"1": CRASH}
    first, second = cluster.looks
    assert 0.44 <= second - first < 0.65
    [signal] = [s for s in board.signals() if s.name == "broker_shutdown_evidence"]
    assert signal.details["looks"] == 2
    assert signal.details["decided_at"] - signal.details["refused_at"] < 0.8


def test_a_stale_first_look_is_corrected_by_the_second() -> None:
    handed_over = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    board, cluster, _, _ = run_outage([view(1), view(1.5, partitions=handed_over)])
    assert evidence_of(board) == {"1": CONTROLLED}
    assert len(cluster.looks) == 2


def test_the_verdict_goes_when_the_broker_answers_again() -> None:
    board = SignalBoard(JobConfig())
    from kafka_health.reachability.ping import Ping
    from kafka_health.reachability.shutdown_evidence import Evidence

    board.listed(ADDRESSES, T)
    board.answered([Ping(1, T, T + 0.01, "answered")])
    board.answered([Ping(1, T + 1, T + 1.01, "refused")])
    board.shutdown_evidence(Evidence(1, CRASH, "leads", T + 1.01, T + 1.5, 2))
    assert evidence_of(board) == {"1": CRASH}
    board.answered([Ping(1, T + 9, T + 9.01, "answered")])
    assert evidence_of(board) == {}


def test_a_closed_connection_is_checked_at_once_not_at_the_next_round() -> None:
    """Pings every 10 s: the watch's idle connection sees the broker close (its listening
    socket and connections together, as a stopping broker does) and the port refused within
    milliseconds; the verdict follows on one look."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.05)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    handed_over = rf3({0: 2, 1: 2, 2: 3}, {0: (2, 3), 1: (2, 3), 2: (2, 3)})
    looks: list[float] = []

    def look() -> ClusterView:
        looks.append(time.monotonic())
        return view(1, partitions=handed_over)

    listening = threading.Event()
    listening.set()
    board = SignalBoard(JobConfig())
    slow = from_mapping({"kafka": {"bootstrap_servers": [f"127.0.0.1:{port}"]},
                         "reachability": {"interval_s": 10, "deadline_s": 0.5}})  # fmt: skip
    pings = BrokerPings(
        slow, board, lister=lambda: {1: ("127.0.0.1", port)}, look=look,
        pinger=lambda h, p: ("answered", "") if listening.is_set() else ("refused", "x"),
    )  # fmt: skip
    pings.list_once()
    pings.start()
    try:
        assert pings.watch is not None
        deadline = time.monotonic() + 5
        while pings.watch.watched() != {1}:
            assert time.monotonic() < deadline, "watching broker 1"
            time.sleep(0.02)
        looks.clear()  # the warm-up's
        listening.clear()
        stop.set()
        acceptor.join(1)
        closed_at = time.monotonic()
        server.close()
        for conn in accepted:
            conn.close()
        while not evidence_of(board):
            assert time.monotonic() < closed_at + 2, "a verdict long before the next round"
            time.sleep(0.01)
    finally:
        pings.stop()
    assert evidence_of(board) == {"1": CONTROLLED}
    assert looks and looks[0] - closed_at < 0.3
