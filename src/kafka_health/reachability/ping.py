"""One ping of one broker: connect, TLS when the listener has it, an ApiVersions request (which
a SASL listener answers before any login), its answer; all within one deadline.

The outcome says what failed, which tells the on-call what to look at: ``refused`` (nothing
listens on the port: the process is down or restarting), ``timeout`` (it accepts or not, but
does not answer: hung, a long GC pause, the network), ``closed`` (it hung up), ``tls`` (the
handshake failed), ``unreachable`` (no route to the host) or ``error``.
"""

from __future__ import annotations

import errno
import socket
import ssl
import time
from dataclasses import dataclass

from kafka_health.kafka_wire import exchange

Address = tuple[str, int]
"""A broker's host and port."""
API_VERSIONS = 18
ANSWERED = "answered"
FAILURES = ("refused", "timeout", "closed", "tls", "unreachable", "error")
"""Failure outcomes (the label ``reason`` of ``broker_unanswered_seconds``): a fixed list."""
_UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}


def address(server: str) -> Address:
    """``host:port`` (``[v6]:port`` too) as an address."""
    host, _, port = server.rpartition(":")
    return host.strip("[]"), int(port)


@dataclass(frozen=True)
class Ping:
    """One ping's result: ``started``/``finished`` in epoch seconds, ``outcome`` ``answered``
    or one of :data:`FAILURES`, ``detail`` the error's text."""

    broker_id: int
    started: float
    finished: float
    outcome: str
    detail: str = ""

    @property
    def answered(self) -> bool:
        return self.outcome == ANSWERED


def ping(
    host: str, port: int, deadline_s: float, context: ssl.SSLContext | None = None
) -> tuple[str, str]:
    """(outcome, detail) of one ApiVersions exchange with ``host:port``; never raises."""
    deadline = time.monotonic() + deadline_s
    try:
        with socket.create_connection((host, port), timeout=deadline_s) as raw:
            if context is None:
                exchange(raw, API_VERSIONS, 0, b"", 1, deadline=deadline)
            else:
                raw.settimeout(max(0.001, deadline - time.monotonic()))
                with context.wrap_socket(raw, server_hostname=host) as sock:
                    exchange(sock, API_VERSIONS, 0, b"", 1, deadline=deadline)
        return ANSWERED, ""
    except ConnectionRefusedError as exc:
        return "refused", str(exc)
    except TimeoutError as exc:
        return "timeout", str(exc) or f"no answer within {deadline_s:g} s"
    except ssl.SSLError as exc:
        return "tls", str(exc)
    except (ConnectionError, EOFError) as exc:
        return "closed", str(exc)
    except OSError as exc:
        return ("unreachable" if exc.errno in _UNREACHABLE else "error"), str(exc)
    except Exception as exc:  # a garbled answer (struct.error): it answered, but not Kafka
        return "error", f"{type(exc).__name__}: {exc}"
