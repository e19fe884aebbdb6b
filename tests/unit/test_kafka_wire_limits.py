"""A peer's announced answer size is bounded (issue 55): a broker ping or a SASL login against
a real socket server that announces a 2 GiB answer is refused before anything of that size is
allocated; an answer within the bound, read in pieces, still arrives whole."""

from __future__ import annotations

import socket
import struct
import tracemalloc
from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from typing import TypeVar

import pytest
from tests.support.loopback import loopback_server

from kafka_health.kafka_wire import MAX_RESPONSE_BYTES, FrameTooLarge, exchange
from kafka_health.reachability.ping import ping
from kafka_health.sasl_probe import sasl_login

T = TypeVar("T")
HUGE = 2**31 - 1  # the largest int32 size: 2 GiB


def _read_request(conn: socket.socket) -> bytes:
    (size,) = struct.unpack(">i", conn.recv(4))
    request = b""
    while len(request) < size:
        request += conn.recv(size - len(request))
    return request


def server(answer: Callable[[bytes], bytes]) -> ContextManager[int]:
    """A real listener on loopback: each request gets ``answer(request)``, then the
    connection stays open until the client closes it."""

    def handle(conn: socket.socket) -> None:
        conn.sendall(answer(_read_request(conn)))
        while conn.recv(65536):
            pass

    return loopback_server(handle)


def announces(size: int, sent: int = 64 * 1024) -> Callable[[bytes], bytes]:
    """An answer announcing ``size`` bytes, of which ``sent`` follow (the correlation id
    first, as a broker's would)."""
    return lambda request: struct.pack(">i", size) + request[4:8] + b"\0" * (sent - 4)


def padded_answer(padding: int) -> Callable[[bytes], bytes]:
    """A well-formed answer (error 0) with ``padding`` more bytes of body."""

    def answer(request: bytes) -> bytes:
        body = request[4:8] + struct.pack(">h", 0) + b"\1" * padding
        return struct.pack(">i", len(body)) + body

    return answer


def peak_allocated(call: Callable[[], T]) -> tuple[T, int]:
    """``call()``'s result and the most memory Python held meanwhile (tracemalloc)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_ping_refuses_a_2_gib_answer_without_allocating_it() -> None:
    with server(announces(HUGE)) as port:
        (outcome, detail), peak = peak_allocated(lambda: ping("127.0.0.1", port, 5.0))
    assert outcome == "error"
    assert "FrameTooLarge" in detail and str(HUGE) in detail
    assert peak < 4 * MAX_RESPONSE_BYTES, f"{peak} bytes allocated"


@pytest.mark.parametrize("size", [-1, 0, 5, MAX_RESPONSE_BYTES + 1])
def test_exchange_refuses_sizes_out_of_bounds(size: int) -> None:
    with (
        server(announces(size, sent=16)) as port,
        socket.create_connection(("127.0.0.1", port)) as sock,
        pytest.raises(FrameTooLarge, match=f"{size}-byte"),
    ):
        exchange(sock, 18, 0, b"", 7)


def test_an_answer_within_the_bound_arrives_whole_in_pieces() -> None:
    padding = MAX_RESPONSE_BYTES - 6  # the largest accepted: several reads of 64 KiB
    with (
        server(padded_answer(padding)) as port,
        socket.create_connection(("127.0.0.1", port)) as sock,
    ):
        error, body = exchange(sock, 18, 0, b"", 7)
    assert error == 0 and body == b"\1" * padding
    with server(padded_answer(0)) as port:
        assert ping("127.0.0.1", port, 5.0) == ("answered", "")


def test_a_sasl_login_refuses_a_2_gib_answer_without_allocating_it() -> None:
    import kafka.net.sasl  # noqa: F401 - imported before measuring (sasl_login imports it)

    with server(announces(HUGE)) as port:
        verdict, peak = peak_allocated(
            lambda: sasl_login("127.0.0.1", port, "PLAIN", "u", "p", timeout_s=5.0)
        )
    assert not verdict.ok and not verdict.refused
    assert str(HUGE) in verdict.message
    assert peak < 4 * MAX_RESPONSE_BYTES, f"{peak} bytes allocated"
