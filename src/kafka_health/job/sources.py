"""Kafka sources of the job: which topics, from where, with the config's client settings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kafka_health.config import MonitorConfig
from kafka_health.kafka_clients import spark_kafka_options
from kafka_health.kafka_config import KafkaConfig

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def kafka_stream(
    spark: SparkSession,
    config: MonitorConfig,
    topics: Sequence[str],
    split_records: int | None = None,
) -> DataFrame:
    """A streaming DataFrame of the raw records of ``topics`` (Spark's Kafka source columns),
    read from the one cluster that holds them all (:func:`cluster_of`).

    Spark's Kafka source reads one cluster; the job keeps the canary topic (monitored cluster)
    in a query of its own, so its topics never span two clusters.
    """
    wanted = list(dict.fromkeys(topics))
    on_monitored = {cluster_of(config, t) is config.kafka for t in wanted}
    if len(on_monitored) != 1:
        raise ValueError(f"topics {wanted} are not all on one cluster: one query per cluster")
    return _source(spark, config, cluster_of(config, wanted[0]), wanted, split_records)


def cluster_of(config: MonitorConfig, topic: str) -> KafkaConfig:
    """The canary topic lives on the monitored cluster; the monitor's own topics (results,
    broker logs, cluster state, dead letters) on the transport."""
    if topic == config.topics.canary or not config.separate_transport:
        return config.kafka
    return config.transport_kafka()


def exact_topics_pattern(topics: Sequence[str]) -> str:
    """A Java regex matching exactly ``topics``. Spark's ``subscribe`` describes the topics by
    name at every batch and fails the query while one is missing (Spark 4's admin offset
    reader: UnknownTopicOrPartitionException), e.g. a log topic no shipper has created yet;
    ``subscribePattern`` lists the topics and reads those that match."""
    return "|".join(f"\\Q{topic}\\E" for topic in dict.fromkeys(topics))


# The longest a broker holds the source's fetch for data that is not there yet (the Java
# client's default is 500 ms). A batch's task reads up to offsets that already exist, but the
# pooled consumer's read-ahead fetch from the previous batch is still parked on the broker,
# and the next fetch to that broker waits for it: measured, a batch of a dozen records from a
# 1- or 6-partition topic took 0.42-0.44 s to collect with the default, 0.09-0.14 s with 10 ms
# (BENCHMARKS.md, "Idle cost").
FETCH_MAX_WAIT_MS = 10


def source_timeouts(config: MonitorConfig) -> dict[str, str]:
    """The sources' Kafka request and API timeouts (``job.source_timeout_s``), in place of the
    client's (``request_timeout_s``, 30 s by default). Spark looks up every partition's latest
    offset before each batch (an admin ``listOffsets``), and a call for a partition whose
    leader died or hangs waits "for a node assignment" until this timeout; Spark then retries
    with fresh metadata, which names the new leader once the controller fenced the old one.
    With 30 s, the single-cluster layout's job completed no batch for 32 s after a broker was
    killed and did not page a hung one until it thawed (BENCHMARKS.md)."""
    timeout_s = config.job.source_timeout_s
    retries = max(3, math.ceil(OFFSET_LOOKUP_SPAN_S / (timeout_s + OFFSET_RETRY_INTERVAL_S)))
    return {
        "kafka.request.timeout.ms": str(int(timeout_s * 1000)),
        "kafka.default.api.timeout.ms": str(int(timeout_s * 1000)),
        "fetchOffset.numRetries": str(retries),
        "fetchOffset.retryIntervalMs": str(int(OFFSET_RETRY_INTERVAL_S * 1000)),
    }


OFFSET_LOOKUP_SPAN_S = 45.0
"""How long Spark keeps retrying a batch's offset lookup before the query fails (and the
supervisor restarts it): a hung broker is fenced and its partitions move within about 10 s,
but an attempt whose admin client asks the hung broker itself (it accepts connections and never
answers) is lost whole; with Spark's 3 attempts the query failed and its restart cost more
seconds (measured: a 40 s freeze, single layout)."""
OFFSET_RETRY_INTERVAL_S = 0.5


def _source(
    spark: SparkSession,
    config: MonitorConfig,
    kafka: KafkaConfig,
    topics: Sequence[str],
    split_records: int | None = None,
) -> DataFrame:
    """One Kafka source. Retention deleting unread records is not a reason to stop monitoring
    (``failOnDataLoss=false``); the job reports it through the query's progress instead.
    Topics are matched by :func:`exact_topics_pattern`, not subscribed by name: a topic that
    does not exist yet is read once it appears, not a failed query. ``split_records``:
    Spark's ``maxRecordsPerPartition``, an offset range of more records than this (a backlog
    of one topic partition) read in pieces, by as many tasks; a smaller one stays whole."""
    reader = spark.readStream.format("kafka")
    if split_records is not None:
        reader = reader.option("maxRecordsPerPartition", str(split_records))
    return (
        reader.options(**spark_kafka_options(kafka))
        .option("subscribePattern", exact_topics_pattern(topics))
        .option("startingOffsets", config.job.starting_offsets)
        .option("failOnDataLoss", "false")
        .option("maxOffsetsPerTrigger", str(config.job.max_offsets_per_trigger))
        .option("kafka.client.id", f"kafka-health-{config.cluster_name}")
        .option("kafka.fetch.max.wait.ms", str(FETCH_MAX_WAIT_MS))
        .options(**source_timeouts(config))
        .load()
    )
