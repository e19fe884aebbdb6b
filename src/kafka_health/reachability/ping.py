"""One ping of one broker: connect, TLS when the listener has it, an ApiVersions request (which
a SASL listener answers before any login), its answer; all within one deadline.

The outcome says what failed, which tells the on-call what to look at: ``refused`` (nothing
listens on the port: the process is down or restarting), ``timeout`` (it accepts or not, but
does not answer: hung, a long GC pause, the network), ``closed`` (it hung up), ``tls`` (the
handshake failed), ``unreachable`` (no route to the host) or ``error``.

On a TLS listener the handshake also says two things about the broker's certificate: when it
expires (the peer certificate of every completed handshake, :class:`Certificate`), and, when
the handshake fails, why (:data:`TLS_FAILURES`, from OpenSSL's verification error: an expired
certificate, one from a CA the monitor does not trust, one for another name).
"""

from __future__ import annotations

import errno
import socket
import ssl
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kafka_health.kafka_wire import exchange

Address = tuple[str, int]
"""A broker's host and port."""
API_VERSIONS = 18
ANSWERED = "answered"
FAILURES = ("refused", "timeout", "closed", "tls", "unreachable", "error")
"""Failure outcomes (the label ``reason`` of ``broker_unanswered_seconds``): a fixed list."""
_UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}

TLS_FAILURES = ("expired", "not_yet_valid", "unknown_authority", "name_mismatch",
                "handshake_failed")  # fmt: skip
"""Why a TLS handshake failed (the detail ``tls_failure`` of a ``tls`` outcome): a fixed list."""
_VERIFY_CODES = {
    # OpenSSL's X509_V_ERR_* (openssl/x509_vfy.h), as ssl.SSLCertVerificationError.verify_code
    9: "not_yet_valid",  # CERT_NOT_YET_VALID
    10: "expired",  # CERT_HAS_EXPIRED
    2: "unknown_authority",  # UNABLE_TO_GET_ISSUER_CERT
    18: "unknown_authority",  # DEPTH_ZERO_SELF_SIGNED_CERT
    19: "unknown_authority",  # SELF_SIGNED_CERT_IN_CHAIN
    20: "unknown_authority",  # UNABLE_TO_GET_ISSUER_CERT_LOCALLY
    21: "unknown_authority",  # UNABLE_TO_VERIFY_LEAF_SIGNATURE
    62: "name_mismatch",  # HOSTNAME_MISMATCH
    64: "name_mismatch",  # IP_ADDRESS_MISMATCH
}
_WHY = {
    "expired": "the broker's certificate has expired",
    "not_yet_valid": "the broker's certificate is not valid yet (is a clock wrong?)",
    "unknown_authority": "the broker's certificate is not signed by a CA the monitor trusts",
    "name_mismatch": "the broker's certificate is not valid for the name {host}",
    "handshake_failed": "the TLS handshake failed",
}


def address(server: str) -> Address:
    """``host:port`` (``[v6]:port`` too) as an address."""
    host, _, port = server.rpartition(":")
    return host.strip("[]"), int(port)


