"""The /metrics endpoints with TLS, client certificates and basic auth, scraped by a real
Prometheus over real TLS (issue 15.6): the right credentials scrape, the wrong ones do not,
and a client that connects and says nothing stops no scrape."""

from __future__ import annotations

import base64
import json
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, Counter

from kafka_health.alerting.exporter import Exporter
from kafka_health.config import ExporterConfig, Secret, parse_config
from kafka_health.errors import ConfigError
from kafka_health.metrics_endpoint import MetricsEndpointsConfig, serve_metrics
from tests.support.system_tools import signed_certificates, tool

PASSWORD = "scrape-secret-7f3a"
CLUSTER = "metrics-test"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by it."""
    san = "IP:127.0.0.1,DNS:localhost"
    d = signed_certificates(
        tmp_path_factory.mktemp("pki"), "metrics test CA", {"server": san, "client": san}
    )
    (d / "password").write_text(PASSWORD + "\n")
    return d


def registry() -> CollectorRegistry:
    r = CollectorRegistry()
    Counter("kafka_health_test_scrapes", "A series to find", registry=r).inc()
    return r


def secured(pki: Path, *, client_ca: bool = False, auth: bool = True) -> MetricsEndpointsConfig:
    return MetricsEndpointsConfig(
        tls_cert_file=str(pki / "server.crt"),
        tls_key_file=str(pki / "server.key"),
        tls_client_ca_file=str(pki / "ca.crt") if client_ca else None,
        basic_auth_username="prometheus" if auth else None,
        basic_auth_password=Secret(file=str(pki / "password")) if auth else None,
    )


@pytest.fixture
def servers() -> Iterator[list[Any]]:
    started: list[Any] = []
    yield started
    for server in started:
        server.shutdown()
        server.server_close()


def get(url: str, *, context: ssl.SSLContext | None = None, user: str | None = None,
        password: str = PASSWORD) -> tuple[int, str]:  # fmt: skip
    request = urllib.request.Request(url)
    if user is not None:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def trusting(pki: Path, client_cert: bool = False) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    if client_cert:
        context.load_cert_chain(str(pki / "client.crt"), str(pki / "client.key"))
    return context


def test_https_with_basic_auth_answers_only_the_right_credentials(
    pki: Path, servers: list[Any]
) -> None:
    server, port = serve_metrics(registry(), "127.0.0.1", 0, secured(pki), cluster=CLUSTER)
    servers.append(server)
    url = f"https://127.0.0.1:{port}/metrics"
    status, body = get(url, context=trusting(pki), user="prometheus")
    assert status == 200 and 'kafka_health_test_scrapes_total{cluster="metrics-test"} 1.0' in body
    assert get(url, context=trusting(pki))[0] == 401, "no credentials"
    assert get(url, context=trusting(pki), user="prometheus", password="wrong")[0] == 401
    assert get(url, context=trusting(pki), user="other")[0] == 401
    with pytest.raises(urllib.error.URLError):  # the server's certificate is not trusted
        get(url, context=ssl.create_default_context(), user="prometheus")
    with pytest.raises((urllib.error.URLError, ConnectionError)):  # plain HTTP is not served
        get(f"http://127.0.0.1:{port}/metrics", user="prometheus")


def test_a_silent_client_does_not_hold_back_the_scrapes(pki: Path, servers: list[Any]) -> None:
    """The TLS handshake runs in the request's thread: a connection that never starts one
    (a port scanner, a stuck client) does not block the accepting thread."""
    server, port = serve_metrics(
        registry(), "127.0.0.1", 0, secured(pki, auth=False), cluster=CLUSTER
    )
    servers.append(server)
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    try:
        started = time.monotonic()
        status, _ = get(f"https://127.0.0.1:{port}/metrics", context=trusting(pki))
        assert status == 200
        assert time.monotonic() - started < 4, "answered while the silent ones wait"
    finally:
        for s in silent:
            s.close()


def test_client_certificates_are_required_when_a_client_ca_is_set(
    pki: Path, servers: list[Any]
) -> None:
    server, port = serve_metrics(
        registry(), "127.0.0.1", 0, secured(pki, client_ca=True), cluster=CLUSTER
    )
    servers.append(server)
    url = f"https://127.0.0.1:{port}/metrics"
    assert get(url, context=trusting(pki, client_cert=True), user="prometheus")[0] == 200
    with pytest.raises((urllib.error.URLError, ConnectionError, ssl.SSLError)):
        get(url, context=trusting(pki), user="prometheus")


def test_the_alert_service_exporter_serves_with_the_sections_security(pki: Path) -> None:
    exporter = Exporter(
        ExporterConfig(host="127.0.0.1", port=0), registry(), secured(pki), cluster=CLUSTER
    )
    exporter.start()
    try:
        url = f"https://127.0.0.1:{exporter.port}/metrics"
        assert get(url, context=trusting(pki), user="prometheus")[0] == 200
        assert get(url, context=trusting(pki))[0] == 401
    finally:
        exporter.stop()


def test_files_that_cannot_be_loaded_name_their_key(pki: Path, tmp_path: Path) -> None:
    missing = MetricsEndpointsConfig(
        tls_cert_file=str(tmp_path / "nope.crt"), tls_key_file=str(pki / "server.key")
    )
    with pytest.raises(ConfigError, match=r"metrics_endpoints\.tls_cert_file.*nope\.crt"):
        serve_metrics(registry(), "127.0.0.1", 0, missing, cluster=CLUSTER)
    unset = MetricsEndpointsConfig(
        basic_auth_username="prometheus", basic_auth_password=Secret(env="KH_TEST_UNSET_VAR")
    )
    with pytest.raises(ConfigError, match=r"metrics_endpoints\.basic_auth_password"):
        serve_metrics(registry(), "127.0.0.1", 0, unset, cluster=CLUSTER)


def test_a_config_that_half_sets_tls_or_auth_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(
            "metrics_endpoints:\n  tls_cert_file: a.crt\n  tls_client_ca_file: ca.crt\n"
            "  basic_auth_username: 'a:b'\n"
        )
    keys = {p.path for p in caught.value.problems}
    assert keys == {
        "metrics_endpoints.tls_key_file",
        "metrics_endpoints.basic_auth_password",
        "metrics_endpoints.basic_auth_username",
    }, caught.value.problems


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_real_prometheus_scrapes_with_the_right_credentials_only(
    pki: Path, servers: list[Any], tmp_path: Path
) -> None:
    server, port = serve_metrics(
        registry(), "127.0.0.1", 0, secured(pki, client_ca=True), cluster=CLUSTER
    )
    servers.append(server)
    tls = {"ca_file": str(pki / "ca.crt"), "cert_file": str(pki / "client.crt"),
           "key_file": str(pki / "client.key")}  # fmt: skip
    auth = {"username": "prometheus", "password_file": str(pki / "password")}
    (tmp_path / "wrong").write_text("wrong\n")
    jobs: dict[str, dict[str, Any]] = {
        "right": {"scheme": "https", "tls_config": tls, "basic_auth": auth},
        "wrong-password": {"scheme": "https", "tls_config": tls,
                           "basic_auth": {**auth, "password_file": str(tmp_path / "wrong")}},
        "no-client-cert": {"scheme": "https", "tls_config": {"ca_file": str(pki / "ca.crt")},
                           "basic_auth": auth},
        "plain-http": {"basic_auth": auth},
    }  # fmt: skip
    config = {
        "global": {"scrape_interval": "1s"},
        "scrape_configs": [
            {"job_name": name, **job, "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]}
            for name, job in jobs.items()
        ],
    }
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    web = free_port()
    log = (tmp_path / "prometheus.log").open("w")
    prometheus = subprocess.Popen(
        [tool("prometheus"), f"--config.file={tmp_path / 'prometheus.yml'}",
         f"--storage.tsdb.path={tmp_path / 'tsdb'}", f"--web.listen-address=127.0.0.1:{web}",
         "--log.level=warn"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        up: dict[str, float] = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(up) < len(jobs):
            time.sleep(1)
            try:
                query = urllib.parse.urlencode({"query": "up"})
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{web}/api/v1/query?{query}", timeout=5
                ) as response:
                    result = json.loads(response.read())["data"]["result"]
            except OSError:
                continue
            up = {r["metric"]["job"]: float(r["value"][1]) for r in result}
        expected = {"right": 1.0, "wrong-password": 0.0, "no-client-cert": 0.0, "plain-http": 0.0}
        assert up == expected, (up, (tmp_path / "prometheus.log").read_text()[-2000:])
        query = urllib.parse.urlencode({"query": "kafka_health_test_scrapes_total"})
        with urllib.request.urlopen(
            f"http://127.0.0.1:{web}/api/v1/query?{query}", timeout=5
        ) as response:
            [series] = json.loads(response.read())["data"]["result"]
        assert series["metric"]["job"] == "right"
        assert series["metric"]["cluster"] == CLUSTER, "the endpoint's own label, kept"
    finally:
        prometheus.terminate()
        prometheus.wait(10)
        log.close()
