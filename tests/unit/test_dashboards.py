"""dashboards/: the Grafana dashboard's queries parse with the real promtool, name only series
kafka-health exports (derived from the code), and return data from a real Prometheus server
scraping real kafka-health exporters fed signals (Debian package prometheus; installed by
scripts/install-system-deps.sh)."""

from __future__ import annotations

import json
import math
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from tests.support.system_tools import run, tool
from tests.unit.dashboard_support import (
    DASHBOARD,
    REPO,
    RULES,
    Selector,
    canary_registry,
    expand,
    exported_series_names,
    job_config,
    job_registry,
    load_dashboard,
    metric_names,
    panels,
    queries,
    selectors,
    variable_queries,
)

from kafka_health.alerting.rule_config import load_rules
from kafka_health.canary.records import ProbeOutcome
from kafka_health.detectors.write_path import QUANTILES
from kafka_health.metrics_endpoint import serve_metrics
from kafka_health.model import SIGNALS, Signal, labels
from kafka_health.shipper.metrics import ShipperMetrics

CLUSTER = "dashboard-test"
PROVIDER = REPO / "dashboards" / "provisioning" / "kafka-health.yaml"


def promtool_check(exprs: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``promtool check rules`` on the expressions written as recording rules."""
    rules = [{"record": f"dashboard:query_{i}", "expr": e} for i, e in enumerate(exprs)]
    path = tmp_path / "dashboard-queries.rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    return run(tool("promtool"), "check", "rules", str(path))


DASH = load_dashboard()
QUERIES = queries(DASH)


# ---------------------------------------------------------------------------------------------
# The dashboard's shape


def test_dashboard_is_current_grafana_with_a_datasource_and_a_cluster_variable() -> None:
    assert DASH["schemaVersion"] >= 41, "Grafana 12's dashboard schema"
    assert DASH["uid"] == "kafka-health"
    assert DASH.get("id") is None, "an exported dashboard carries no database id"
    assert "__inputs" not in DASH, "datasource by the ${datasource} variable, not import inputs"
    variables = {v["name"]: v for v in DASH["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    cluster = variables["cluster"]
    assert cluster["type"] == "query"
    assert cluster["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
    assert list(variables) == ["datasource", "cluster", "session_timeout_s"]


def test_every_panel_uses_the_datasource_variable_and_the_grid_has_no_overlaps() -> None:
    ds = {"type": "prometheus", "uid": "${datasource}"}
    ids = [p["id"] for p in panels(DASH)]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    cells: dict[tuple[int, int], str] = {}
    for panel in panels(DASH):
        g = panel["gridPos"]
        assert g["x"] >= 0 and g["x"] + g["w"] <= 24, panel["title"]
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                assert (x, y) not in cells, f"{panel['title']} overlaps {cells[(x, y)]}"
                cells[(x, y)] = panel["title"]
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == ds, panel["title"]
        assert panel.get("description"), f"{panel['title']}: say what the panel shows"
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"] == ds, (panel["title"], target["refId"])
    assert not [p for p in panels(DASH) if p["type"] == "graph"], "timeseries, not old graph"


def test_top_row_shows_firing_alerts_and_heartbeat_age() -> None:
    top = [p for p in panels(DASH) if p["type"] != "row" and p["gridPos"]["y"] <= 1]
    exprs = " ".join(t["expr"] for p in top for t in p["targets"])
    assert 'kafka_health_alert_active{cluster=~"$cluster", state="firing"}' in exprs
    assert "time() - max(kafka_health_heartbeat_timestamp_seconds" in exprs


def test_every_selector_is_scoped_to_the_cluster_variable() -> None:
    for query in QUERIES:
        for sel in selectors(query.expr):
            assert ("cluster", "=~", "$cluster") in sel.matchers, (query.name, sel.metric)


def test_every_signal_an_alert_reads_has_a_panel() -> None:
    """An alert's signal is on the dashboard, so a page always has a graph to look at."""
    used = {name for q in QUERIES for name in metric_names(q.expr)}
    rules = load_rules(RULES).enabled().values()
    for signal in sorted({c.signal for rule in rules for c in rule.any_of}):
        assert f"kafka_health_{signal}" in used, signal


def test_provisioning_file_is_a_file_provider() -> None:
    provider = yaml.safe_load(PROVIDER.read_text())
    assert provider["apiVersion"] == 1
    (entry,) = provider["providers"]
    assert entry["type"] == "file"
    assert Path(entry["options"]["path"]).is_absolute()


# ---------------------------------------------------------------------------------------------
# (a) promtool parses every query


def test_every_query_parses_with_promtool(tmp_path: Path) -> None:
    exprs = [expand(q.expr, DASH, CLUSTER) for q in QUERIES]
    assert len(exprs) >= 40
    result = promtool_check(exprs, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(exprs)} rules found" in result.stdout


@pytest.mark.parametrize(
    "broken",
    [
        "sum(rate(kafka_health_job_restarts_total[5s])",
        "sum by broker_id (kafka_health_full_gc_count)",
        'kafka_health_full_gc_count{broker_id=~"("}',
    ],
)
def test_promtool_rejects_a_broken_query(broken: str, tmp_path: Path) -> None:
    result = promtool_check([broken], tmp_path)
    assert result.returncode != 0, result.stdout


# ---------------------------------------------------------------------------------------------
# (b) only series kafka-health exports


def test_every_series_is_one_kafka_health_exports() -> None:
    exported = set().union(*exported_series_names().values())
    used = {q.name: metric_names(q.expr) for q in QUERIES}
    used["variable cluster"] = {n for e in variable_queries(DASH) for n in metric_names(e)}
    unknown = {name: sorted(names - exported) for name, names in used.items() if names - exported}
    assert not unknown, f"series not exported by kafka-health: {unknown}"
    for panel in panels(DASH):
        if panel["type"] != "row":
            assert any(metric_names(t["expr"]) for t in panel["targets"]), panel["title"]


def test_the_signal_catalogue_is_what_the_job_exports() -> None:
    """The derivation is not vacuous: every catalogue signal is there, an unknown one is not."""
    job = exported_series_names()["job"]
    assert {f"kafka_health_{name}" for name in SIGNALS} <= job
    assert "kafka_health_not_a_signal" not in job
    assert "kafka_health_canary_sends_total" not in job, "that one is the canary's"


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        (
            'sum by (broker_id) (rate(a_total{x="1", y=~"b|c"}[5m])) / on(z) group_left(w) b',
            {"a_total", "b"},
        ),
        ("histogram_quantile(0.99, sum by (le) (rate(h_bucket[$__rate_interval])))", {"h_bucket"}),
        ("time() - max without (q) (ts) > bool 120 or vector(0)", {"ts"}),
        ('max(m offset 5m) and {__name__="n", a!=""}', {"m", "n"}),
        ("count(alerts) or vector($session_timeout_s)", {"alerts"}),
    ],
)
def test_selector_reader(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


def test_selector_reader_keeps_matchers() -> None:
    assert selectors('x{a="1", b!~"c|d"}') == [Selector("x", (("a", "=", "1"), ("b", "!~", "c|d")))]


# ---------------------------------------------------------------------------------------------
# (c) every query returns data from a real Prometheus scraping real exporters

QUERY_NAMES = ("write_path", "broker_logs")
LABEL_VALUES = {
    "broker_id": "1",
    "partition": "0",
    "error_class": "NotEnoughReplicasException",
    "acks": "all",
    "kind": "server",
    "query": "write_path",
    "exception": "KeyError",
    "source": "canary",
    "store": "outbox",
    "reason": "timeout",
    "evidence": "crash",
    "topic": "orders",
    "group": "payments",
    "verdict": "stalled",
}


def catalogue_signals(now: float) -> list[Signal]:
    """One series of every catalogue signal per scope the job publishes: per partition, per
    broker (rollup without partition) and cluster-wide (without broker_id); every quantile."""
    out = []
    for name, spec in SIGNALS.items():
        base = {label: LABEL_VALUES[label] for label in spec.labels if label != "quantile"}
        scopes = [base]
        if "broker_id" in base:
            if "partition" in base:
                scopes.append({k: v for k, v in base.items() if k != "partition"})
            scopes.append({k: v for k, v in base.items() if k not in ("broker_id", "partition")})
        quantiles = [str(q) for q in QUANTILES] + ["max"] if "quantile" in spec.labels else [""]
        value = now if spec.unit == "timestamp_seconds" else 2.0
        for scope in scopes:
            for q in quantiles:
                extra = {"quantile": q} if q else {}
                out.append(Signal(name, labels(**scope, **extra), value, now))
    return out


def progress(name: str, rows: int) -> Any:
    """A ``StreamingQueryProgress`` as the listener gets it."""
    return SimpleNamespace(
        name=name,
        id=name,
        batchDuration=1500,
        inputRowsPerSecond=10.0,
        processedRowsPerSecond=20.0,
        numInputRows=rows,
        eventTime={"watermark": "2026-01-01T00:00:00.000Z"},
        stateOperators=[
            SimpleNamespace(numRowsTotal=5, memoryUsedBytes=1024, numRowsDroppedByWatermark=1)
        ],
        sources=[SimpleNamespace(metrics={"maxOffsetsBehindLatest": "7"})],
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Prometheus:
    """A real Prometheus server on 127.0.0.1 scraping the given targets every second."""

    def __init__(self, tmp_path: Path, targets: dict[str, int]) -> None:
        self.port = free_port()
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [
                {
                    "job_name": job,
                    # No target label: each endpoint labels its series `cluster` itself.
                    "static_configs": [{"targets": [f"127.0.0.1:{port}"]}],
                }
                for job, port in targets.items()
            ],
        }
        path = tmp_path / "prometheus.yml"
        path.write_text(yaml.safe_dump(config))
        self.log = tmp_path / "prometheus.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [
                    tool("prometheus"),
                    f"--config.file={path}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--log.level=warn",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def get(self, path: str, **params: str) -> Any:
        url = f"http://127.0.0.1:{self.port}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=5) as resp:
            return json.loads(resp.read())

    def wait_ready(self, timeout_s: float = 15.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        pytest.fail(f"prometheus did not start:\n{self.log.read_text()[-3000:]}")

    def values(self, expr: str) -> list[float]:
        data = self.get("/api/v1/query", query=expr)["data"]
        if data["resultType"] == "scalar":
            return [float(data["result"][1])]
        return [float(r["value"][1]) for r in data["result"]]

    def label_names(self, metric: str) -> set[str]:
        series = self.get("/api/v1/series", **{"match[]": metric})["data"]
        return {label for s in series for label in s}

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Any]]:
    stop: list[Any] = []
    yield stop
    for server in reversed(stop):
        server()


