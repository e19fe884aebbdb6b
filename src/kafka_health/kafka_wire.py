"""Kafka's request framing, for the few requests the monitor speaks on a socket of its own
(a SASL login at start, the brokers' ApiVersions pings): request header v1, response header
v0, each bounded by a deadline on the monotonic clock when one is given.
"""

from __future__ import annotations

import socket
import struct
import time

CLIENT_ID = "kafka-health-check"
MAX_RESPONSE_BYTES = 1 << 20
"""The largest answer accepted: ApiVersions and SASL answers are a few KiB. A peer that
announces more (not Kafka, or hostile) is refused before anything is allocated for it."""
_CHUNK = 64 * 1024
"""At most this much is asked of one ``recv``: the buffer is allocated at the size asked."""


class FrameTooLarge(ValueError):
    """The peer announced a response larger than the limit (or a negative size)."""


def encode_string(text: str) -> bytes:
    """A Kafka STRING: int16 length, then the UTF-8 bytes."""
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def exchange(
    sock: socket.socket, api_key: int, version: int, body: bytes, correlation: int,
    client_id: str = CLIENT_ID, deadline: float | None = None,
    max_size: int = MAX_RESPONSE_BYTES,
) -> tuple[int, bytes]:  # fmt: skip
    """One request and its response: (the response's leading error code, rest of its body).

    ``deadline`` (``time.monotonic()`` seconds) bounds the whole exchange: past it a
    ``TimeoutError``, however the broker drips its answer. A response announced larger than
    ``max_size`` (or too short to hold its header) is ``FrameTooLarge``, nothing read of it."""
    header = struct.pack(">hhi", api_key, version, correlation) + encode_string(client_id)
    request = header + body
    _bound(sock, deadline)
    sock.sendall(struct.pack(">i", len(request)) + request)
    (size,) = struct.unpack(">i", read_exact(sock, 4, deadline))
    if not 6 <= size <= max_size:
        raise FrameTooLarge(f"the peer announced a {size}-byte answer (at most {max_size})")
    payload = read_exact(sock, size, deadline)
    (got,) = struct.unpack(">i", payload[:4])
    if got != correlation:
        raise ConnectionError(f"correlation id {got}, expected {correlation}")
    (error,) = struct.unpack(">h", payload[4:6])
    return error, payload[6:]


def read_exact(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    """``n`` bytes; ``ConnectionError`` when the peer closes first. Memory grows with what
    arrives, not with ``n``: callers bound ``n`` (see ``MAX_RESPONSE_BYTES``)."""
    data = bytearray()
    while len(data) < n:
        _bound(sock, deadline)
        chunk = sock.recv(min(n - len(data), _CHUNK))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return bytes(data)


def _bound(sock: socket.socket, deadline: float | None) -> None:
    if deadline is None:
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no answer before the deadline")
    sock.settimeout(left)
