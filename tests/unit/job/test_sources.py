"""Which cluster each of the job's topics is read from."""

from __future__ import annotations

import dataclasses

from kafka_health.config import JobConfig, MonitorConfig
from kafka_health.job.sources import cluster_of, source_timeouts


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


def test_the_sources_wait_on_a_dead_leader_for_their_own_timeout_not_the_clients() -> None:
    config = MonitorConfig().with_bootstrap(["monitored:9092"])
    assert config.kafka.client.request_timeout_s == 30.0
    assert source_timeouts(config) == {
        "kafka.request.timeout.ms": "3000",
        "kafka.default.api.timeout.ms": "3000",
        "fetchOffset.numRetries": "13",  # 45 s of 3 s attempts, 0.5 s apart
        "fetchOffset.retryIntervalMs": "500",
    }
    shorter = dataclasses.replace(config, job=dataclasses.replace(config.job, source_timeout_s=2.5))
    assert source_timeouts(shorter)["kafka.default.api.timeout.ms"] == "2500"


def test_a_source_timeout_that_is_not_positive_names_the_key() -> None:
    problems = JobConfig(source_timeout_s=0).check("job")
    assert [p.path for p in problems] == ["job.source_timeout_s"]
