"""Entries -> events, with Spark's built-in functions only (no Python UDF on the record path).

Input: a DataFrame of log entries with a ``message`` column (one whole entry, continuation lines
joined with ``"\\n"``) and optionally ``kind``, ``broker_id``, ``file``, ``line``, ``n_lines``,
``bad_reason`` and ``source_timestamp``; other columns pass through.

Output: the same rows with ``outcome`` (``event``, ``malformed`` or ``unrecognised``),
``reason`` (why a row is not an event: ``no_event``, ``continuation``, ``unknown_format`` or a
bad-input reason; for ``malformed`` the event it looked like), ``type`` and the event fields
(:data:`EVENT_FIELDS`). The same expressions serve the streaming job and ``kafka-health parse``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from kafka_health.parsing import patterns as P
from kafka_health.parsing.columns import any_of, column_or_null, cut, empty_to_null
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.fields import with_event_fields
from kafka_health.parsing.jsonlayout import with_layout_text
from kafka_health.parsing.matching import with_groups, with_maybe, with_pattern_ids, with_suspects
from kafka_health.parsing.stamps import default_layout, event_ms, is_entry_start
from kafka_health.spark.stages import end_stage

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
"""Why a record is not a log entry (``bad_reason`` of :func:`~.envelope.decode_records`);
``bad_broker_id``: its envelope or key names a broker id that is not Kafka's."""
KAFKA_KINDS = ("server", "controller", "state-change")


def source_time_ms(df: DataFrame) -> Column:
    """The records' Kafka timestamps (``source_timestamp``) in milliseconds, null where ``df``
    has none: an event's time when its line gives none, and the log clock's shipping time."""
    from pyspark.sql import functions as F

    if "source_timestamp" not in df.columns:
        return F.lit(None).cast("long")
    return F.unix_millis(F.col("source_timestamp"))


LETTER_ONLY = ("source_value", "file")
"""Columns only a dead letter reads, not an event (see :func:`parse_entries`'
``values_for_dead_letters_only``)."""


def _without_what_ordinary_lines_no_longer_need(df: DataFrame) -> DataFrame:
    """``df`` past the triggers' stage with the raw value and the file name only on rows that
    may become dead letters, the body only where a trigger matched, and the head there too or
    where the record names no broker (see :func:`parse_entries`'
    ``values_for_dead_letters_only``)."""
    from pyspark.sql import functions as F

    maybe, fam = F.col("_maybe"), F.col("_family")
    # Only a line some trigger matched is matched or malformed later; bad input, empty
    # entries and entries of neither family may be dead letters too (see the reason).
    may_be_letter = maybe | F.col("_bad").isNotNull() | (F.col("_len") == 0)
    may_be_letter = may_be_letter | ~fam.isin("gc", "kafka")
    # The head serves an ordinary line only for its broker, when its record names none.
    named = empty_to_null(F.trim(column_or_null(df, "broker_id"))).isNotNull()
    slim = {
        "_body": F.when(maybe, F.col("_body")),
        "_head": F.when(may_be_letter | ~named, F.col("_head")),
    }
    for letter_only in LETTER_ONLY:
        if letter_only in df.columns:
            slim[letter_only] = F.when(may_be_letter, F.col(letter_only))
    return df.withColumns(slim)


def _without_what_events_no_longer_need(df: DataFrame, pid: Column) -> DataFrame:
    """``df`` past the match stages with the raw value and the file name off the lines a
    pattern matched: an event is never a dead letter, and an election storm's event lines
    (four in ten of its lines) carried their raw record (the envelope, about 400 bytes) through
    the fifteen stages that follow."""
    from pyspark.sql import functions as F

    return df.withColumns(
        {name: F.when(pid.isNull(), F.col(name)) for name in LETTER_ONLY if name in df.columns}
    )


def _family(df: DataFrame, head: Column, kind: Kind) -> Column:
    """The entry's family (``kafka``, ``gc``, else ``auto``), from its own first line ``head``
    (a GC log line or a log4j line); the kind its shipper or file name gives is only the hint
    for a line that shows neither. ``kind`` other than ``auto`` decides for every entry.

    Kafka's default layout first, by plain compares (reference.content_family): most lines
    are in it, and the GC texts were seven walks of each of them (3 % of the executors' CPU in
    an election storm, JFR)."""
    from pyspark.sql import functions as F

    in_kind = F.lower(column_or_null(df, "kind"))
    hinted = F.when(in_kind == "gc", "gc").when(in_kind.isin(*KAFKA_KINDS), "kafka")
    return (
        F.lit(kind)
        if kind != "auto"
        else F.when(default_layout(head), "kafka")
        .when(any_of([head.contains(t) for t in P.GC_LINE_TEXTS]) & head.rlike(P.GC_LINE), "gc")
        .when(head.rlike(P.LOG4J_LINE), "kafka")
        .otherwise(F.coalesce(hinted, F.lit("auto")))
    )


