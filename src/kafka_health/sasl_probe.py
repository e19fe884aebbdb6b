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

from kafka_health.kafka_wire import FrameTooLarge, encode_string, exchange

SASL_HANDSHAKE, SASL_AUTHENTICATE = 17, 36


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
            error, body = exchange(sock, SASL_HANDSHAKE, 1, encode_string(mechanism), 1)
            if error:
                return SaslVerdict(False, False, f"mechanism {mechanism} not enabled ({error})")
            client = get_sasl_mechanism(mechanism)(
                host=host, sasl_mechanism=mechanism, sasl_plain_username=username,
                sasl_plain_password=password,
            )  # fmt: skip
            correlation = 2
            while not client.is_done():
                token = client.auth_bytes()
                error, body = exchange(
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
        except (ConnectionError, TimeoutError, struct.error, FrameTooLarge) as exc:
            return SaslVerdict(False, False, f"the exchange broke off: {exc}")
        finally:
            if sock is not raw:
                sock.close()


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
