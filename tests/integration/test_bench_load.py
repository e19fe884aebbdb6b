"""``kafka-health bench load`` on a real broker: what it says it sent is in the topics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer, TopicPartition
from tests.support.job_support import create_topics, job_config

from kafka_health.dev.loadgen.producer import LoadPlan, run_load
from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic
from kafka_health.kafka_clients import python_client_options

pytestmark = pytest.mark.integration


def records_in(config: Any, topic: str) -> int:
    consumer = KafkaConsumer(**python_client_options(config.kafka))
    try:
        parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
        ends, starts = consumer.end_offsets(parts), consumer.beginning_offsets(parts)
        return sum(ends[p] - starts[p] for p in parts)
    finally:
        consumer.close()


def test_the_load_reaches_the_topics_at_its_rate_with_its_storm(
    kafka_cluster: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path)
    create_topics(config, partitions=2)
    plan = LoadPlan(rate=400, seconds=4, storm_every_s=4, storm_seconds=1, storm_factor=5,
                    canary_interval_s=1, snapshot_interval_s=2)  # fmt: skip
    shape = ClusterShape(brokers=6, partitions=120, topics=4)
    stats = run_load(config, Traffic(shape, config.topics, seed=3), plan)
    topics = config.topics
    assert stats.records[topics.broker_logs] == pytest.approx(3 * 400 + 1 * 2000, rel=0.1)
    assert stats.records[topics.cluster_state] in (2 * 127, 3 * 127)  # 120 + 6 + 1 each
    assert stats.records[topics.canary_results] >= 4 * 6
    for topic in (topics.broker_logs, topics.cluster_state, topics.canary_results):
        assert records_in(config, topic) == stats.records[topic], topic
