"""Every /metrics endpoint the monitor serves (the alert service's exporter, the canary, the
cluster-state prober, the shipper): prometheus-client's exposition app (``make_wsgi_app``:
content negotiation, gzip, ``name[]`` filters) on its threading WSGI server, with the
optional TLS, client certificates and basic auth of the ``metrics_endpoints`` section.

The TLS context is the one prometheus-client's ``start_http_server(certfile=, keyfile=,
client_cafile=, client_auth_required=)`` builds, with one difference: the handshake runs in
the request's thread, not in the accepting one, so a client that connects and says nothing
cannot stop every scrape. Nor can many such clients: a connection takes a thread only once it
has spoken, from a pool of ``MAX_CONNECTION_THREADS`` (:mod:`kafka_health.connection_gate`).
prometheus-client has no server-side basic auth; it is a small WSGI wrapper here
(Prometheus's own ``web.config.file`` offers the same pair).

Every series an endpoint serves carries ``cluster="<cluster_name>"`` (one monitor per
cluster, one Prometheus for many): prometheus-client has no constant labels on a registry, so
the endpoint serves a view of it (:class:`ClusterLabelled`) that adds the label to every sample
at scrape time, counters' and histograms' included. The registries themselves stay without
it: the code that reads them back (and the tests' ``get_sample_value``) sees the labels the
call sites set.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import socket
import ssl
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import RestrictedRegistry

from kafka_health.configuration.secrets import Secret
from kafka_health.connection_gate import ConnectionGate
from kafka_health.errors import ConfigError, ConfigProblem

log = logging.getLogger(__name__)

SECTION = "metrics_endpoints"
CLUSTER_LABEL = "cluster"
HANDSHAKE_TIMEOUT_S = 10.0
"""A scrape's connection may stay silent this long (TLS handshake, request) before it is closed."""
MAX_CONNECTION_THREADS = 8
"""Threads serving connections that have spoken, per endpoint (scrapes take milliseconds)."""
MAX_WAITING_CONNECTIONS = 128
"""Connections held before they speak; past it the one that waited longest is closed."""


@dataclass(frozen=True)
class MetricsEndpointsConfig:
    """TLS and basic auth of every /metrics endpoint (each part keeps its own host and port)."""

    tls_cert_file: str | None = None
    tls_key_file: str | None = None
    tls_client_ca_file: str | None = None
    basic_auth_username: str | None = None
    basic_auth_password: Secret | None = None

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            problems.append(
                ConfigProblem(f"{path}.tls_key_file", "tls_cert_file and tls_key_file go together")
            )
        if self.tls_client_ca_file is not None and self.tls_cert_file is None:
            problems.append(
                ConfigProblem(f"{path}.tls_client_ca_file", "client certificates need TLS: set "
                              "tls_cert_file and tls_key_file")
            )  # fmt: skip
        if (self.basic_auth_username is None) != (self.basic_auth_password is None):
            problems.append(
                ConfigProblem(
                    f"{path}.basic_auth_password",
                    "basic_auth_username and basic_auth_password go together",
                )
            )
        if self.basic_auth_username is not None and ":" in self.basic_auth_username:
            problems.append(
                ConfigProblem(f"{path}.basic_auth_username", "may not contain ':' (RFC 7617)")
            )
        return problems

    @property
    def tls(self) -> bool:
        return self.tls_cert_file is not None

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"


class BasicAuth:
    """A WSGI wrapper that answers 401 unless the request carries the configured credentials."""

    def __init__(self, app: Callable[..., Iterable[bytes]], username: str, password: str) -> None:
        self.app = app
        self._expected = _digest(f"{username}:{password}".encode())

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if self.accepts(environ.get("HTTP_AUTHORIZATION", "")):
            return self.app(environ, start_response)
        start_response(
            "401 Unauthorized",
            [("WWW-Authenticate", 'Basic realm="kafka-health"'), ("Content-Type", "text/plain")],
        )
        return [b"401 Unauthorized\n"]

    def accepts(self, header: str) -> bool:
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            given = base64.b64decode(token.strip(), validate=True)
        except (binascii.Error, ValueError):
            return False
        return hmac.compare_digest(_digest(given), self._expected)


def _digest(credentials: bytes) -> bytes:
    """Equal-length values for a constant-time comparison."""
    return hashlib.sha256(credentials).digest()


class _QuietHandler(WSGIRequestHandler):
    """No access log line per scrape; a silent connection is closed after a while."""

    timeout = HANDSHAKE_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        return


