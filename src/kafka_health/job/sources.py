"""Kafka sources of the job: which topics, from where, with the config's client settings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kafka_health.config import MonitorConfig
from kafka_health.kafka_clients import spark_kafka_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def kafka_stream(spark: SparkSession, config: MonitorConfig, topics: Sequence[str]) -> DataFrame:
    """A streaming DataFrame of the raw records of ``topics`` (Spark's Kafka source columns).

    Retention deleting unread records is not a reason to stop monitoring
    (``failOnDataLoss=false``); the job reports it through the query's progress instead.
    """
    return (
        spark.readStream.format("kafka")
        .options(**spark_kafka_options(config.kafka))
        .option("subscribe", ",".join(dict.fromkeys(topics)))
        .option("startingOffsets", config.job.starting_offsets)
        .option("failOnDataLoss", "false")
        .option("maxOffsetsPerTrigger", str(config.job.max_offsets_per_trigger))
        .option("kafka.client.id", f"kafka-health-{config.cluster_name}")
        .load()
    )
