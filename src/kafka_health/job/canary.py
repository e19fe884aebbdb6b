"""Write-path signals from canary outcomes: latency quantiles and availability per window.

One streaming aggregation (``rollup``) yields three scopes from the same records: per
partition (with its leader at send time), per broker (the leader) and for the cluster. Only the
``acks=all`` probes count here; the optional ``acks=1`` probe is only for loss detection.
Output mode is ``update``: each trigger re-emits the windows that changed, so a failing broker
shows within one trigger rather than after the watermark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.config import JobConfig
from kafka_health.job.intervals import interval
from kafka_health.job.schemas import RESULT_DDL, RESULT_SCHEMA_ID

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

QUANTILES = (0.5, 0.95, 0.99)
# grouping_id() of rollup(window, broker_id, partition) for the three scopes kept.
LEVEL_PARTITION, LEVEL_BROKER, LEVEL_CLUSTER = 0, 1, 3


def canary_outcomes(raw: DataFrame, results_topic: str) -> DataFrame:
    """Parsed outcome records of the results topic (records of another schema are skipped)."""
    from pyspark.sql import functions as F

    parsed = raw.where(F.col("topic") == results_topic).select(
        F.from_json(F.col("value").cast("string"), RESULT_DDL).alias("r")
    )
    return parsed.where(F.col("r.schema") == RESULT_SCHEMA_ID).select("r.*")


def write_path_windows(outcomes: DataFrame, job: JobConfig) -> DataFrame:
    """Per (window, scope): sends, successes, ack latency and append delay quantiles, errors."""
    from pyspark.sql import functions as F

    ok = F.col("outcome") == "ok"
    quantiles = F.array(*[F.lit(q) for q in QUANTILES])
    append_delay = (F.col("log_append_ms") - F.col("send_ms")) / 1000.0
    timed = (
        outcomes.where(F.col("acks") == "all")
        .withColumn("event_time", F.timestamp_millis(F.col("send_ms")))
        .withColumn("broker_id", F.coalesce(F.col("leader").cast("string"), F.lit("unknown")))
        .withWatermark("event_time", interval(job.watermark_s))
    )
    window = F.window(
        "event_time",
        interval(job.window_s),
        interval(job.slide_s),
    )
    aggregated = timed.rollup(window.alias("window"), "broker_id", "partition").agg(
        F.grouping_id().alias("level"),
        F.count(F.lit(1)).alias("sends"),
        F.sum(F.when(ok, 1).otherwise(0)).alias("successes"),
        F.percentile_approx(F.when(ok, F.col("latency_s")), quantiles, job.latency_accuracy).alias(
            "ack_quantiles"
        ),
        F.max(F.when(ok, F.col("latency_s"))).alias("ack_max"),
        F.percentile_approx(F.when(ok, append_delay), quantiles, job.latency_accuracy).alias(
            "append_quantiles"
        ),
        F.max(F.when(ok, append_delay)).alias("append_max"),
        F.max("send_ms").alias("last_send_ms"),
        F.collect_list(F.when(~ok, F.coalesce(F.col("error"), F.lit("Unknown")))).alias("errors"),
    )
    return aggregated.where(
        F.col("window").isNotNull()
        & F.col("level").isin(LEVEL_PARTITION, LEVEL_BROKER, LEVEL_CLUSTER)
    )
