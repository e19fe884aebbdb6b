"""The brokers' certificates as the job's pings see them: real TLS handshakes with a local
server (certificates made by openssl), why a failed one failed, and the expiry through the
detector and the shipped rules on a fake clock."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import ssl
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.support.loopback import loopback_server
from tests.support.system_tools import openssl, signed_certificates

from kafka_health.alerting.engine import AlertState, Engine
from kafka_health.alerting.rule_config import load_rules
from kafka_health.alerting.store import SignalStore
from kafka_health.detectors.reachability import Reachability
from kafka_health.reachability.ping import TLS_FAILURES, Certificate, Ping, probe, tls_failure

REPO = Path(__file__).resolve().parents[3]
DAY = 86400.0
SIGNAL = "broker_certificate_expiry_timestamp_seconds"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA and, signed by it: ``good`` (for 127.0.0.1), ``elsewhere`` (for another name),
    ``expired`` (valid for 0 days: expired a second after it was made); a self-signed
    ``stranger``."""
    d = signed_certificates(
        tmp_path_factory.mktemp("pki"),
        "ping test CA",
        {"good": "IP:127.0.0.1,DNS:localhost", "elsewhere": "DNS:broker.elsewhere.example"},
    )
    (d / "expired.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", d / "expired.key",
            "-out", d / "expired.csr", "-subj", "/CN=expired")  # fmt: skip
    openssl("x509", "-req", "-in", d / "expired.csr", "-CA", d / "ca.crt", "-CAkey",
            d / "ca.key", "-CAcreateserial", "-out", d / "expired.crt", "-days", "0",
            "-extfile", d / "expired.ext")  # fmt: skip
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d / "stranger.key",
            "-out", d / "stranger.crt", "-days", "2", "-subj", "/CN=stranger",
            "-addext", "subjectAltName=IP:127.0.0.1")  # fmt: skip
    time.sleep(1.1)  # "expired" is past its notAfter (a whole second: notAfter has no fraction)
    return d


Serve = Callable[[str | None], int]


def tls_server(pki: Path, name: str | None) -> contextlib.AbstractContextManager[int]:
    """A port that completes TLS handshakes with certificate ``name`` (None: answers plain
    text), then hangs up: a broker's TLS listener, without Kafka behind it."""
    context: ssl.SSLContext | None = None
    if name is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(pki / f"{name}.crt", pki / f"{name}.key")

    def handle(conn: socket.socket) -> None:
        if context is None:
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        else:
            context.wrap_socket(conn, server_side=True).close()  # ssl.SSLError: an OSError

    return loopback_server(handle, timeout_s=2)


@pytest.fixture
def serve(pki: Path) -> Iterator[Serve]:
    """Starts :func:`tls_server` s (stopped after the test); returns the port."""
    with contextlib.ExitStack() as servers:
        yield lambda name: servers.enter_context(tls_server(pki, name))


def client(pki: Path) -> ssl.SSLContext:
    """The job's context: the CA of the monitored cluster, hostnames checked."""
    return ssl.create_default_context(cafile=str(pki / "ca.crt"))


