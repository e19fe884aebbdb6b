"""The /metrics content: signals, active alerts, heartbeat, delivery counters."""

from __future__ import annotations

import contextlib
import socket
import urllib.request
from pathlib import Path

from prometheus_client import generate_latest
from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.alerting.webhook import FAILURE_REASONS
from kafka_health.config import ExporterConfig
from kafka_health.model import SIGNALS, Unit


def test_signals_alerts_heartbeat_and_counters(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(
        0,
        45,  # UnderMinIsr fires at 10 (for_s), pages at 15 (group_wait 3 s, next tick)
        lambda t: [
            sig("under_min_isr_partitions", 2, t, broker_id=1),
            sig("canary_ack_latency_seconds", 0.02, t, broker_id=1, partition=0, quantile="0.99"),
            sig("not_a_catalogue_signal", 1, t),
        ],
    )
    reg = h.service.registry
    assert reg.get_sample_value("kafka_health_under_min_isr_partitions", {"broker_id": "1"}) == 2
    latency = {"broker_id": "1", "partition": "0", "quantile": "0.99"}
    assert reg.get_sample_value("kafka_health_canary_ack_latency_seconds", latency) == 0.02
    active = {
        "alertname": "UnderMinIsr", "severity": "critical", "state": "firing", "broker_id": "1",
        "exception": "", "group": "", "kind": "", "query": "", "source": "", "store": "",
    }  # fmt: skip
    assert reg.get_sample_value("kafka_health_alert_active", active) == 1
    assert reg.get_sample_value("kafka_health_heartbeat_timestamp_seconds") == T0 + 45
    assert reg.get_sample_value("kafka_health_notifications_total", {"receiver": "pager"}) == 1
    for reason in FAILURE_REASONS:
        labels = {"receiver": "pager", "reason": reason}
        assert reg.get_sample_value("kafka_health_notifications_failed_total", labels) == 0
    text = generate_latest(reg).decode()
    assert "not_a_catalogue_signal" not in text
    assert "# HELP kafka_health_under_min_isr_partitions partitions whose ISR" in text


def test_a_count_since_the_job_started_is_a_counter_named_total(tmp_path: Path) -> None:
    """Prometheus' conventions: a count since the job started is a counter (increase() and
    rate() read it across the job's restarts), its name ends in _total; the others stay gauges."""
    totals = [s.name for s in SIGNALS.values() if s.unit == Unit.TOTAL]
    assert "consumergroup_deleted_unread_records_total" in totals
    assert all(name.endswith("_total") for name in totals), totals
    h = Harness(tmp_path)
    h.tick(0, [sig("consumergroup_deleted_unread_records_total", 1200, 0, group="pay"),
               sig("consumergroup_sum_lag", 30, 0, group="pay")])  # fmt: skip
    text = generate_latest(h.service.registry).decode()
    name = "kafka_health_consumergroup_deleted_unread_records_total"
    assert f"# HELP {name} records deleted by retention before the group read them" in text
    assert f"# TYPE {name} counter\n" in text
    assert f'{name}{{group="pay"}} 1200.0\n' in text
    assert "kafka_health_consumergroup_deleted_unread_records_created" not in text
    assert "# TYPE kafka_health_consumergroup_sum_lag gauge\n" in text
    types = {f.name: f.type for f in h.service.registry.collect()}
    for signal, spec in SIGNALS.items():
        family = "kafka_health_" + signal.removesuffix("_total")
        assert types[family] == ("counter" if spec.unit == Unit.TOTAL else "gauge"), signal


def test_series_per_signal_are_bounded(tmp_path: Path) -> None:
    h = Harness(tmp_path, exporter=ExporterConfig(port=None, max_series_per_signal=3))
    h.tick(
        0,
        [sig("canary_partition_silent_seconds", 1, 0, broker_id=1, partition=p) for p in range(5)],
    )
    text = generate_latest(h.service.registry).decode()
    assert text.count("kafka_health_canary_partition_silent_seconds{") == 3
    # The store refuses them where they enter (the same cap): none left for the scrape to drop.
    dropped = h.service.registry.get_sample_value(
        "kafka_health_signal_series_dropped_total", {"signal": "canary_partition_silent_seconds"}
    )
    assert dropped == 2
    assert h.service.registry.get_sample_value("kafka_health_exporter_series_dropped") == 0


def test_metrics_endpoint_serves_on_a_free_port(tmp_path: Path) -> None:
    h = Harness(tmp_path, exporter=ExporterConfig(host="127.0.0.1", port=0))
    h.tick(0, [sig("full_gc_count", 1, 0, broker_id=3)])
    h.service.exporter.start()
    try:
        url = f"http://127.0.0.1:{h.service.exporter.port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as resp:
            body = resp.read().decode()
    finally:
        h.service.exporter.stop()
    assert 'kafka_health_full_gc_count{broker_id="3",cluster="test"} 1.0' in body


def test_metrics_endpoints_listen_on_loopback_unless_told_otherwise() -> None:
    """The job's /metrics (and by the same default the canary's, the prober's and the
    shipper's) answers on 127.0.0.1 and is not reachable from another interface."""
    from prometheus_client import CollectorRegistry

    from kafka_health.alerting.exporter import Exporter
    from kafka_health.config import CanaryConfig, ClusterStateConfig, ShipperConfig

    assert {CanaryConfig().metrics_host, ClusterStateConfig().metrics_host,
            ShipperConfig().metrics_host} == {"127.0.0.1"}  # fmt: skip
    exporter = Exporter(ExporterConfig(port=0), CollectorRegistry(), cluster="t")
    exporter.start()
    try:
        assert exporter.port is not None
        with urllib.request.urlopen(f"http://127.0.0.1:{exporter.port}/metrics", timeout=5) as r:
            assert r.status == 200
        others = [a for a in _own_addresses() if not a.startswith("127.")]
        for address in others:
            with socket.socket() as s:
                s.settimeout(2)
                assert s.connect_ex((address, exporter.port)) != 0, address
    finally:
        exporter.stop()


def _own_addresses() -> list[str]:
    """This host's IPv4 addresses (from its name and a UDP socket's route; no traffic)."""
    found = set()
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))
        found.add(s.getsockname()[0])
    with contextlib.suppress(OSError):
        found.update(socket.gethostbyname_ex(socket.gethostname())[2])
    return sorted(found)
