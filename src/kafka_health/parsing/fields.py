"""The event assembly of :func:`~kafka_health.parsing.events.parse_entries`: each row's
``outcome``, ``reason``, ``type`` and event fields, from the columns the pattern stages wrote
(``_pid``, ``_suspect``, ``_groups``; :mod:`~kafka_health.parsing.matching`) and the entry's
own first line (``_head``).

Written :data:`FIELDS_CHUNK` fields a stage, with Spark's built-in functions only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kafka_health.parsing import patterns as P
from kafka_health.parsing.columns import (
    column_or_null,
    empty_to_null,
    heap_mb,
    isr_list,
    per_pattern,
    pick,
    seconds,
    to_int,
)
from kafka_health.parsing.stamps import (
    default_stamp,
    default_stamp_iso,
    default_stamp_level,
    is_entry_start,
    iso_ts,
)
from kafka_health.spark.stages import chunks, end_stage

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

FIELDS_CHUNK = 4
"""Event fields per projection stage (six stages). At 12 the first stage's method was 25 KB,
which neither C1 nor C2 compiled (one paced run spent 12 % of the executors' CPU in it,
interpreted); at 6, C1 gave up on the first two."""
LEADER_IS_SELF = (
    "leader_change.become_leader",
    "leader_change.become_leader_1_x",
    "leader_change.become_leader_trace",
)
"""Patterns whose line names no leader: the broker that wrote it became the leader."""


def group_reader(patterns: tuple[P.EventPattern, ...]) -> Callable[[str], Column]:
    """A reader of the matched pattern's named group (``_groups``): null where it is empty,
    and a plain null for a name no pattern has (no map lookup at all)."""
    from pyspark.sql import functions as F

    names = sorted({n for p in patterns for n in p.group_index()})

    def g(name: str) -> Column:
        if name not in names:
            return F.lit(None).cast("string")
        return empty_to_null(F.element_at(F.col("_groups"), F.lit(name)))

    return g


def outcome_and_reason() -> tuple[Column, Column]:
    """Whether the row is an ``event``, ``malformed`` (a trigger matched, no pattern did) or
    ``unrecognised``, and why a row is not an event (null for an event)."""
    from pyspark.sql import functions as F

    pid, fam = F.col("_pid"), F.col("_family")
    outcome = (
        F.when(pid.isNotNull(), "event")
        .when(F.col("_suspect").isNotNull(), "malformed")
        .otherwise("unrecognised")
    )
    reason = (
        F.when(pid.isNotNull(), F.lit(None).cast("string"))
        .when(F.col("_suspect").isNotNull(), F.col("_suspect"))
        .when(F.col("_bad").isNotNull(), F.col("_bad"))
        .when(F.col("_len") == 0, "empty")
        .when(F.col("_continuation"), "continuation")
        .when((fam != "gc") & (fam != "kafka") & ~is_entry_start(F.col("_head")), "unknown_format")
        .otherwise("no_event")
    )
    return outcome, reason


def line_columns(df: DataFrame, is_gc: Column) -> tuple[Column, Column, Column, Column]:
    """What the entry's first line gives: the broker it names (digits), the entry's broker
    (its record's, else the line's), its time (ISO text) and its level."""
    from pyspark.sql import functions as F

    h = F.col("_head")
    # The line's own broker (digits): an int32 as Kafka writes it, else none (a mutated or
    # forged line's 30 digits would be a broker, a stream and a label of its own).
    line_broker = F.when(~F.coalesce(is_gc, F.lit(False)), to_int(empty_to_null(
        F.regexp_extract(h, P.LINE_BROKER, 1))).cast("string"))  # fmt: skip
    broker_id = F.coalesce(empty_to_null(F.trim(column_or_null(df, "broker_id"))), line_broker)
    # A line in Kafka's default layout (most of them) gives its time and level at their
    # places, without the five regexes the others meet (a fifth of the field stages' samples
    # in an election storm, JFR).
    stamped = default_stamp(h)
    ts = F.when(stamped, default_stamp_iso(h)).otherwise(iso_ts(h))
    level = F.when(~F.coalesce(is_gc, F.lit(False)), empty_to_null(
        F.when(stamped, default_stamp_level(h)).otherwise(
            F.regexp_extract(h, P.LEVEL, 1))))  # fmt: skip
    return line_broker, broker_id, ts, level


def gc_columns(
    g: Callable[[str], Column], patterns: tuple[P.EventPattern, ...]
) -> tuple[Column, Column]:
    """A GC event's collector (the pattern's own, else its young generation's or its cause's)
    and the JVM's uptime in seconds (unified logging's or JDK 8's)."""
    from pyspark.sql import functions as F

    h = F.col("_head")
    constant_collector = pick(
        F.col("_pid"), [(i, F.lit(p.collector)) for i, p in enumerate(patterns) if p.collector]
    )
    young_gen_map = F.create_map(*[F.lit(x) for kv in P.YOUNG_GEN_COLLECTOR.items() for x in kv])
    collector = F.coalesce(
        constant_collector,
        F.element_at(young_gen_map, g("young_gen")),
        F.when(g("cause").startswith("G1 "), F.lit("g1")),
    )
    uptime_unified = F.regexp_extract(h, P.UPTIME_UNIFIED, 1)
    uptime_unit = F.regexp_extract(h, P.UPTIME_UNIFIED, 2)
    uptime_jdk8 = F.regexp_extract(h, P.UPTIME_JDK8, 1)
    uptime = F.coalesce(
        seconds(empty_to_null(uptime_unified), uptime_unit),
        empty_to_null(uptime_jdk8).try_cast("double"),
    )
    return collector, uptime