def not_after(path: Path) -> float:
    out = subprocess.run(["openssl", "x509", "-noout", "-enddate", "-in", str(path)],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return ssl.cert_time_to_seconds(out.strip().removeprefix("notAfter="))


# ------------------------------------------------------------------ the handshake


def test_a_completed_handshake_reads_the_certificates_expiry(pki: Path, serve: Serve) -> None:
    reply = probe("127.0.0.1", serve("good"), 2.0, client(pki))
    assert reply.outcome == "closed", reply  # it hung up after the handshake: no Kafka here
    assert reply.tls_failure == ""
    assert reply.certificate is not None
    assert reply.certificate.not_after == not_after(pki / "good.crt")
    assert reply.certificate.subject == "CN=good"
    assert reply.certificate.issuer == "CN=ping test CA"
    assert reply.certificate.serial


@pytest.mark.parametrize(
    ("name", "host", "why", "words"),
    [
        ("expired", "127.0.0.1", "expired", "certificate has expired"),
        ("stranger", "127.0.0.1", "unknown_authority", "not signed by a CA the monitor trusts"),
        ("elsewhere", "127.0.0.1", "name_mismatch", "not valid for the name 127.0.0.1"),
        ("good", "localhost", "", ""),  # the name it was made for: no failure
        (None, "127.0.0.1", "handshake_failed", "the TLS handshake failed"),
    ],
)
def test_a_failed_handshake_says_why(
    pki: Path, serve: Serve, name: str | None, host: str, why: str, words: str
) -> None:
    reply = probe(host, serve(name), 2.0, client(pki))
    if not why:
        assert reply.outcome == "closed" and reply.certificate is not None, reply
        return
    assert (reply.outcome, reply.tls_failure) == ("tls", why), reply
    assert why in TLS_FAILURES
    assert words in reply.detail, reply.detail
    assert reply.certificate is None


def test_a_plaintext_port_has_no_certificate(serve: Serve) -> None:
    reply = probe("127.0.0.1", serve(None), 2.0)
    assert reply.certificate is None and reply.tls_failure == ""


def test_an_error_that_is_not_a_verification_is_a_failed_handshake() -> None:
    assert tls_failure(ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")) == (
        "handshake_failed"
    )
    unknown = ssl.SSLCertVerificationError(1, "certificate verify failed: certificate revoked")
    unknown.verify_code = 23  # X509_V_ERR_CERT_REVOKED: not one of ours
    assert tls_failure(unknown) == "handshake_failed"


def test_certificate_fields_from_getpeercert() -> None:
    peer = {
        "subject": ((("commonName", "broker-1"),), (("organizationName", "Acme"),)),
        "issuer": ((("commonName", "Acme CA"),),),
        "serialNumber": "1F",
        "notAfter": "Jan  5 09:34:43 2030 GMT",
    }
    cert = Certificate.of(peer)
    assert cert == Certificate(1893836083.0, "CN=broker-1,O=Acme", "CN=Acme CA", "1F")
    assert cert.details(1893836083.0 - 2.5 * DAY)["days_left"] == 2.5
    assert cert.details(0)["not_after"] == "2030-01-05T09:34:43Z"
    assert Certificate.of({}) is None  # not verified: nothing to read


# ------------------------------------------------------------------ the detector and the rules

T0 = 1_700_000_000.0
CERT = Certificate(T0 + 40 * DAY, "CN=broker-1", "CN=CA", "01")


def certificates(d: Reachability, now: float) -> dict[str, tuple[float, dict[str, object]]]:
    return {s.label("broker_id"): (s.value, s.details) for s in d.signals(now) if s.name == SIGNAL}


def test_the_detector_reports_the_last_handshakes_certificate_and_keeps_it_while_failing() -> None:
    d = Reachability()
    d.listed({1: ("127.0.0.1", 9093), 2: ("127.0.0.1", 9094)}, T0)
    assert certificates(d, T0) == {}  # not pinged yet
    d.answered([Ping(1, T0, T0 + 0.01, "answered", certificate=CERT),
                Ping(2, T0, T0 + 0.01, "answered")])  # fmt: skip
    (value, details) = certificates(d, T0 + 1)["1"]
    assert value == CERT.not_after
    assert details["days_left"] == 40.0 and details["address"] == "127.0.0.1:9093"
    assert details["subject"] == "CN=broker-1" and "2" not in certificates(d, T0 + 1)

    expired = "the broker's certificate has expired (certificate verify failed)"
    d.answered([Ping(1, T0 + 50 * DAY, T0 + 50 * DAY, "tls", expired, "expired")])
    (value, details) = certificates(d, T0 + 50 * DAY)["1"]
    assert value == CERT.not_after and details["days_left"] == -10.0
    unanswered = [s for s in d.signals(T0 + 50 * DAY + 6) if s.name == "broker_unanswered_seconds"]
    failing = next(s for s in unanswered if s.label("broker_id") == "1")
    assert failing.label("reason") == "tls"
    assert failing.details["tls_failure"] == "expired" and failing.details["error"] == expired

    renewed = Certificate(T0 + 400 * DAY, "CN=broker-1", "CN=CA", "02")
    d.answered([Ping(1, T0 + 51 * DAY, T0 + 51 * DAY, "answered", certificate=renewed)])
    assert certificates(d, T0 + 51 * DAY)["1"][0] == renewed.not_after
    d.answered([Ping(1, T0 + 52 * DAY, T0 + 52 * DAY, "answered")])  # a plaintext listener now
    assert certificates(d, T0 + 52 * DAY) == {}

    d.answered([Ping(2, T0 + 53 * DAY, T0 + 53 * DAY, "answered", certificate=CERT)])
    d.forget({2})
    assert certificates(d, T0 + 53 * DAY) == {}


def fired(days_left: float) -> dict[str, AlertState]:
    """The certificate rules' alerts for a certificate with ``days_left``, after 10 s."""
    engine = Engine(load_rules(REPO / "conf" / "alerts.yaml"))
    store = SignalStore(ttl_s=60)
    d = Reachability()
    d.listed({1: ("127.0.0.1", 9093)}, T0)
    cert = Certificate(T0 + days_left * DAY, "CN=broker-1", "CN=CA", "01")
    for t in range(0, 11, 5):
        d.answered([Ping(1, T0 + t, T0 + t, "answered", certificate=cert)])
        store.replace(d.signals(T0 + t), T0 + t, keep=())
        engine.evaluate(store, T0 + t)
    return {a.rule: a.state for a in engine.alerts.values() if a.rule.startswith("BrokerCert")}


@pytest.mark.parametrize(
    ("days_left", "expected"),
    [
        (45, {}),
        (29.9, {"BrokerCertificateExpiring": AlertState.FIRING}),
        (7.1, {"BrokerCertificateExpiring": AlertState.FIRING}),
        (6.9, {"BrokerCertificateExpiringSoon": AlertState.FIRING}),
        (-1, {"BrokerCertificateExpiringSoon": AlertState.FIRING}),
    ],
)
def test_the_rules_warn_under_30_days_and_page_under_7(
    days_left: float, expected: dict[str, AlertState]
) -> None:
    assert fired(days_left) == expected


def test_the_page_names_the_certificate() -> None:
    engine = Engine(load_rules(REPO / "conf" / "alerts.yaml"))
    store = SignalStore(ttl_s=60)
    d = Reachability()
    d.listed({3: ("127.0.0.1", 9093)}, T0)
    d.answered(
        [Ping(3, T0, T0, "answered", certificate=dataclasses.replace(CERT, not_after=T0 + 3 * DAY))]
    )
    store.replace(d.signals(T0), T0, keep=())
    engine.evaluate(store, T0)
    (alert,) = engine.alerts.values()
    assert alert.labels["severity"] == "critical"
    assert alert.annotations["summary"] == (
        "Broker 3's TLS certificate expires 2023-11-17T22:13:20Z (3.0 days left)"
    )
    assert "CN=broker-1, issued by CN=CA, serial 01" in alert.annotations["description"]
