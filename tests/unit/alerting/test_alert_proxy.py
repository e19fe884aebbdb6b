"""Pages through an egress proxy, as urllib sent them: the proxy the environment names
(``https_proxy``, ``http_proxy``, ``no_proxy``), a ``CONNECT`` tunnel and TLS to the receiver
(its certificate checked) for https, the absolute-form request for http, the proxy's
credentials from its URL's user info and never in a log; a proxy that refuses or hangs fails
the attempt within its deadline, and the page is sent again. Real servers on 127.0.0.1: a
CONNECT proxy (a thread piping bytes), webhook receivers over http and https (a test CA)."""

from __future__ import annotations

import base64
import contextlib
import logging
import select
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from tests.support.alerting_harness import FakeClock, alerting_config, shipped_rules, sig
from tests.support.system_tools import signed_certificates

from kafka_health.alerting import http_exchange
from kafka_health.alerting.http_exchange import Target
from kafka_health.alerting.notification import Notification
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.webhook import HttpTransport
from kafka_health.config import ReceiverConfig
from kafka_health.dev.webhook_receiver import ReceiverState, _handler, webhook_receiver

T0 = 1_700_000_000.0
NOTE = Notification("pager", "{}", {}, "firing", "first", "key-1", [])
USER, PASSWORD = "pager-proxy", "pr0xy@S3CRET"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
SECRETS = ("pager-proxy", "pr0xy", "S3CRET", BASIC)


@pytest.fixture(autouse=True)
def no_proxy_from_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sets the proxy variables it means; none from the machine running it."""
    for name in ("http", "https", "no", "all"):
        monkeypatch.delenv(f"{name}_proxy", raising=False)
        monkeypatch.delenv(f"{name.upper()}_PROXY", raising=False)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test CA; ``server`` certified for localhost and 127.0.0.1, ``wrong`` for another name."""
    return signed_certificates(
        tmp_path_factory.mktemp("pki"), "proxy test CA",
        {"server": "IP:127.0.0.1,DNS:localhost", "wrong": "DNS:elsewhere.test"},
    )  # fmt: skip


