"""Lost and duplicated canary writes: acknowledged sequence numbers versus the canary topic.

Outcomes (``outcome = ok``) and the canary records themselves are grouped by
(canary_id, partition, seq, acks) within a tumbling window of their send time. Once the
watermark, set to the grace period, has passed a window, its groups are final (append mode):
an acknowledged sequence number that never appeared in the topic is a lost acknowledged write;
one that appeared at two offsets is a duplicate. Only anomalies leave the query.

A probe that failed at the canary's deadline (``Timeout``) but was written anyway (its leader
answered late) appears in the topic with no acknowledged outcome: neither lost nor a
duplicate. The canary never publishes that late answer as a second outcome, so a timed-out
probe can never become a "lost acknowledged write".

With a separate transport the canary topic (monitored cluster) and the results (transport)
come from two Kafka sources, unioned by :func:`kafka_health.job.sources.kafka_stream`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.config import JobConfig
from kafka_health.job.intervals import interval
from kafka_health.job.schemas import PROBE_DDL, PROBE_SCHEMA_ID, RESULT_DDL, RESULT_SCHEMA_ID

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def probe_observations(raw: DataFrame, canary_topic: str, results_topic: str) -> DataFrame:
    """One row per acknowledgement (``acked``) or per appearance in the topic (``offset``)."""
    from pyspark.sql import functions as F

    value = F.col("value").cast("string")
    seen = (
        raw.where(F.col("topic") == canary_topic)
        .select(F.from_json(value, PROBE_DDL).alias("p"), F.col("offset").alias("kafka_offset"))
        .where(F.col("p.schema") == PROBE_SCHEMA_ID)
        .select(
            "p.canary_id", "p.partition", "p.seq", "p.acks", "p.send_ms",
            F.lit(False).alias("acked"), F.col("kafka_offset").alias("offset"),
        )
    )  # fmt: skip
    acked = (
        raw.where(F.col("topic") == results_topic)
        .select(F.from_json(value, RESULT_DDL).alias("r"))
        .where((F.col("r.schema") == RESULT_SCHEMA_ID) & (F.col("r.outcome") == "ok"))
        .select(
            "r.canary_id", "r.partition", "r.seq", "r.acks", "r.send_ms",
            F.lit(True).alias("acked"), F.lit(None).cast("bigint").alias("offset"),
        )
    )  # fmt: skip
    return seen.unionByName(acked)


def write_anomalies(observations: DataFrame, job: JobConfig) -> DataFrame:
    """Final per-sequence verdicts that are anomalies: ``lost`` or ``duplicate`` rows."""
    from pyspark.sql import functions as F

    final = (
        observations.withColumn("event_time", F.timestamp_millis(F.col("send_ms")))
        .withWatermark("event_time", interval(job.loss_grace_s))
        .groupBy(
            F.window("event_time", interval(job.slide_s)).alias("window"),
            "canary_id",
            "partition",
            "seq",
            "acks",
        )
        .agg(
            F.max(F.col("acked").cast("int")).alias("acked"),
            F.size(F.collect_set("offset")).alias("copies"),
            F.max("send_ms").alias("send_ms"),
        )
    )
    lost = (F.col("acked") == 1) & (F.col("copies") == 0)
    return final.where(lost | (F.col("copies") > 1)).select(
        "canary_id",
        "partition",
        "seq",
        "acks",
        "send_ms",
        F.when(lost, F.lit("lost")).otherwise(F.lit("duplicate")).alias("anomaly"),
        "copies",
    )
