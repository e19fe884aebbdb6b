"""A SASL login against one Kafka listener, speaking the two protocol messages it takes
(SaslHandshake v1, SaslAuthenticate v1) over a plain or TLS socket: the broker's answer says
whether the credentials are refused, where a Kafka client only sees the connection drop and
retries (kafka-python does; the monitor would then start and never connect).

The mechanism's own messages (PLAIN, SCRAM-SHA-256/512) come from kafka-python.
"""

from __future__ import annotations

import socket
import ssl
import struct
from dataclasses import dataclass

SASL_HANDSHAKE, SASL_AUTHENTICATE = 17, 36
CLIENT_ID = b"kafka-health-check"


@dataclass(frozen=True)
class SaslVerdict:
    """``ok``; else the broker's error (``refused``) or why the exchange broke off."""

    ok: bool
    refused: bool = False
    message: str = ""


def sasl_login(
    host: str, port: int, mechanism: str, username: str, password: str,
    context: ssl.SSLContext | None = None, timeout_s: float = 10.0,
) -> SaslVerdict:  # fmt: skip
    """Log in once; never raises for the broker's answer (OSError when it cannot connect)."""
    from kafka.net.sasl import get_sasl_mechanism

    with socket.create_connection((host, port), timeout=timeout_s) as raw:
        sock = context.wrap_socket(raw, server_hostname=host) if context else raw
        try:
            error, body = _exchange(sock, SASL_HANDSHAKE, 1, _string(mechanism), 1)
            if error:
                return SaslVerdict(False, False, f"mechanism {mechanism} not enabled ({error})")
            client = get_sasl_mechanism(mechanism)(
                host=host, sasl_mechanism=mechanism, sasl_plain_username=username,
                sasl_plain_password=password,
            )  # fmt: skip
            correlation = 2
            while not client.is_done():
                token = client.auth_bytes()
                error, body = _exchange(
                    sock, SASL_AUTHENTICATE, 1, struct.pack(">i", len(token)) + token, correlation
                )
                correlation += 1
                message, auth_bytes = _authenticate_response(body)
                if error:
                    return SaslVerdict(False, True, message or f"error code {error}")
                client.receive(auth_bytes)
            if not client.is_authenticated():
                return SaslVerdict(False, True, "the broker's proof did not verify")
            return SaslVerdict(True)
        except (ConnectionError, TimeoutError, struct.error) as exc:
            return SaslVerdict(False, False, f"the exchange broke off: {exc}")
        finally:
            if sock is not raw:
                sock.close()


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def _exchange(
    sock: socket.socket, api_key: int, version: int, body: bytes, correlation: int
) -> tuple[int, bytes]:
    """One request (header v1) and its response (header v0): (error code, rest of body)."""
    header = struct.pack(">hhi", api_key, version, correlation) + _string(CLIENT_ID.decode())
    request = header + body
    sock.sendall(struct.pack(">i", len(request)) + request)
    (size,) = struct.unpack(">i", _read(sock, 4))
    payload = _read(sock, size)
    (got,) = struct.unpack(">i", payload[:4])
    if got != correlation:
        raise ConnectionError(f"correlation id {got}, expected {correlation}")
    (error,) = struct.unpack(">h", payload[4:6])
    return error, payload[6:]


def _authenticate_response(body: bytes) -> tuple[str, bytes]:
    """SaslAuthenticate v1's error message and auth bytes (the error code already read)."""
    (length,) = struct.unpack(">h", body[:2])
    pos = 2
    message = ""
    if length >= 0:
        message = body[pos : pos + length].decode(errors="replace")
        pos += length
    (size,) = struct.unpack(">i", body[pos : pos + 4])
    pos += 4
    return message, body[pos : pos + max(size, 0)]


def _read(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return data
