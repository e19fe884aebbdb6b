"""Kafka sources of the job: which topics, from where, with the config's client settings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kafka_health.config import KafkaConfig, MonitorConfig
from kafka_health.kafka_clients import spark_kafka_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def kafka_stream(spark: SparkSession, config: MonitorConfig, topics: Sequence[str]) -> DataFrame:
    """A streaming DataFrame of the raw records of ``topics`` (Spark's Kafka source columns),
    read from the one cluster that holds them all (:func:`cluster_of`).

    Spark's Kafka source reads one cluster; the job keeps the canary topic (monitored cluster)
    in a query of its own, so its topics never span two clusters.
    """
    wanted = list(dict.fromkeys(topics))
    on_monitored = {cluster_of(config, t) is config.kafka for t in wanted}
    if len(on_monitored) != 1:
        raise ValueError(f"topics {wanted} are not all on one cluster: one query per cluster")
    return _source(spark, config, cluster_of(config, wanted[0]), wanted)


def cluster_of(config: MonitorConfig, topic: str) -> KafkaConfig:
    """The canary topic lives on the monitored cluster; the monitor's own topics (results,
    broker logs, cluster state, dead letters) on the transport."""
    if topic == config.topics.canary or not config.separate_transport:
        return config.kafka
    return config.transport_kafka()


def _source(
    spark: SparkSession, config: MonitorConfig, kafka: KafkaConfig, topics: Sequence[str]
) -> DataFrame:
    """One Kafka source. Retention deleting unread records is not a reason to stop monitoring
    (``failOnDataLoss=false``); the job reports it through the query's progress instead."""
    return (
        spark.readStream.format("kafka")
        .options(**spark_kafka_options(kafka))
        .option("subscribe", ",".join(dict.fromkeys(topics)))
        .option("startingOffsets", config.job.starting_offsets)
        .option("failOnDataLoss", "false")
        .option("maxOffsetsPerTrigger", str(config.job.max_offsets_per_trigger))
        .option("kafka.client.id", f"kafka-health-{config.cluster_name}")
        .load()
    )
