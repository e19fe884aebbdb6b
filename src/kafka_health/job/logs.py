"""Windows of broker log events: GC pauses, incident signatures and elections per broker.

Input: parsed events (``kafka_health.parsing``) with ``type``, ``broker_id``, ``event_ms``
and the event's fields. Events about another broker count for that broker: an election for
the new leader, a broker failure or controlled shutdown for the broker the controller saw.
One aggregation per (window, broker, type) in update mode gives counts, GC pause sums and
maxima, Full GC pauses longer than the broker's session timeout,
and the distinct (topic, partition, epoch) of leader changes, attributed to the new leader.
One election appears in several logs (controller, state-change, the new leader's server
log): the set counts it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.config import JobConfig
from kafka_health.job.intervals import interval

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

WINDOWED_TYPES = (
    "full_gc", "young_gc", "leader_change", "zk_session_expired", "zk_disconnected",
    "controller_change", "broker_failure", "controlled_shutdown", "processor_uncaught_exception",
    "log_cleaner_died", "not_leader", "min_isr_violation",
)  # fmt: skip


def session_timeout_ms(job: JobConfig) -> Column:
    """Each broker's session timeout (ms) as a column expression over ``broker_id``."""
    from pyspark.sql import functions as F

    default = F.lit(job.session_timeout_ms)
    if not job.session_timeout_ms_by_broker:
        return default
    pairs = [F.lit(x) for kv in job.session_timeout_ms_by_broker.items() for x in kv]
    return F.coalesce(F.element_at(F.create_map(*pairs), F.col("broker_id")), default)


def log_event_windows(events: DataFrame, job: JobConfig) -> DataFrame:
    """Per (window, broker, type): events, pause sum/max, over-timeout count, elections."""
    from pyspark.sql import functions as F

    is_election = F.col("type") == "leader_change"
    about_other = F.col("type").isin("broker_failure", "controlled_shutdown")
    subject = F.when(
        is_election & F.col("leader").isNotNull(), F.col("leader").cast("string")
    ).when(
        about_other & F.col("subject_broker_id").isNotNull(),
        F.col("subject_broker_id").cast("string"),
    )
    timed = (
        events.where(F.col("type").isin(*WINDOWED_TYPES) & F.col("event_ms").isNotNull())
        .withColumn("broker_id", F.coalesce(subject, F.col("broker_id"), F.lit("unknown")))
        .withColumn("event_time", F.timestamp_millis(F.col("event_ms")))
        .withColumn("timeout_ms", session_timeout_ms(job))
        .withWatermark("event_time", interval(job.watermark_s))
    )
    election = F.struct(
        F.col("topic"), F.col("partition").cast("int").alias("partition"),
        F.col("leader_epoch").cast("int").alias("leader_epoch"),
        F.col("leader").cast("int").alias("leader"),
    )  # fmt: skip
    over_timeout = (F.col("type") == "full_gc") & (F.col("pause_s") * 1000 > F.col("timeout_ms"))
    return timed.groupBy(
        F.window("event_time", interval(job.window_s), interval(job.slide_s)).alias("window"),
        "broker_id",
        "type",
    ).agg(
        F.count(F.lit(1)).alias("events"),
        F.sum("pause_s").alias("pause_sum"),
        F.max("pause_s").alias("pause_max"),
        F.sum(F.when(over_timeout, 1).otherwise(0)).alias("over_session_timeout"),
        F.collect_set(F.when(is_election & F.col("topic").isNotNull(), election)).alias(
            "elections"
        ),
        F.max("event_ms").alias("last_event_ms"),
    )