def _with_head(df: DataFrame, config: ParsingConfig, kind: Kind, keep_message: bool) -> DataFrame:
    """``df`` with the entry's bounded texts (``_head``: its first line, ``_body``: the whole
    entry, each cut to ``scan_chars``), ``_family``, ``_bad`` (its bad-input reason) and
    ``_len`` (its bytes), in two stages: a JSON layout's entry read as the default layout's
    text, then these. Every pattern runs on bounded text: a 1 MB line costs no more than its
    first 16 KB. ``keep_message=False`` drops ``message`` once they are written."""
    from pyspark.sql import functions as F

    message = F.coalesce(F.col("message"), F.lit(""))
    # A JSON layout's entry is read as the default layout's text (only entries that start
    # with "{" meet get_json_object).
    df = with_layout_text(df, message, "_text")
    df = end_stage(df)
    text_col = F.col("_text")
    first_line = cut(F.substring_index(text_col, "\n", 1), config.scan_chars)
    head = F.when(first_line.endswith("\r"), F.regexp_replace(first_line, r"\r$", "")).otherwise(
        first_line
    )
    body = cut(text_col, config.scan_chars)
    family = _family(df, head, kind)
    bad = column_or_null(df, "bad_reason")
    # Only whether the entry is empty is read: its bytes tell, where length() would walk
    # every byte to count its characters (2 % of the executors' samples, JFR).
    octets = F.octet_length(message)
    df = df.withColumns(
        {"_head": head, "_body": body, "_family": family, "_bad": bad, "_len": octets}
    )
    return end_stage(df).drop("_text", *([] if keep_message else ["message"]))


def _with_usable(df: DataFrame) -> DataFrame:
    """``df`` with ``_continuation`` (its record says the entry continues another, or its
    first line starts no entry and reads as a continuation) and ``_usable`` (neither bad
    input, empty nor a continuation: an entry the patterns may meet)."""
    from pyspark.sql import functions as F

    h = F.col("_head")
    continued = F.coalesce(column_or_null(df, "continued", "boolean"), F.lit(False))
    is_continuation = continued | (~is_entry_start(h) & h.rlike(P.CONTINUATION))
    usable = F.col("_bad").isNull() & (F.col("_len") > 0) & ~is_continuation
    return df.withColumns({"_usable": usable, "_continuation": is_continuation})


def _with_event_ms(df: DataFrame, config: ParsingConfig) -> DataFrame:
    """``df`` with ``event_ms``: an event's time in epoch milliseconds (its ``ts``, read in
    ``log_timezone`` when it has no offset), else its record's Kafka timestamp."""
    from pyspark.sql import functions as F

    source_ms = source_time_ms(df)
    return df.withColumn(
        "event_ms",
        F.when(
            F.col("outcome") == "event",
            F.coalesce(event_ms(F.col("ts"), config.log_timezone), source_ms),
        ),
    )


def parse_entries(
    entries: DataFrame,
    config: ParsingConfig | None = None,
    kind: Kind = "auto",
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
    keep_message: bool = True,
    values_for_dead_letters_only: bool = False,
) -> DataFrame:
    """Classify every entry and extract its event fields (see the module docstring).
    ``keep_message=False`` leaves ``message`` out of the output (the streaming job): every
    stage after the first copies each row whole, and the entry's text is then held once (its
    first ``scan_chars``), not three times. ``values_for_dead_letters_only`` keeps the raw
    ``source_value`` only on rows that may become dead letters (the streaming job): after the
    triggers' stage an ordinary line no longer carries its raw record, its file name, nor its
    text (but for its broker, when the record names none), through the twenty stages that
    follow."""
    from pyspark.sql import functions as F

    config = config or ParsingConfig()
    df = _with_usable(_with_head(entries, config, kind, keep_message))
    df = with_maybe(df, patterns)
    if values_for_dead_letters_only:
        df = _without_what_ordinary_lines_no_longer_need(df)
    df = with_pattern_ids(df, patterns)
    if values_for_dead_letters_only:
        df = _without_what_events_no_longer_need(df, F.col("_pid"))
    df = with_groups(with_suspects(df, patterns), patterns)
    df = _with_event_ms(with_event_fields(df, patterns), config)
    internal = [c for c in df.columns if c.startswith("_")]
    return df.drop(*internal)


def events_only(parsed: DataFrame) -> DataFrame:
    """The rows of :func:`parse_entries` that are events."""
    from pyspark.sql import functions as F

    return parsed.where(F.col("outcome") == "event")


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
