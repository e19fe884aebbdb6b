"""Which cluster each of the job's topics is read from."""

from __future__ import annotations

from kafka_health.config import MonitorConfig
from kafka_health.job.sources import cluster_of


def test_without_a_transport_every_topic_is_read_from_the_monitored_cluster() -> None:
    config = MonitorConfig().with_bootstrap(["monitored:9092"])
    for topic in ("__kafka_health_canary", "__kafka_health_canary_results", "anything"):
        assert cluster_of(config, topic) == config.kafka


def test_with_a_transport_only_the_canary_topic_is_read_from_the_monitored_cluster() -> None:
    config = MonitorConfig().with_bootstrap(["monitored:9092"]).with_transport(["transport:9093"])
    topics = config.topics
    assert cluster_of(config, topics.canary).bootstrap_servers == ["monitored:9092"]
    for topic in (topics.canary_results, topics.broker_logs, topics.cluster_state):
        assert cluster_of(config, topic).bootstrap_servers == ["transport:9093"]
