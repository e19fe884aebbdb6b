"""Real records through a real cluster and Spark's Kafka source: all of them, once, in order."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

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
