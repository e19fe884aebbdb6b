"""What the parse (:mod:`kafka_health.parsing.udf`) gives each entry, and what is read from it.

Each entry gets ``outcome`` (``event``, ``malformed`` or ``unrecognised``), ``reason`` (why a
row is not an event: ``no_event``, ``continuation``, ``unknown_format`` or a bad-input reason;
for ``malformed`` the event it looked like), ``type``, the event fields (:data:`EVENT_FIELDS`)
and ``event_ms``. The same parse serves the streaming job, ``kafka-health parse`` and
``replay``; the helpers here read its rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from kafka_health.parsing import patterns as P

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

Kind = Literal["auto", "kafka", "gc"]

# Output fields in JSON order (after type, file, line).
EVENT_FIELDS: tuple[str, ...] = (
    "ts",
    "broker_id",
    "level",
    "topic",
    "partition",
    "isr_before",
    "isr_after",
    "leader",
    "leader_epoch",
    "min_isr",
    "isr_size",
    "session_id",
    "subject_broker_id",
    "pause_s",
    "heap_before_mb",
    "heap_after_mb",
    "heap_total_mb",
    "cause",
    "collector",
    "uptime_s",
    "session_timeout_ms",
    "log_dir",
    "group",
    "generation",
    "members",
)
BAD_INPUT_REASONS = (
    "empty", "not_utf8", "binary", "oversize", "bad_json", "no_message", "bad_broker_id",
)  # fmt: skip
"""Why a record is not a log entry (``bad_reason`` of the parse, :mod:`~.udf`);
``bad_broker_id``: its envelope or key names a broker id that is not Kafka's."""
KAFKA_KINDS = ("server", "controller", "state-change")


def source_time_ms(df: DataFrame) -> Column:
    """The records' Kafka timestamps (``source_timestamp``) in milliseconds, null where ``df``
    has none: an event's time when its line gives none, and the log clock's shipping time."""
    from pyspark.sql import functions as F

    if "source_timestamp" not in df.columns:
        return F.lit(None).cast("long")
    return F.unix_millis(F.col("source_timestamp"))


def outcome_counts(parsed: DataFrame) -> DataFrame:
    """Rows and lines per (outcome, reason, type): what a metrics counter needs, per batch."""
    from pyspark.sql import functions as F

    lines = F.col("n_lines") if "n_lines" in parsed.columns else F.lit(1)
    return parsed.groupBy("outcome", "reason", "type").agg(
        F.count(F.lit(1)).alias("entries"), F.sum(lines).alias("lines")
    )


def with_context_collector(parsed: DataFrame) -> DataFrame:
    """Fill ``collector`` from the file's last "Using <collector>" line (offline files only)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    using_map = F.create_map(*[F.lit(x) for kv in P.USING_TO_COLLECTOR.items() for x in kv])
    window = Window.partitionBy("file").orderBy("line").rowsBetween(Window.unboundedPreceding, 0)
    head = F.substring(F.substring_index(F.coalesce(F.col("message"), F.lit("")), "\n", 1), 1, 256)
    using = F.nullif(F.regexp_extract(head, P.USING_COLLECTOR, 1), F.lit(""))
    seen = F.last(using, ignorenulls=True).over(window)
    gc_event = F.col("type").isin("full_gc", "young_gc", "gc_failure")
    return parsed.withColumn(
        "collector",
        F.when(gc_event, F.coalesce(F.col("collector"), F.element_at(using_map, seen))),
    )


def json_lines(events: DataFrame) -> DataFrame:
    """One ``json`` column per event: type, file, line, then the fields (nulls left out)."""
    from pyspark.sql import functions as F

    leading = [c for c in ("type", "file", "line") if c in events.columns]
    return events.select(F.to_json(F.struct(*leading, *EVENT_FIELDS)).alias("json"))
