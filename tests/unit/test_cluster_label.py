"""Issue 60.2: every /metrics endpoint of the product labels every series ``cluster`` with the
monitor's ``cluster_name`` (set in the endpoint, not per metric), two monitors' series never
collide, and an unset name is the monitored cluster's id."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.parser import text_string_to_metric_families
from tests.unit.dashboard_support import canary_registry, job_config, job_registry

from kafka_health.alerting.exporter import PREFIX
from kafka_health.canary.records import ProbeOutcome
from kafka_health.config import (
    DEV_CLUSTER_NAME,
    KafkaConfig,
    MonitorConfig,
    from_mapping,
    resolve_cluster_name,
)
from kafka_health.metrics_endpoint import ClusterLabelled, serve_metrics
from kafka_health.model import SIGNALS, Signal, labels
from kafka_health.shipper.metrics import ShipperMetrics

Samples = list[tuple[str, dict[str, str], float]]


def scrape(url: str, accept: str = "text/plain") -> str:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=5) as response:
        return str(response.read().decode())


def samples(text: str) -> Samples:
    return [
        (s.name, dict(s.labels), s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    ]


def one_of_each_signal(now: float) -> list[Signal]:
    out = []
    for name, spec in SIGNALS.items():
        values = {label: "1" for label in spec.labels}
        value = now if spec.unit == "timestamp_seconds" else 2.0
        out.append(Signal(name, labels(**values), value, now))
    return out


@pytest.fixture
def stops() -> Iterator[list[Any]]:
    found: list[Any] = []
    yield found
    for stop in reversed(found):
        stop()


def job_endpoint(tmp_path: Path, cluster: str, stops: list[Any]) -> str:
    """The job's /metrics as the job wires it, fed one series of every signal."""
    config = job_config(tmp_path / cluster, cluster=cluster, exporter={"host": "127.0.0.1",
                                                                     "port": 0})  # fmt: skip
    service, health, _counts = job_registry(config)
    service.open()
    service.exporter.start()
    stops.append(service.exporter.stop)
    now = time.time()
    service.submit(one_of_each_signal(now))
    health.on_started("monitor")
    health.on_restart("monitor")
    service.step(now)
    return f"http://127.0.0.1:{service.exporter.port}/metrics"


def canary_endpoint(cluster: str, stops: list[Any]) -> str:
    """The canary's /metrics (with the prober's), every kind of metric with a child."""
    registry, canary, prober = canary_registry()
    canary.sent(0, 1, "all")
    canary.observe(
        ProbeOutcome(
            canary_id="c", topic="t", partition=0, seq=1, acks="all", send_ms=1, done_ms=5,
            outcome="ok", latency_s=0.004, leader=1, error=None,
        )
    )  # fmt: skip
    canary.track_buffer(lambda: 1, lambda: 10)
    prober.snapshots.labels("ok").inc()
    prober.last_success.set(1.0)
    server, port = serve_metrics(registry, "127.0.0.1", 0, cluster=cluster)
    stops.append(server.shutdown)
    return f"http://127.0.0.1:{port}/metrics"


def shipper_endpoint(cluster: str, stops: list[Any]) -> str:
    shipper = ShipperMetrics()
    shipper.declare_file("1", "server", "/var/log/kafka/server.log")
    shipper.lag_bytes.labels("1", "server", "/var/log/kafka/server.log").set(4096)
    shipper.send_errors.labels("KafkaTimeoutError").inc()
    server, port = serve_metrics(shipper.registry, "127.0.0.1", 0, cluster=cluster)
    stops.append(server.shutdown)
    return f"http://127.0.0.1:{port}/metrics"


def test_every_series_of_every_product_endpoint_carries_the_cluster(
    tmp_path: Path, stops: list[Any]
) -> None:
    endpoints = {
        "job": job_endpoint(tmp_path, "east", stops),
        "canary": canary_endpoint("east", stops),
        "shipper": shipper_endpoint("east", stops),
    }
    for process, url in endpoints.items():
        for accept in ("text/plain", "application/openmetrics-text; version=1.0.0"):
            found = [s for s in samples(scrape(url, accept)) if s[0].startswith(PREFIX)]
            assert len(found) >= 3, (process, accept)
            unlabelled = [(name, lab) for name, lab, _ in found if lab.get("cluster") != "east"]
            assert not unlabelled, f"{process} ({accept}): series without cluster: {unlabelled}"
    kinds = {
        family.type
        for url in endpoints.values()
        for family in text_string_to_metric_families(scrape(url))
    }
    assert {"counter", "gauge", "histogram"} <= kinds, "every kind of series was checked"
    # A scrape's name[] filter (prometheus-client's restricted registry) keeps the label too.
    filtered = samples(scrape(endpoints["shipper"] + "?name[]=kafka_health_shipper_lag_bytes"))
    assert filtered and all(lab["cluster"] == "east" for _, lab, _ in filtered), filtered


def test_two_monitors_with_different_cluster_names_never_share_a_series(
    tmp_path: Path, stops: list[Any]
) -> None:
    """Same brokers, same signals: one Prometheus scraping both keeps them apart."""
    scraped = {
        cluster: [(n, lab, v) for n, lab, v in samples(scrape(url)) if n.startswith(PREFIX)]
        for cluster, url in (
            ("east", job_endpoint(tmp_path, "east", stops)),
            ("west", job_endpoint(tmp_path, "west", stops)),
        )
    }

    def series(cluster: str) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
        return {(n, tuple(sorted(lab.items()))) for n, lab, _ in scraped[cluster]}

    east, west = series("east"), series("west")
    assert east and not east & west

    # ... and apart from the label they are the same series: only `cluster` tells them apart.
    def without_cluster(found: set[tuple[str, tuple[tuple[str, str], ...]]]) -> set[Any]:
        return {(n, tuple(kv for kv in lab if kv[0] != "cluster")) for n, lab in found}

    assert without_cluster(east) == without_cluster(west)
    assert {dict(lab)["cluster"] for _, lab in east} == {"east"}


