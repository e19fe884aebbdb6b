"""The /metrics servers' threads are bounded (issue 55): idle connections take no thread,
the oldest is closed past a bound, a silent one is closed after its wait, and /metrics
still answers while hundreds of idle connections are open."""

from __future__ import annotations

import select
import socket
import threading
import time
import urllib.request
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter

from kafka_health.connection_gate import ConnectionGate
from kafka_health.metrics_endpoint import (
    MAX_CONNECTION_THREADS,
    MAX_WAITING_CONNECTIONS,
    serve_metrics,
)

IDLE = 300


def eventually(check: Callable[[], bool], limit_s: float = 15.0) -> bool:
    """Poll ``check`` until it holds (the limit only keeps a broken build from hanging)."""
    end = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def closed_by_peer(sock: socket.socket) -> bool:
    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable) and sock.recv(1) == b""


def test_many_idle_connections_do_not_take_a_thread_each_and_metrics_answers() -> None:
    registry = CollectorRegistry()
    Counter("kh_gate_test", "a counter", registry=registry).inc()
    before = threading.active_count()
    server, port = serve_metrics(registry, "127.0.0.1", 0, cluster="t")
    idle: list[socket.socket] = []
    try:
        idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(IDLE)]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            assert answer.status == 200
            assert b'kh_gate_test_total{cluster="t"} 1.0' in answer.read()
        # Accepted in order: the scrape was served after every idle connection was taken.
        assert threading.active_count() - before <= MAX_CONNECTION_THREADS + 2
        expected_closed = IDLE - MAX_WAITING_CONNECTIONS + 1  # the scrape's waited too
        closed: set[int] = set()

        def enough_closed() -> bool:
            closed.update(i for i, s in enumerate(idle) if i not in closed and closed_by_peer(s))
            return len(closed) >= expected_closed

        assert eventually(enough_closed), f"{len(closed)} closed"
        assert max(closed) < min(set(range(IDLE)) - closed), "the oldest are closed first"
    finally:
        for s in idle:
            s.close()
        server.shutdown()
        server.server_close()


def test_a_connection_that_says_nothing_is_closed_after_its_wait() -> None:
    served: list[bytes] = []

    def serve(conn: socket.socket, _: object) -> None:
        with conn:
            served.append(conn.recv(16))

    gate = ConnectionGate(serve, socket.socket.close, workers=1, max_waiting=4, wait_s=0.3)
    try:
        silent, silent_peer = socket.socketpair()
        talker, talker_peer = socket.socketpair()
        gate.add(silent_peer, "silent")
        gate.add(talker_peer, "talker")
        talker.sendall(b"GET")
        assert eventually(lambda: served == [b"GET"])
        assert eventually(lambda: closed_by_peer(silent))
        assert gate.closed_idle == 1
    finally:
        gate.close()
        for s in (silent, talker):
            s.close()


def test_past_max_waiting_the_longest_waiting_is_closed() -> None:
    gate = ConnectionGate(lambda c, a: c.close(), socket.socket.close, 1, max_waiting=2)
    pairs = [socket.socketpair() for _ in range(3)]
    try:
        for i, (_, server_side) in enumerate(pairs):
            gate.add(server_side, i)
        assert eventually(lambda: closed_by_peer(pairs[0][0]))
        time.sleep(0.2)
        assert not closed_by_peer(pairs[1][0]) and not closed_by_peer(pairs[2][0])
    finally:
        gate.close()
        for client, _ in pairs:
            client.close()


def test_closing_the_gate_closes_what_waits_and_stops_its_threads() -> None:
    gate = ConnectionGate(lambda c, a: c.close(), socket.socket.close, workers=3, name="closing")

    def threads() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name.startswith("closing-")]

    assert len(threads()) == 4, "3 workers and the waiting thread"
    client, server_side = socket.socketpair()
    gate.add(server_side, "x")
    gate.close()
    assert eventually(lambda: closed_by_peer(client))
    assert eventually(lambda: threads() == [])
    client.close()