def test_every_query_returns_data_from_a_real_prometheus(
    tmp_path: Path, servers: list[Any]
) -> None:
    # The job's /metrics, wired as the job wires it, with a receiver nobody listens on (so
    # deliveries fail and wait in the outbox).
    config = job_config(
        tmp_path / "alerting",
        cluster=CLUSTER,
        group_wait_s=0,
        group_interval_s=1,
        receivers=[
            {
                "name": "pager",
                "url": f"http://127.0.0.1:{free_port()}/alerts",
                "timeout_s": 2,
                "backoff_initial_s": 0.2,
                "backoff_max_s": 0.5,
                "jitter": 0,
            }
        ],
        exporter={"host": "127.0.0.1", "port": 0},
    )
    service, health, counts = job_registry(config)
    service.open()
    service.exporter.start()
    servers.append(service.exporter.stop)
    # The canary's /metrics (with the prober's) and the shipper's, served as they serve them.
    canary_reg, canary, prober = canary_registry()
    canary_server, canary_port = serve_metrics(canary_reg, "127.0.0.1", 0, cluster=CLUSTER)
    servers.append(canary_server.shutdown)
    canary.track_buffer(lambda: 3, lambda: 300)
    shipper = ShipperMetrics()
    shipper_server, shipper_port = serve_metrics(shipper.registry, "127.0.0.1", 0, cluster=CLUSTER)
    servers.append(shipper_server.shutdown)
    shipper.declare_file("1", "server", "/var/log/kafka/server.log")
    for query in QUERY_NAMES:
        health.on_started(query)

    assert service.exporter.port is not None
    prometheus = Prometheus(
        tmp_path,
        {
            "job": service.exporter.port,
            "canary": canary_port,
            "shipper": shipper_port,
        },
    )
    servers.append(prometheus.stop)
    prometheus.wait_ready()

    seq = 0

    def feed() -> None:
        nonlocal seq
        now = time.time()
        seq += 1
        service.submit(catalogue_signals(now))
        for query in QUERY_NAMES:
            service.batch_completed(query, now)
            service.kafka_unreachable(query, False, now)
            health.on_progress(progress(query, seq))
            health.on_restart(query)
        counts.add(
            [
                SimpleNamespace(outcome="event", reason=None, type="full_gc", entries=2, lines=4),
                SimpleNamespace(outcome="unrecognised", reason="no_event", type=None, entries=9,
                                lines=9),
                SimpleNamespace(outcome="malformed", reason="full_gc", type=None, entries=1,
                                lines=1),
                SimpleNamespace(outcome="unrecognised", reason="bad_json", type=None, entries=1,
                                lines=1),
            ]
        )  # fmt: skip
        ms = int(now * 1000)
        for ok in (True, False):
            canary.sent(0, 1, "all")
            canary.observe(
                ProbeOutcome(
                    canary_id="kafka-health-canary", topic="__kafka_health_canary", partition=0,
                    seq=seq, acks="all", send_ms=ms - 4, done_ms=ms,
                    outcome="ok" if ok else "failed", latency_s=0.004, leader=1,
                    error=None if ok else "NotEnoughReplicasException",
                )
            )  # fmt: skip
        prober.snapshots.labels("ok").inc()
        prober.snapshots.labels("failed").inc()
        prober.last_success.set(now)
        shipper.lag_bytes.labels("1", "server", "/var/log/kafka/server.log").set(4096)
        shipper.send_errors.labels("KafkaTimeoutError").inc()
        service.step(now)
        service.deliver(now)

    expanded = {q.name: expand(q.expr, DASH, CLUSTER) for q in QUERIES}
    missing: dict[str, str] = {}
    started = time.monotonic()
    while time.monotonic() - started < 30:
        feed()
        if time.monotonic() - started >= 3:  # rates need a few scrapes
            missing = {}
            for name, expr in expanded.items():
                values = prometheus.values(expr)
                if not any(math.isfinite(v) for v in values):
                    missing[name] = f"{expr} -> {values}"
            # A rate over the last 5 s is 0 between the receiver's failed attempts (their
            # backoff grows): wait for a window that holds one, as the top row would show it.
            failures = prometheus.values(expanded["Notification delivery failures [A]"])
            if not missing and failures and max(failures) > 0:
                break
        time.sleep(0.25)
    lines = "\n".join(f"{name}: {why}" for name, why in missing.items())
    assert not missing, f"queries without data:\n{lines}"

    # Every label a query matches on exists on the series it selects (a matcher on an absent
    # label would silently match everything or nothing).
    for name, expr in expanded.items():
        for sel in selectors(expr):
            assert sel.metric is not None
            known = prometheus.label_names(sel.metric)
            for label, _op, _value in sel.matchers:
                assert label in known, f"{name}: {sel.metric} has no label {label} ({known})"

    # The cluster variable's values, as Grafana's label_values() asks for them.
    for series in variable_queries(DASH):
        values = prometheus.get("/api/v1/label/cluster/values", **{"match[]": series})["data"]
        assert values == [CLUSTER]

    # What the fed signals make true is what the top row shows.
    firing = prometheus.values(expanded["Firing alerts [A]"])
    assert firing and all(v >= 1 for v in firing)
    (age,) = prometheus.values(expanded["Heartbeat age [A]"])
    assert 0 <= age < 60
    assert max(prometheus.values(expanded["Notification delivery failures [A]"])) > 0
    assert prometheus.values(expanded["Outbox: undelivered notifications [A]"])[0] >= 1


def test_dashboard_json_is_formatted() -> None:
    """Stored as Grafana exports it (2-space JSON), so diffs of edits stay readable."""
    text = DASHBOARD.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2) + "\n"
