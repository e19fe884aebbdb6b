"""Which cluster each client of the canary, the prober, the shipper and the demo talks to,
and the bounds that keep a hung broker from holding them (no client is connected here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.dev.demo import demo_config
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster, transport_spec
from kafka_health.dev.shipper_devcluster import shipper_config_for
from kafka_health.kafka_clients import (
    admin_options,
    results_producer_options,
    state_producer_options,
)
from kafka_health.services.transport import ensure_transport_topic


def planned(tmp_path: Path) -> tuple[LocalCluster, LocalCluster]:
    """A monitored 3-broker cluster and its 1-broker transport, planned (not started)."""
    spec = ClusterSpec(dir=tmp_path / "monitored", brokers=3, mode="zookeeper")
    return LocalCluster.create(spec), LocalCluster.create(transport_spec(spec))


def test_the_transport_spec_is_one_kraft_broker_beside_the_monitored_cluster(
    tmp_path: Path,
) -> None:
    monitored, transport = planned(tmp_path)
    assert (transport.spec.brokers, transport.spec.mode) == (1, "kraft")
    assert transport.spec.dir == tmp_path / "monitored-transport"
    assert transport.spec.kafka_version == monitored.spec.kafka_version
    assert not set(transport.bootstrap_servers) & set(monitored.bootstrap_servers)


def test_the_demo_and_its_shipper_point_the_monitor_at_the_transport(tmp_path: Path) -> None:
    monitored, transport = planned(tmp_path)
    config = demo_config(MonitorConfig(), monitored, "http://127.0.0.1:1/", transport)
    assert config.kafka.bootstrap_servers == monitored.bootstrap_servers
    assert config.transport_kafka().bootstrap_servers == transport.bootstrap_servers
    shipper = shipper_config_for(monitored, config)
    assert shipper.transport_kafka().bootstrap_servers == transport.bootstrap_servers
    assert len(shipper.shipper.brokers) == 3, "the monitored brokers' logs are shipped"
    single = demo_config(MonitorConfig(), monitored, "http://127.0.0.1:1/")
    assert single.transport_kafka() == single.kafka


def test_describes_and_writes_are_bounded_by_their_own_timeouts() -> None:
    kafka = MonitorConfig().with_bootstrap(["m:9092"]).kafka
    assert admin_options(kafka, "a")["request_timeout_ms"] == 30_000, "the client's default"
    bounded = admin_options(kafka, "a", 3.0)
    assert (bounded["request_timeout_ms"], bounded["bootstrap_timeout_ms"]) == (3000, 3000)
    results = results_producer_options(kafka, "r", 3.0)
    assert (results["request_timeout_ms"], results["delivery_timeout_ms"]) == (3000, 4000)
    assert results["bootstrap_timeout_ms"] == 3000, "one short bootstrap attempt at a time"
    assert results["max_block_ms"] == 5000, "room for a second metadata request"
    assert state_producer_options(kafka, "s", 2.0)["request_timeout_ms"] == 2000


class RecordingAdmin:
    """Stands in for KafkaAdminClient: a cluster of one broker without the topic."""

    made: ClassVar[list[dict[str, Any]]] = []
    created: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, **options: Any) -> None:
        self.made.append(options)

    def describe_topics(self, topics: list[str]) -> list[dict[str, Any]]:
        return []

    def describe_cluster(self) -> dict[str, Any]:
        return {"brokers": [{"broker_id": 1}]}

    def create_topics(self, specs: dict[str, Any], wait_for_metadata: bool) -> None:
        self.created.append(specs)

    def close(self) -> None:
        pass


def test_output_topics_are_created_on_the_transport_only_when_it_is_separate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import kafka

    monkeypatch.setattr(kafka, "KafkaAdminClient", RecordingAdmin)
    RecordingAdmin.made, RecordingAdmin.created = [], []
    single = MonitorConfig().with_bootstrap(["m:9092"])
    ensure_transport_topic(single, "results", 3)
    assert RecordingAdmin.made == [], "the canary's topic manager creates them there"
    ensure_transport_topic(single.with_transport(["t:9093"]), "results", 3)
    assert [o["bootstrap_servers"] for o in RecordingAdmin.made] == [["t:9093"]]
    assert RecordingAdmin.created == [{"results": {"num_partitions": 3, "replication_factor": 1}}]