def test_the_view_adds_the_label_without_touching_the_registry() -> None:
    """In-process readers (get_sample_value) see the call sites' labels; an own `cluster`
    label wins over the endpoint's."""
    registry = CollectorRegistry()
    Counter("kafka_health_x", "x", ["broker_id"], registry=registry).labels("1").inc()
    Counter("kafka_health_y", "y", ["cluster"], registry=registry).labels("other").inc()
    Histogram("kafka_health_z_seconds", "z", registry=registry).observe(0.1)
    assert registry.get_sample_value("kafka_health_x_total", {"broker_id": "1"}) == 1.0
    view = ClusterLabelled(registry, "east")
    got = {(s.name, s.labels.get("cluster")) for m in view.collect() for s in m.samples}
    assert ("kafka_health_x_total", "east") in got
    assert ("kafka_health_y_total", "other") in got
    assert all(cluster is not None for _, cluster in got)
    assert {c for n, c in got if n.startswith("kafka_health_z_seconds")} == {"east"}
    with pytest.raises(TypeError):
        view.register(Counter("kafka_health_w", "w", registry=None))


def test_an_unset_cluster_name_is_the_monitored_clusters_id() -> None:
    asked: list[KafkaConfig] = []

    def cluster_id(kafka: KafkaConfig) -> str:
        asked.append(kafka)
        return "cG6C272CQgy0fyffWekIkA"

    assert MonitorConfig().cluster_name == "", "the default: not set"
    named = from_mapping({"cluster_name": "prod-eu", "kafka": {"bootstrap_servers": ["k:9092"]}})
    assert resolve_cluster_name(named, cluster_id).cluster_name == "prod-eu" and not asked
    unset = from_mapping({"kafka": {"bootstrap_servers": ["k:9092"]}})
    assert resolve_cluster_name(unset, cluster_id).cluster_name == "cG6C272CQgy0fyffWekIkA"
    assert asked == [unset.kafka], "asked once, of the monitored cluster"
    dev = resolve_cluster_name(MonitorConfig(), cluster_id)
    assert dev.cluster_name == DEV_CLUSTER_NAME == "local" and len(asked) == 1

    def unreachable(_kafka: KafkaConfig) -> str:
        raise TimeoutError("no broker")

    # A cluster down at the monitor's start is still watched (and paged about), under the name
    # of its first bootstrap server.
    assert resolve_cluster_name(unset, unreachable).cluster_name == "k_9092"
    assert resolve_cluster_name(unset, lambda _kafka: "").cluster_name == "k_9092"


def test_a_job_restarted_while_its_cluster_cannot_be_asked_keeps_the_name_its_id_gave(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Seen in the fault suite's monitor-kills: a job restarted with the quorum lost named the
    cluster after its bootstrap server, so it read a checkpoint folder of that name and state
    that knew no dead broker, and its first publication resolved their pages."""
    unset = from_mapping({"kafka": {"bootstrap_servers": ["k2:9092", "k1:9092"]}})
    other = from_mapping({"kafka": {"bootstrap_servers": ["k9:9092"]}})

    def unreachable(_kafka: KafkaConfig) -> str:
        raise TimeoutError("no broker")

    assert resolve_cluster_name(unset, unreachable, tmp_path).cluster_name == "k2_9092"
    assert not list(tmp_path.iterdir()), "a name the id did not give is not kept"
    assert resolve_cluster_name(unset, lambda _k: "cG6C", tmp_path).cluster_name == "cG6C"
    caplog.clear()
    assert resolve_cluster_name(unset, unreachable, tmp_path).cluster_name == "cG6C"
    assert "named 'cG6C', as its id named it at an earlier start" in caplog.text
    assert "set cluster_name" in caplog.text
    reordered = from_mapping({"kafka": {"bootstrap_servers": ["k1:9092", "k2:9092"]}})
    assert resolve_cluster_name(reordered, unreachable, tmp_path).cluster_name == "cG6C"
    assert resolve_cluster_name(other, unreachable, tmp_path).cluster_name == "k9_9092"
    # A new cluster at the same servers (re-created): its id wins, and is kept.
    assert resolve_cluster_name(unset, lambda _k: "n3w", tmp_path).cluster_name == "n3w"
    assert resolve_cluster_name(unset, unreachable, tmp_path).cluster_name == "n3w"
    # A kept name that is not one, or a file that is not JSON: the bootstrap server's name.
    (kept,) = tmp_path.glob("cluster-name-*.json")
    for text in ('{"cluster_name": "a/../b"}', "{", "[1]", '{"cluster_name": 7}'):
        kept.write_text(text)
        assert resolve_cluster_name(unset, unreachable, tmp_path).cluster_name == "k2_9092"
    # A folder that cannot be written: a warning, and the id's name all the same.
    blocked = tmp_path / "file"
    blocked.write_text("")
    caplog.clear()
    assert resolve_cluster_name(unset, lambda _k: "cG6C", blocked).cluster_name == "cG6C"
    assert "cannot be kept in" in caplog.text