class ClusterLabelled(CollectorRegistry):
    """A read-only view of ``registry`` whose every sample carries ``cluster="<name>"``: what
    a /metrics endpoint and a Pushgateway push expose. A sample that already has a
    ``cluster`` label keeps its own."""

    def __init__(self, registry: CollectorRegistry | RestrictedRegistry, cluster: str) -> None:
        super().__init__()
        self.inner = registry
        self.cluster = cluster

    def register(self, collector: Any) -> None:
        raise TypeError("a labelled view: register with the registry it shows")

    def collect(self) -> Iterator[Metric]:
        for metric in self.inner.collect():
            yield with_label(metric, CLUSTER_LABEL, self.cluster)

    def restricted_registry(self, names: Iterable[str]) -> Any:
        """The ``name[]`` filter of a scrape, on the registry shown."""
        inner = self.inner
        assert isinstance(inner, CollectorRegistry)
        return ClusterLabelled(inner.restricted_registry(names), self.cluster)


def with_label(metric: Metric, name: str, value: str) -> Metric:
    """``metric`` with ``name="value"`` on each sample that does not have the label yet."""
    labelled = Metric(metric.name, metric.documentation, metric.type, metric.unit)
    labelled.samples = [
        s if name in s.labels else s._replace(labels={name: value, **s.labels})
        for s in metric.samples
    ]
    return labelled


def tls_context(config: MetricsEndpointsConfig) -> ssl.SSLContext:
    """The server's TLS context; a file that cannot be loaded is a ``ConfigError`` naming it."""
    assert config.tls_cert_file is not None and config.tls_key_file is not None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(config.tls_cert_file, config.tls_key_file)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(
            [ConfigProblem(f"{SECTION}.tls_cert_file", f"cannot load {config.tls_cert_file} "
                           f"with {config.tls_key_file}: {exc}")]
        ) from exc  # fmt: skip
    if config.tls_client_ca_file is not None:
        try:
            context.load_verify_locations(cafile=config.tls_client_ca_file)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(
                [ConfigProblem(f"{SECTION}.tls_client_ca_file",
                               f"cannot load {config.tls_client_ca_file}: {exc}")]
            ) from exc  # fmt: skip
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def metrics_app(
    registry: CollectorRegistry, config: MetricsEndpointsConfig, cluster: str
) -> Callable[..., Iterable[bytes]]:
    """prometheus-client's exposition app of ``registry`` with ``cluster`` on every series,
    behind basic auth when it is configured."""
    app: Callable[..., Iterable[bytes]] = make_wsgi_app(ClusterLabelled(registry, cluster))
    if config.basic_auth_username is None or config.basic_auth_password is None:
        return app
    try:
        password = config.basic_auth_password.resolve()
    except ConfigError as exc:
        raise ConfigError(
            [ConfigProblem(f"{SECTION}.basic_auth_password", p.reason) for p in exc.problems]
        ) from None
    if not config.tls:
        log.warning("%s: basic auth without TLS sends the password in clear text", SECTION)
    return BasicAuth(app, config.basic_auth_username, password)


def serve_metrics(
    registry: CollectorRegistry,
    host: str,
    port: int,
    config: MetricsEndpointsConfig | None = None,
    *,
    cluster: str,
) -> tuple[Any, int]:
    """Serve ``registry`` on ``host:port`` (0: a free port) in a daemon thread, every series
    labelled ``cluster="<cluster>"``; return the server (``shutdown()`` stops it) and the
    bound port."""
    config = config or MetricsEndpointsConfig()
    app = metrics_app(registry, config, cluster)
    context = tls_context(config) if config.tls else None

    class Server(ThreadingWSGIServer):
        """Connections go through a :class:`ConnectionGate`: bounded threads, not one each."""

        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        request_queue_size = 64
        gate: ConnectionGate | None = None

        def process_request(self, request: Any, client_address: Any) -> None:
            assert self.gate is not None
            self.gate.add(request, client_address)

        def server_close(self) -> None:
            super().server_close()
            if self.gate is not None:
                self.gate.close()

        def handle_error(self, request: Any, client_address: Any) -> None:
            # A failed handshake or a client gone mid-scrape: not worth a traceback.
            log.debug("metrics: request from %s failed", client_address, exc_info=True)

    server = make_server(host, port, app, Server, handler_class=_QuietHandler)
    server.gate = ConnectionGate(
        server.process_request_thread,
        server.shutdown_request,
        workers=MAX_CONNECTION_THREADS,
        max_waiting=MAX_WAITING_CONNECTIONS,
        wait_s=HANDSHAKE_TIMEOUT_S,
        name="metrics",
    )
    if context is not None:
        server.socket = context.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False
        )
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    bound = int(server.server_address[1])
    log.info("metrics on %s://%s:%d/metrics", config.scheme, host, bound)
    return server, bound