@pytest.fixture
def trusting(pki: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exchange's TLS context trusts the test CA (and it alone)."""
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    monkeypatch.setattr(http_exchange, "_CONTEXT", context)


@contextmanager
def https_receiver(state: ReceiverState, pki: Path, cert: str = "server") -> Iterator[list[str]]:
    """The webhook receiver over TLS on 127.0.0.1 (port in ``state.location``); yields the
    server names the clients sent (SNI)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki / f"{cert}.crt", pki / f"{cert}.key")
    names: list[str] = []

    def sni(_sock: ssl.SSLObject, name: str | None, _context: ssl.SSLContext) -> None:
        names.append(name or "")

    context.sni_callback = sni

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def finish_request(self, request: Any, client_address: Any) -> None:
            request.settimeout(10)
            tls = context.wrap_socket(request, server_side=True)  # in the request's thread
            super().finish_request(tls, client_address)

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that rejected the certificate

    server = Server(("127.0.0.1", 0), _handler(state))
    state.location = str(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield names
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()


class ProxyServer:
    """A forward proxy: ``CONNECT`` (a tunnel) and absolute-form requests (forwarded in
    origin form, without Proxy-Authorization). Records each request's head (its lines).
    ``mode()``: ``ok``, ``407``, ``hang`` (says nothing), ``drip`` (a 200 to CONNECT, a byte
    every 0.2 s), ``flood`` (an endless header). With ``basic`` set, 407 unless the request
    carries ``Proxy-Authorization: Basic <basic>``."""

    def __init__(self, basic: str | None = None) -> None:
        self.basic = basic
        self.mode: Callable[[], str] = lambda: "ok"
        self.heads: list[list[str]] = []
        self.release = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            head, rest = data.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            self.heads.append(lines)
            mode = self.mode()
            authorized = self.basic is None or f"Proxy-Authorization: Basic {self.basic}" in lines
            if mode == "hang":
                self.release.wait(30)
            elif mode == "drip":
                for byte in b"HTTP/1.1 200 Connection established\r\n\r\n":
                    conn.sendall(bytes([byte]))
                    if self.release.wait(0.2):
                        return
            elif mode == "flood":
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Pad: " + b"x" * 40_000)
                self.release.wait(30)
            elif mode == "407" or not authorized:
                conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                             b"Proxy-Authenticate: Basic realm=\"egress\"\r\n"
                             b"Content-Length: 0\r\nConnection: close\r\n\r\n")  # fmt: skip
            else:
                self._forward(conn, lines, rest)

    def _forward(self, conn: socket.socket, lines: list[str], rest: bytes) -> None:
        method, target, version = lines[0].split(" ")
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)), timeout=10)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            parts = urllib.parse.urlsplit(target)
            upstream = socket.create_connection((parts.hostname, parts.port or 80), timeout=10)
            kept = [h for h in lines[1:] if not h.lower().startswith("proxy-authorization:")]
            origin = f"{method} {parts.path}{'?' + parts.query if parts.query else ''} {version}"
            upstream.sendall("\r\n".join([origin, *kept, "", ""]).encode("latin-1") + rest)
        with upstream, contextlib.suppress(OSError):  # either end gone: the tunnel's end
            while not self.release.is_set():
                for ready in select.select([conn, upstream], [], [], 0.1)[0]:
                    data = ready.recv(65536)
                    if not data:
                        return
                    (upstream if ready is conn else conn).sendall(data)


@pytest.fixture
def proxy() -> Iterator[ProxyServer]:
    server = ProxyServer(basic=BASIC)
    try:
        yield server
    finally:
        server.close()


def with_credentials(url: str) -> str:
    quoted = urllib.parse.quote(PASSWORD, safe="")
    return url.replace("http://", f"http://{USER}:{quoted}@")


def test_an_http_receiver_is_reached_by_the_absolute_form_request_to_the_proxy(
    proxy: ProxyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", with_credentials(proxy.url))
    state = ReceiverState()
    with webhook_receiver(state) as url:
        receiver = ReceiverConfig(name="pager", url=f"{url}/pager?team=kafka", timeout_s=5)
        result = HttpTransport().send(receiver, NOTE)
    assert result.ok, result
    [head] = proxy.heads
    assert head[0] == f"POST {url}/pager?team=kafka HTTP/1.1", "absolute-form"
    assert f"Host: {url.removeprefix('http://')}" in head
    assert f"Proxy-Authorization: Basic {BASIC}" in head, "from the proxy URL's user info"
    [got] = state.requests
    assert got.path == "/pager?team=kafka" and got.key == "key-1"


@pytest.mark.usefixtures("trusting")
def test_an_https_receiver_is_reached_through_a_connect_tunnel_its_certificate_checked(
    proxy: ProxyServer, pki: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("https_proxy", with_credentials(proxy.url))
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # for http receivers only
    state = ReceiverState()
    with https_receiver(state, pki) as names:
        port = state.location
        receiver = ReceiverConfig(name="pager", url=f"https://localhost:{port}/pager", timeout_s=5)
        result = HttpTransport().send(receiver, NOTE)
    assert result.ok, result
    [head] = proxy.heads
    assert head[0] == f"CONNECT localhost:{port} HTTP/1.1"
    assert head[1:] == [f"Host: localhost:{port}", f"Proxy-Authorization: Basic {BASIC}"]
    assert names == ["localhost"], "the receiver's name sent (SNI) through the tunnel"
    [got] = state.requests
    assert got.path == "/pager" and got.headers["host"] == f"localhost:{port}"
    assert "proxy-authorization" not in got.headers, "the credentials stay with the proxy"

    wrong = ReceiverState()
    with https_receiver(wrong, pki, cert="wrong"):
        url = f"https://localhost:{wrong.location}/pager"
        result = HttpTransport().send(ReceiverConfig(name="pager", url=url, timeout_s=5), NOTE)
    assert (result.ok, result.retryable, result.reason) == (False, True, "connection")
    assert "SSLCertVerificationError" in result.error, "a certificate for another name"
    assert len(proxy.heads) == 2 and wrong.requests == []


def test_no_proxy_sends_directly(proxy: ProxyServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "pager.example, .corp.test,127.0.0.1")
    state = ReceiverState()
    with webhook_receiver(state) as url:
        result = HttpTransport().send(ReceiverConfig(name="pager", url=f"{url}/p"), NOTE)
    assert result.ok and [r.path for r in state.requests] == ["/p"]
    assert proxy.heads == [], "the proxy was not used"


HTTPS = "https://pager.example/hook"


@pytest.mark.parametrize(
    ("env", "url", "expected"),
    [
        ({"HTTPS_PROXY": "http://up:3128"}, HTTPS, "up:3128"),
        ({"https_proxy": "low:1", "HTTPS_PROXY": "http://up:2"}, HTTPS, "low:1"),
        ({"https_proxy": "", "HTTPS_PROXY": "http://up:2"}, HTTPS, None),
        ({"HTTP_PROXY": "http://plain:3128"}, HTTPS, None),
        ({"HTTP_PROXY": "http://plain"}, "http://pager.example/hook", "plain:80"),
        ({"ALL_PROXY": "http://all:1"}, HTTPS, None),
        ({"HTTPS_PROXY": "http://up:2", "NO_PROXY": "*"}, HTTPS, None),
        ({"HTTPS_PROXY": "http://up:2", "no_proxy": ".EXAMPLE"}, HTTPS, None),
        ({"HTTPS_PROXY": "http://up:2", "no_proxy": "ager.example"}, HTTPS, "up:2"),
        ({"HTTPS_PROXY": "http://up:2", "NO_PROXY": "pager.example:443"}, HTTPS, None),
        ({"HTTPS_PROXY": "http://up:2", "NO_PROXY": "pager.example:8443"}, HTTPS, "up:2"),
        ({"HTTPS_PROXY": "http://up:2", "NO_PROXY": "a.test, pager.example"}, HTTPS, None),
    ],
)
def test_the_proxy_is_chosen_as_urllib_chose_it(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], url: str, expected: str | None
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    proxy = Target.parse(url).proxy
    assert (f"{proxy.host}:{proxy.port}" if proxy else None) == expected


def test_an_unusable_proxy_url_fails_the_attempt_without_quoting_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", f"https://{USER}:S3CRET@proxy.test:3128")
    receiver = ReceiverConfig(name="pager", url="https://pager.example/hook", timeout_s=1)
    caplog.set_level(logging.INFO)
    HttpTransport().check([receiver])
    result = HttpTransport().send(receiver, NOTE)
    assert (result.ok, result.retryable, result.reason) == (False, True, "invalid_request")
    assert "not http://" in result.error
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "receiver pager: the proxy URL is not http://" in logged
    for secret in SECRETS:
        assert secret not in logged + result.error


def failed(svc: AlertService, reason: str) -> float:
    value = svc.registry.get_sample_value(
        "kafka_health_notifications_failed_total", {"receiver": "pager", "reason": reason}
    )
    return value or 0.0


@pytest.mark.usefixtures("trusting")
def test_a_refusing_proxy_fails_the_attempt_and_the_page_is_sent_again(
    tmp_path: Path,
    pki: Path,
    proxy: ProxyServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """407 to CONNECT is a connection failure, retried (not the receiver's 4xx, final): the
    page never reached the receiver. The credentials are in no log and no stored file."""
    monkeypatch.setenv("HTTPS_PROXY", with_credentials(proxy.url))
    refusing = threading.Event()
    refusing.set()
    proxy.mode = lambda: "407" if refusing.is_set() else "ok"
    state = ReceiverState()
    caplog.set_level(logging.DEBUG)
    with https_receiver(state, pki):
        receiver = ReceiverConfig(
            name="pager", url=f"https://127.0.0.1:{state.location}/pager", timeout_s=5,
            backoff_initial_s=2, backoff_max_s=4,
        )  # fmt: skip
        clock = FakeClock()
        transport = HttpTransport(clock)
        svc = AlertService(
            alerting_config(tmp_path, receivers=[receiver]), shipped_rules(), cluster="test",
            clock=clock, transport=transport, registry=CollectorRegistry(), rand=lambda: 0.5,
        )  # fmt: skip
        transport.check([receiver])
        svc.open()
        for t in range(0, 30):
            if t == 12:
                refusing.clear()
            clock.now = T0 + t
            svc.submit([sig("processor_uncaught_exceptions", 1, t, broker_id=3)])
            svc.step()
            svc.deliver()
    assert failed(svc, "connection") >= 2, "retried while the proxy refused"
    assert failed(svc, "client_error") == 0
    assert [r.path for r in state.requests] == ["/pager"], "then delivered, once"
    assert all(h[0].startswith("CONNECT 127.0.0.1:") for h in proxy.heads)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"receiver pager is reached through the proxy {proxy.url}" in logged
    assert "the proxy refused the tunnel (HTTP 407)" in logged
    stored = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    for secret in SECRETS:
        assert secret not in logged, secret
        assert secret not in stored, secret


@pytest.mark.parametrize(
    ("scheme", "mode"), [("https", "hang"), ("https", "drip"), ("https", "flood"), ("http", "hang")]
)
def test_a_proxy_that_hangs_or_drips_fails_the_attempt_within_its_deadline(
    proxy: ProxyServer, monkeypatch: pytest.MonkeyPatch, mode: str, scheme: str
) -> None:
    """Every step through the proxy is under the request's one deadline: a proxy saying
    nothing, or its 200 to CONNECT a byte every 0.2 s (8 s in all), ends the attempt at 1 s;
    an answer to CONNECT with no end is read no further than its bound."""
    monkeypatch.setenv(f"{scheme.upper()}_PROXY", with_credentials(proxy.url))
    proxy.mode = lambda: mode
    receiver = ReceiverConfig(name="pager", url=f"{scheme}://127.0.0.1:9/pager", timeout_s=1.0)
    began = time.monotonic()
    result = HttpTransport().send(receiver, NOTE)
    took = time.monotonic() - began
    reason = "connection" if mode == "flood" else "timeout"
    assert (result.ok, result.retryable, result.reason) == (False, True, reason), result
    assert took < 1.0 + 1.0, "ended at the deadline, not at the proxy's pace"
    assert len(proxy.heads) == 1
    if mode == "flood":
        assert "too long" in result.error


def test_a_407_to_a_plain_request_is_the_proxys_refusal_not_the_receivers_answer(
    proxy: ProxyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through an http proxy the answer comes back on the request's connection: a 407 (the
    proxy wants credentials) is a connection failure, retried, not a final 4xx."""
    monkeypatch.setenv("http_proxy", proxy.url)  # no user info: the proxy answers 407
    state = ReceiverState()
    with webhook_receiver(state) as url:
        result = HttpTransport().send(ReceiverConfig(name="pager", url=f"{url}/p"), NOTE)
    assert (result.ok, result.retryable, result.reason) == (False, True, "connection")
    assert "HTTP 407" in result.error and state.requests == []
    assert proxy.heads[0][0] == f"POST {url}/p HTTP/1.1"
