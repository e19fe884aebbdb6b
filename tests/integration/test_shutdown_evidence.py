"""The metadata's evidence at a broker's first refused ping, on real parts: the job's pings
(:class:`BrokerPings`, 1 s rounds, real ApiVersions pings and metadata looks) into a
:class:`SignalBoard`, against a 3-broker cluster with an RF 3 topic (no Spark needed).

SIGTERM a broker (a controlled shutdown): ``controlled_shutdown`` (on the first look as a rule;
if not, a second one 0.45 s later decides), at most 0.5 s after its first refused ping and
after its port closed (the watch's idle connection closes with it); start it again; SIGKILL
another: ``crash`` (two looks, within 1 s). A thread polls the broker's port every 5 ms to
time the port closing; the seconds from it to the verdict are printed (``-s``). Both modes:
KRaft 4.1.1, ZooKeeper 3.9.1.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import pytest
from tests.support.waiting import wait_for

from kafka_health.config import from_mapping
from kafka_health.dev.devcluster import LocalCluster
from kafka_health.job.board import SignalBoard
from kafka_health.reachability.pinger import BrokerPings
from kafka_health.reachability.shutdown_evidence import Evidence

pytestmark = pytest.mark.integration
TOPIC = "evidence-rf3"


class PortWatch:
    """When a port first refuses a connection (polled every 5 ms from a thread)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.closed_at: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            except ConnectionRefusedError:
                self.closed_at = time.time()
                return
            except OSError:
                pass
            time.sleep(0.005)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)


def _rf3_topic(cluster: LocalCluster) -> None:
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers)
    try:
        admin.create_topics([NewTopic(TOPIC, 3, 3)])

        def full_isr() -> bool:
            [topic] = admin.describe_topics([TOPIC])
            parts = topic["partitions"]
            return len(parts) == 3 and all(len(p["isr_nodes"]) == 3 for p in parts)

        wait_for(full_isr, 30, "the RF 3 topic with a full ISR")
    finally:
        admin.close()


def _verdict(board: SignalBoard, broker_id: int) -> Evidence | None:
    with board._lock:
        return board.reachability.evidence_now().get(broker_id)


@pytest.mark.parametrize("mode", ["kraft", "zookeeper"])
def test_sigterm_is_a_controlled_shutdown_and_sigkill_a_crash(
    local_cluster: Callable[..., LocalCluster], mode: str
) -> None:
    started = time.monotonic()
    cluster = local_cluster(3, mode=mode)
    _rf3_topic(cluster)
    config = from_mapping({"kafka": {"bootstrap_servers": cluster.bootstrap_servers}})
    board = SignalBoard(config.job)
    pings = BrokerPings(config, board)
    pings.start()
    try:
        wait_for(lambda: len(board.ping_targets()) == 3, 30, "three brokers listed")
        wait_for(
            lambda: sum(1 for s in board.signals() if s.label("reason") == "answered") == 3,
            30,
            "three brokers answering",
        )
        time.sleep(1.5)  # the metadata look's client connected (warm-up)

        # SIGTERM: a controlled shutdown
        stopped = cluster.nodes[0]
        watch = PortWatch(stopped.port)
        stopper = threading.Thread(target=cluster.stop_broker, args=(stopped.broker_id,))
        stopper.start()
        planned = wait_for(lambda: _verdict(board, stopped.broker_id), 60, "a verdict on SIGTERM")
        stopper.join(60)
        watch.stop()
        assert planned.verdict == "controlled_shutdown", planned
        assert planned.decided_at - planned.refused_at <= 0.5, planned
        assert watch.closed_at is not None
        report(mode, "SIGTERM", watch.closed_at, planned)
        # the watch's idle connection closed with the port: known within half a second of it
        assert planned.decided_at - watch.closed_at <= 0.5

        cluster.start_broker(stopped.broker_id, wait=True)
        wait_for(lambda: _verdict(board, stopped.broker_id) is None, 30, "it answers again")

        # SIGKILL: a crash
        killed = cluster.nodes[1]
        watch = PortWatch(killed.port)
        cluster.kill_broker(killed.broker_id)
        crash = wait_for(lambda: _verdict(board, killed.broker_id), 30, "a verdict on SIGKILL")
        watch.stop()
        assert crash.verdict == "crash", crash
        assert watch.closed_at is not None
        report(mode, "SIGKILL", watch.closed_at, crash)
        assert crash.decided_at - watch.closed_at <= 1.0, "the refusal at once, a second look"
    finally:
        pings.stop()
    print(f"[{mode}] whole test {time.monotonic() - started:.1f} s")


def report(mode: str, fault: str, closed_at: float, e: Evidence) -> None:
    print(
        f"\n[{mode}] {fault}: {e.verdict} ({e.reason}); port closed -> first refused ping "
        f"{e.refused_at - closed_at:.3f} s, -> verdict {e.decided_at - closed_at:.3f} s "
        f"({e.looks} look(s), {e.decided_at - e.refused_at:.3f} s after the refused ping"
        f"{'; first look: ' + e.first if e.first else ''})"
    )