def topic_partition(g: Callable[[str], Column]) -> tuple[Column, Column]:
    """The event's topic and partition: their own groups, else the ``tp`` group's
    ``topic-partition`` (a topic id prefix ``<22 characters>:`` left out)."""
    from pyspark.sql import functions as F

    tp = F.regexp_replace(g("tp"), r"^[A-Za-z0-9_-]{22}:", "")
    tp_topic = empty_to_null(F.regexp_extract(tp, r"^(.+)-(\d+)$", 1))
    tp_partition = empty_to_null(F.regexp_extract(tp, r"^(.+)-(\d+)$", 2))
    return F.coalesce(g("topic"), tp_topic), to_int(F.coalesce(g("partition"), tp_partition))


def event_fields(df: DataFrame, patterns: tuple[P.EventPattern, ...]) -> dict[str, Column]:
    """``outcome``, ``reason``, ``type`` and the event fields, in the order they are written
    (:data:`~kafka_health.parsing.events.EVENT_FIELDS` after the first three)."""
    from pyspark.sql import functions as F

    pid = F.col("_pid")
    g = group_reader(patterns)
    type_col = per_pattern(pid, [p.event for p in patterns], "string")
    is_gc = per_pattern(pid, [p.family == "gc" for p in patterns], "boolean")
    leader_is_self = pid.isin(*[i for i, p in enumerate(patterns) if p.name in LEADER_IS_SELF])
    line_broker, broker_id, ts, level = line_columns(df, is_gc)
    collector, uptime = gc_columns(g, patterns)
    topic, partition = topic_partition(g)
    isr_set = isr_list(g("isr_set"))
    outcome, reason = outcome_and_reason()
    return {
        "outcome": outcome,
        "reason": reason,
        "type": type_col,
        "ts": F.when(pid.isNotNull(), ts),
        "broker_id": broker_id,
        "level": F.when(pid.isNotNull(), level),
        "topic": topic,
        "partition": partition,
        "isr_before": isr_list(g("isr_before")),
        "isr_after": isr_list(g("isr_after")),
        "leader": F.coalesce(to_int(g("leader")), F.when(leader_is_self, to_int(line_broker))),
        "leader_epoch": to_int(g("leader_epoch")),
        "min_isr": to_int(g("min_isr")),
        "isr_size": F.coalesce(to_int(g("isr_size")), F.size(isr_set).try_cast("int")),
        "session_id": g("session_id"),
        "subject_broker_id": to_int(g("subject")),
        "pause_s": seconds(g("pause"), g("pause_unit")),
        "heap_before_mb": heap_mb(g("heap_before")),
        "heap_after_mb": heap_mb(g("heap_after")),
        "heap_total_mb": heap_mb(g("heap_total")),
        "cause": g("cause"),
        "collector": F.when(pid.isNotNull() & is_gc, collector),
        "uptime_s": F.when(pid.isNotNull() & is_gc, uptime),
        "session_timeout_ms": to_int(g("session_timeout")),
        "log_dir": g("log_dir"),
        "group": g("group"),
        "generation": to_int(g("generation")),
        "members": to_int(g("members")),
    }


def with_event_fields(df: DataFrame, patterns: tuple[P.EventPattern, ...]) -> DataFrame:
    """``df`` with :func:`event_fields`, :data:`FIELDS_CHUNK` of them a stage."""
    fields = event_fields(df, patterns)
    for part in chunks(list(fields), FIELDS_CHUNK):
        df = df.withColumns({name: fields[name] for name in part})
        df = end_stage(df)
    return df