@dataclass(frozen=True)
class Certificate:
    """What a ping keeps of the broker's certificate (the leaf the broker presented: Python
    3.11's ``ssl`` gives no other of its chain): ``not_after`` in epoch seconds, the subject
    and issuer as ``CN=...,O=...``, the serial number in hex."""

    not_after: float
    subject: str = ""
    issuer: str = ""
    serial: str = ""

    @classmethod
    def of(cls, peer: dict[str, Any] | None) -> Certificate | None:
        """From :meth:`ssl.SSLSocket.getpeercert` (empty when the certificate was not
        verified: no fields to read)."""
        if not peer or "notAfter" not in peer:
            return None
        return cls(
            ssl.cert_time_to_seconds(peer["notAfter"]),
            _name(peer.get("subject", ())),
            _name(peer.get("issuer", ())),
            str(peer.get("serialNumber", "")),
        )

    def details(self, now: float) -> dict[str, Any]:
        return {
            "not_after": datetime.fromtimestamp(self.not_after, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_left": round((self.not_after - now) / 86400, 1),
            "subject": self.subject,
            "issuer": self.issuer,
            "serial": self.serial,
        }


_SHORT = {"commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU",
          "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST"}  # fmt: skip


def _name(rdns: Any) -> str:
    """``((("commonName", "x"),), ...)`` as ``CN=x,...``."""
    return ",".join(f"{_SHORT.get(k, k)}={v}" for rdn in rdns for k, v in rdn)


@dataclass(frozen=True)
class Ping:
    """One ping's result: ``started``/``finished`` in epoch seconds, ``outcome`` ``answered``
    or one of :data:`FAILURES`, ``detail`` the error's text; on a TLS listener, why its
    handshake failed (``tls_failure``, one of :data:`TLS_FAILURES`) or the certificate of a
    completed handshake."""

    broker_id: int
    started: float
    finished: float
    outcome: str
    detail: str = ""
    tls_failure: str = ""
    certificate: Certificate | None = None

    @property
    def answered(self) -> bool:
        return self.outcome == ANSWERED


@dataclass(frozen=True)
class Reply:
    """What one ping found (:func:`probe`): its outcome and detail as :func:`ping`'s, why a
    TLS handshake failed, the certificate of a completed one."""

    outcome: str
    detail: str = ""
    tls_failure: str = ""
    certificate: Certificate | None = None


def as_reply(answer: Reply | tuple[str, str]) -> Reply:
    """A pinger's answer (a :class:`Reply`, or an ``(outcome, detail)`` pair) as a Reply."""
    return answer if isinstance(answer, Reply) else Reply(answer[0], answer[1])


def ping(
    host: str, port: int, deadline_s: float, context: ssl.SSLContext | None = None
) -> tuple[str, str]:
    """(outcome, detail) of one ApiVersions exchange with ``host:port``; never raises."""
    reply = probe(host, port, deadline_s, context)
    return reply.outcome, reply.detail


def probe(host: str, port: int, deadline_s: float, context: ssl.SSLContext | None = None) -> Reply:
    """One ApiVersions exchange with ``host:port`` (over TLS with ``context``), and what its
    handshake said of the certificate; never raises."""
    deadline = time.monotonic() + deadline_s
    certificate: Certificate | None = None
    try:
        with socket.create_connection((host, port), timeout=deadline_s) as raw:
            if context is None:
                exchange(raw, API_VERSIONS, 0, b"", 1, deadline=deadline)
            else:
                raw.settimeout(max(0.001, deadline - time.monotonic()))
                with context.wrap_socket(raw, server_hostname=host) as sock:
                    certificate = Certificate.of(sock.getpeercert())
                    exchange(sock, API_VERSIONS, 0, b"", 1, deadline=deadline)
        return Reply(ANSWERED, certificate=certificate)
    except ConnectionRefusedError as exc:
        return Reply("refused", str(exc))
    except TimeoutError as exc:
        return Reply("timeout", str(exc) or f"no answer within {deadline_s:g} s", "", certificate)
    except ssl.SSLError as exc:
        if certificate is not None:  # after the handshake: not the certificate's doing
            return Reply("tls", str(exc), "", certificate)
        why = tls_failure(exc)
        return Reply("tls", f"{_WHY[why].format(host=host)} ({exc})", why)
    except (ConnectionError, EOFError) as exc:
        return Reply("closed", str(exc), "", certificate)
    except OSError as exc:
        outcome = "unreachable" if exc.errno in _UNREACHABLE else "error"
        return Reply(outcome, str(exc), "", certificate)
    except Exception as exc:  # a garbled answer (struct.error): it answered, but not Kafka
        return Reply("error", f"{type(exc).__name__}: {exc}", "", certificate)


def tls_failure(exc: ssl.SSLError) -> str:
    """Why a handshake failed, one of :data:`TLS_FAILURES`: OpenSSL's verification error
    (expired, not yet valid, an unknown CA, another name), else ``handshake_failed`` (no
    common protocol or cipher, a client certificate refused, the broker hung up)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return _VERIFY_CODES.get(exc.verify_code, "handshake_failed")
    return "handshake_failed"
