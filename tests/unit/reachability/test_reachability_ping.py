"""One ping against real sockets on loopback: answered, refused, timeout, closed, tls."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterator

import pytest

from kafka_health.reachability.ping import ping


def _serve(handler: object) -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def loop() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            threading.Thread(target=handler, args=(conn,), daemon=True).start()  # type: ignore[arg-type]

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def _kafka_like(conn: socket.socket) -> None:
    """Answers one ApiVersions request as a broker would: size, correlation id, error 0."""
    with conn:
        (size,) = struct.unpack(">i", conn.recv(4))
        request = b""
        while len(request) < size:
            request += conn.recv(size - len(request))
        correlation = request[4:8]
        body = correlation + struct.pack(">h", 0) + struct.pack(">i", 0)
        conn.sendall(struct.pack(">i", len(body)) + body)


def _silent(conn: socket.socket) -> None:
    time.sleep(3)
    conn.close()


def _hang_up(conn: socket.socket) -> None:
    conn.close()


def _plain_talk(conn: socket.socket) -> None:
    with conn:
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        time.sleep(1)


@pytest.fixture
def plain_talker() -> Iterator[int]:
    yield from _serve(_plain_talk)


@pytest.fixture
def kafka_like() -> Iterator[int]:
    yield from _serve(_kafka_like)


@pytest.fixture
def silent() -> Iterator[int]:
    yield from _serve(_silent)


@pytest.fixture
def hangs_up() -> Iterator[int]:
    yield from _serve(_hang_up)


def test_a_broker_that_answers(kafka_like: int) -> None:
    assert ping("127.0.0.1", kafka_like, 2.0) == ("answered", "")


def test_nothing_listening_is_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: the kernel refuses
        outcome, _ = ping("127.0.0.1", port, 2.0)
    assert outcome == "refused"


def test_a_listener_that_never_answers_times_out_at_the_deadline(silent: int) -> None:
    started = time.monotonic()
    outcome, _ = ping("127.0.0.1", silent, 0.5)
    assert outcome == "timeout"
    assert time.monotonic() - started < 2.0, "bounded by the deadline, not the peer"


def test_a_listener_that_hangs_up_is_closed(hangs_up: int) -> None:
    assert ping("127.0.0.1", hangs_up, 2.0)[0] == "closed"


def test_a_plain_listener_spoken_to_with_tls_fails_the_handshake(silent: int) -> None:
    context = ssl.create_default_context()
    outcome, _ = ping("127.0.0.1", silent, 0.5, context)
    assert outcome == "timeout", "a TLS client waiting on a silent peer is bounded too"


def test_a_peer_that_does_not_speak_tls_is_a_tls_error(plain_talker: int) -> None:
    context = ssl.create_default_context()
    outcome, _ = ping("127.0.0.1", plain_talker, 2.0, context)
    assert outcome == "tls"
