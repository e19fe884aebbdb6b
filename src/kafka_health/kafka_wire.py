"""Kafka's request framing, for the few requests the monitor speaks on a socket of its own
(a SASL login at start, the brokers' ApiVersions pings): request header v1, response header
v0, each bounded by a deadline on the monotonic clock when one is given.
"""

from __future__ import annotations

import socket
import struct
import time

CLIENT_ID = "kafka-health-check"


def encode_string(text: str) -> bytes:
    """A Kafka STRING: int16 length, then the UTF-8 bytes."""
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def exchange(
    sock: socket.socket, api_key: int, version: int, body: bytes, correlation: int,
    client_id: str = CLIENT_ID, deadline: float | None = None,
) -> tuple[int, bytes]:  # fmt: skip
    """One request and its response: (the response's leading error code, rest of its body).

    ``deadline`` (``time.monotonic()`` seconds) bounds the whole exchange: past it a
    ``TimeoutError``, however the broker drips its answer."""
    header = struct.pack(">hhi", api_key, version, correlation) + encode_string(client_id)
    request = header + body
    _bound(sock, deadline)
    sock.sendall(struct.pack(">i", len(request)) + request)
    (size,) = struct.unpack(">i", read_exact(sock, 4, deadline))
    payload = read_exact(sock, size, deadline)
    (got,) = struct.unpack(">i", payload[:4])
    if got != correlation:
        raise ConnectionError(f"correlation id {got}, expected {correlation}")
    (error,) = struct.unpack(">h", payload[4:6])
    return error, payload[6:]


def read_exact(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    """``n`` bytes; ``ConnectionError`` when the peer closes first."""
    data = b""
    while len(data) < n:
        _bound(sock, deadline)
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return data


def _bound(sock: socket.socket, deadline: float | None) -> None:
    if deadline is None:
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no answer before the deadline")
    sock.settimeout(left)
