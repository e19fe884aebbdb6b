"""Real records through a real cluster and Spark's Kafka source: all of them, once, in order."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from tests.support.waiting import wait_for

from kafka_health.job.sources import kafka_stream
from kafka_health.kafka_clients import python_client_options, spark_kafka_options

pytestmark = [pytest.mark.integration, pytest.mark.spark]

RECORDS = 10_000
PARTITIONS = 6


def create_topic(options: dict[str, Any], name: str, partitions: int, brokers: int) -> None:
    admin = KafkaAdminClient(**options)
    try:
        admin.create_topics(
            [NewTopic(name, num_partitions=partitions, replication_factor=min(3, brokers))]
        )
    finally:
        admin.close()


def test_spark_reads_every_record_exactly_once_and_in_order(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = kafka_cluster.config
    topic = f"roundtrip-{uuid.uuid4().hex[:8]}"
    options = python_client_options(config.kafka)
    create_topic(options, topic, PARTITIONS, len(kafka_cluster.bootstrap_servers))

    producer = KafkaProducer(acks="all", linger_ms=5, **options)
    for i in range(RECORDS):
        producer.send(topic, key=str(i).encode(), value=f"record-{i}".encode(), partition=i % 6)
    producer.flush()
    producer.close()

    stream = (
        spark.readStream.format("kafka")
        .options(**spark_kafka_options(config.kafka))
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .selectExpr(
            "partition", "offset", "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS v"
        )
    )
    query = (
        stream.writeStream.format("memory")
        .queryName("roundtrip")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        query.awaitTermination(300)
        assert query.exception() is None
        rows = spark.sql("SELECT partition, offset, key, v FROM roundtrip").collect()
    finally:
        query.stop()

    assert len(rows) == RECORDS
    assert sorted(int(r.key) for r in rows) == list(range(RECORDS)), "each record exactly once"
    assert all(r.v == f"record-{r.key}" for r in rows)
    for partition in range(PARTITIONS):
        in_partition = sorted((r for r in rows if r.partition == partition), key=lambda r: r.offset)
        keys = [int(r.key) for r in in_partition]
        assert keys == list(range(partition, RECORDS, PARTITIONS)), f"order in {partition}"
        assert [r.offset for r in in_partition] == list(range(len(keys)))


def test_session_uses_rocksdb_with_changelog_checkpointing(spark: Any) -> None:
    conf = spark.conf
    assert conf.get("spark.sql.streaming.stateStore.providerClass").endswith(
        "RocksDBStateStoreProvider"
    )
    assert conf.get("spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled") == (
        "true"
    )


def test_the_job_s_source_reads_a_topic_created_after_it_started(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    """The job's Kafka source over a topic that exists and one no shipper has created yet:
    the query runs (Spark's ``subscribe`` failed it, UnknownTopicOrPartitionException, at every
    restart), reads the first, and the second once it appears."""
    base = kafka_cluster.config
    config = dataclasses.replace(
        base, job=dataclasses.replace(base.job, starting_offsets="earliest")
    )
    options = python_client_options(config.kafka)
    present, later = (f"source-{name}-{uuid.uuid4().hex[:8]}" for name in ("present", "later"))
    brokers = len(kafka_cluster.bootstrap_servers)
    create_topic(options, present, 1, brokers)
    producer = KafkaProducer(acks="all", **options)
    producer.send(present, value=b"first").get(30)

    stream = kafka_stream(spark, config, [present, later]).selectExpr(
        "topic", "CAST(value AS STRING) AS v"
    )
    query = (
        stream.writeStream.format("memory")
        .queryName("late_topic")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .start()
    )

    def seen() -> set[tuple[str, str]]:
        assert query.exception() is None, query.exception()
        return {(r.topic, r.v) for r in spark.sql("SELECT topic, v FROM late_topic").collect()}

    try:
        wait_for(lambda: (present, "first") in seen(), 120, "the present topic's record")
        create_topic(options, later, 1, brokers)
        producer.send(later, value=b"second").get(30)
        wait_for(lambda: (later, "second") in seen(), 120, "the later topic's record")
        assert query.isActive
    finally:
        producer.close()
        query.stop()
