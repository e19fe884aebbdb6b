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

from kafka_health.config import ParsingConfig
from kafka_health.parsing import patterns as P
from kafka_health.parsing.jsonlayout import with_layout_text
from kafka_health.parsing.prefilter import FamilyPrefilter, anchor, prefilter_gates
from kafka_health.spark.stages import chunks, coalesce_in_stages, end_stage

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


def _empty_to_null(col: Column) -> Column:
    from pyspark.sql import functions as F

    return F.when(col != "", col)


def _cut(text: Column, chars: int) -> Column:
    """The first ``chars`` characters of ``text``. A text of at most that many bytes is whole:
    ``substring`` counts a text's characters from its first byte, every time."""
    from pyspark.sql import functions as F

    return F.when(F.octet_length(text) <= chars, text).otherwise(F.substring(text, 1, chars))


def _family_allows(family_col: Column, family: str) -> Column:
    """Whether an entry of ``family_col`` may meet a pattern of ``family``: any but one of the
    other family (an entry of neither family meets both)."""
    return family_col != ("gc" if family == "kafka" else "kafka")


def _default_layout(head: Column) -> Column:
    """:func:`kafka_health.parsing.patterns.is_default_layout` by plain compares."""
    from pyspark.sql import functions as F

    at = P.DEFAULT_LAYOUT_LEVEL_AT + 1  # substring counts from 1
    by_length: dict[int, list[str]] = {}
    for level in P.DEFAULT_LAYOUT_LEVELS:
        by_length.setdefault(len(level), []).append(level)
    return head.startswith("[") & _any_of(
        [F.substring(head, at, n).isin(*levels) for n, levels in by_length.items()]
    )


def _default_stamp(head: Column) -> Column:
    """:func:`kafka_health.parsing.patterns.default_layout_stamp` gives a value: plain compares,
    then one anchored regex over the 23 characters of the date."""
    from pyspark.sql import functions as F

    at = P.DEFAULT_LAYOUT_LEVEL_AT  # the bracket's place, counted from 1
    stamp = F.substring(head, 2, at - 2)
    return (
        _default_layout(head)
        & (F.substring(head, at, 1) == "]")
        & stamp.rlike(P.DEFAULT_LAYOUT_STAMP)
    )


def _default_stamp_iso(head: Column) -> Column:
    """The ISO timestamp :func:`kafka_health.parsing.patterns.default_layout_stamp` reads."""
    from pyspark.sql import functions as F

    return F.concat(F.substring(head, 2, 10), F.lit("T"), F.substring(head, 13, 8), F.lit("."),
                    F.substring(head, 22, 3))  # fmt: skip


def _default_stamp_level(head: Column) -> Column:
    """The level :func:`kafka_health.parsing.patterns.default_layout_stamp` reads: the word
    after the bracket, four or five letters."""
    from pyspark.sql import functions as F

    return F.rtrim(F.substring(head, P.DEFAULT_LAYOUT_LEVEL_AT + 2, 5))


def _int(col: Column) -> Column:
    return col.try_cast("int")


def _isr_list(col: Column) -> Column:
    """ "3,1,4", "[1, 2]", "Set(3, 1)" -> array<int>; null stays null."""
    from pyspark.sql import functions as F

    digits = F.array_remove(F.split(F.regexp_replace(col, r"[^0-9,]", ""), ","), "")
    # array_remove + an array cast, not transform/filter: higher-order functions have no
    # generated code, and one in the parse projection took it out of whole-stage codegen.
    return F.when(col.isNotNull(), digits.try_cast("array<int>"))


def _heap_mb(col: Column) -> Column:
    """ "8071M", "272640K", "5649.6M", "0.0B", "1,5G" -> megabytes (double)."""
    from pyspark.sql import functions as F

    number = F.regexp_replace(F.regexp_extract(col, r"^([\d.,]+)", 1), ",", ".").try_cast("double")
    unit = F.regexp_extract(col, r"([BKMG])$", 1)
    factor = (
        F.when(unit == "B", 1 / 1048576.0)
        .when(unit == "K", 1 / 1024.0)
        .when(unit == "M", 1.0)
        .when(unit == "G", 1024.0)
    )
    return F.round(number * factor, 3)


def _seconds(value: Column, unit: Column) -> Column:
    """A duration figure and its unit (secs, s, ms, us, ns) -> seconds (double)."""
    from pyspark.sql import functions as F

    number = F.regexp_replace(value, ",", ".").try_cast("double")
    factor = (
        F.when(unit.isin("secs", "s"), 1.0)
        .when(unit == "ms", 1e-3)
        .when(unit == "us", 1e-6)
        .when(unit == "ns", 1e-9)
    )
    return F.round(number * factor, 9)


def _iso_ts(head: Column) -> Column:
    """The entry's own timestamp as ISO 8601 text, with its offset when the log has one."""
    from pyspark.sql import functions as F

    date = F.regexp_extract(head, P.TIMESTAMP, 1)
    time = F.regexp_extract(head, P.TIMESTAMP, 2)
    frac = F.regexp_extract(head, P.TIMESTAMP, 3)
    zone = F.regexp_extract(head, P.TIMESTAMP, 4)
    offset = (
        F.when(zone == "", "")
        .when(zone == "Z", "Z")
        .otherwise(F.regexp_replace(zone, r"^([+-]\d\d):?(\d\d)$", "$1:$2"))
    )
    fraction = F.when(frac != "", F.concat(F.lit("."), frac)).otherwise("")
    iso = F.when(date != "", F.concat(date, F.lit("T"), time, fraction, offset))
    # log4j 1.x %d{DATE}: local time like the default layout's (read and written in the
    # session zone, so the wall clock is kept).
    text = F.regexp_extract(head, P.LOG4J_DATE, 1)
    named = F.coalesce(
        F.try_to_timestamp(text, F.lit("dd MMM yyyy HH:mm:ss,SSS")),
        F.try_to_timestamp(text, F.lit("dd MMM yyyy HH:mm:ss")),
    )
    return F.coalesce(iso, F.date_format(named, "yyyy-MM-dd'T'HH:mm:ss.SSS"))


def _event_ms(ts: Column, timezone: str) -> Column:
    """Epoch milliseconds of ``ts``; a timestamp without offset is read in ``timezone``."""
    from pyspark.sql import functions as F

    has_offset = ts.rlike(r"(Z|[+-]\d\d:\d\d)$")
    local = F.to_utc_timestamp(F.try_to_timestamp(ts), F.lit(timezone))
    stamped = F.try_to_timestamp(ts)
    return F.unix_millis(F.when(has_offset, stamped).otherwise(local))


def _group_template(p: P.EventPattern) -> str:
    """Java replacement text listing a pattern's named groups: "name\x02$n\x01..."."""
    return "\x01".join(f"{name}\x02${index}" for name, index in p.group_index().items())


def _whole_entry(p: P.EventPattern) -> str:
    r"""The pattern widened to the whole text, so that regexp_replace keeps only the template.
    The widening is ``.`` under DOTALL, which Java tests with one predicate a character where
    ``[\s\S]`` is a union of two (about half of the first group-extraction stage's samples in
    an election storm, JFR); the pattern itself keeps the default flags, whatever its own
    inline flags do."""
    return rf"(?s)^.*?(?-s:{p.java_regex()}).*$"


def _any_of(conditions: list[Column]) -> Column:
    """c1 OR c2 OR ... (evaluated left to right, stopping at the first true one)."""
    expr = conditions[0]
    for condition in conditions[1:]:
        expr = expr | condition
    return expr


def _passes_prefilter(text: Column, tokens: Column, gate: FamilyPrefilter) -> Column:
    """:meth:`FamilyPrefilter.passes` over ``text`` (``tokens``: it split at spaces)."""
    from pyspark.sql import functions as F

    parts = [text.contains(t) for t in gate.searched]
    if gate.words:
        words = F.array(*[F.lit(w) for w in gate.words])
        parts.append(
            F.arrays_overlap(tokens, words) & _any_of([text.contains(t) for t in gate.gated])
        )
    return _any_of(parts)


def _first_match(cases: list[tuple[Column, Column]]) -> Column:
    """CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ... END as one flat expression."""
    from pyspark.sql import functions as F

    (condition, value), *rest = cases
    expr = F.when(condition, value)
    for condition, value in rest:
        expr = expr.when(condition, value)
    return expr


MATCH_CHUNK = 36
"""Patterns per match stage (their literal guards and regexes in one CASE): the table's 69 in
two stages. With the guards, all of them in one stage was a method C1 gave up on (tier 3
failed, ``tests/spark/test_parser_jit.py``). Every stage boundary copies each row, so the
stages are as few as HotSpot compiles whole: the session's ``JIT_OPTIONS``
(:mod:`kafka_health.spark.session`) let it compile methods over 8 KB, but C1 gives up on a
method with too many values in it ("out of virtual registers"), and a method C1 cannot profile
may never reach C2 and run at C1's lowest tier, or interpreted, for good. That test holds every
stage to that."""
TRIGGER_CHUNK = 36
"""Patterns per suspect stage (their literal guards and triggers in one CASE), as
:data:`MATCH_CHUNK`."""
GROUPS_CHUNK = 12
"""Patterns per group-extraction stage (six stages). At 36 (two stages of 15 and 10 KB) and
at 18, C1 gave up on every one of them: each pattern's ``regexp_replace`` holds many values."""
FIELDS_CHUNK = 4
"""Event fields per projection stage (six stages). At 12 the first stage's method was 25 KB,
which neither C1 nor C2 compiled (one paced run spent 12 % of the executors' CPU in it,
interpreted); at 6, C1 gave up on the first two."""


def _pick(pid: Column, cases: list[tuple[int, Column]]) -> Column:
    """CASE pid WHEN i THEN expr_i ... END, null when no case (or no pattern) applies."""
    from pyspark.sql import functions as F

    if not cases:
        return F.lit(None).cast("string")
    expr = F.when(pid == cases[0][0], cases[0][1])
    for i, value in cases[1:]:
        expr = expr.when(pid == i, value)
    return expr


def _column_or_null(df: DataFrame, name: str, dtype: str = "string") -> Column:
    from pyspark.sql import functions as F

    return F.col(name) if name in df.columns else F.lit(None).cast(dtype)


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
    named = _empty_to_null(F.trim(_column_or_null(df, "broker_id"))).isNotNull()
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
    df = entries
    message = F.coalesce(F.col("message"), F.lit(""))
    # A JSON layout's entry is read as the default layout's text (only entries that start
    # with "{" meet get_json_object).
    df = with_layout_text(df, message, "_text")
    df = end_stage(df)
    text_col = F.col("_text")
    # Every pattern runs on bounded text: the first line cut to scan_chars, and the first
    # scan_chars of the entry. A 1 MB line costs no more than its first 16 KB.
    first_line = _cut(F.substring_index(text_col, "\n", 1), config.scan_chars)
    head = F.when(first_line.endswith("\r"), F.regexp_replace(first_line, r"\r$", "")).otherwise(
        first_line
    )
    body = _cut(text_col, config.scan_chars)
    # The family comes from the entry's own first line (a GC log line or a log4j line); the
    # kind its shipper or file name gives is only the hint for a line that shows neither.
    # Kafka's default layout first, by plain compares (reference.content_family): most lines
    # are in it, and the GC texts were seven walks of each of them (3 % of the executors' CPU
    # in an election storm, JFR).
    in_kind = F.lower(_column_or_null(df, "kind"))
    hinted = F.when(in_kind == "gc", "gc").when(in_kind.isin(*KAFKA_KINDS), "kafka")
    family = (
        F.lit(kind)
        if kind != "auto"
        else F.when(_default_layout(head), "kafka")
        .when(_any_of([head.contains(t) for t in P.GC_LINE_TEXTS]) & head.rlike(P.GC_LINE), "gc")
        .when(head.rlike(P.LOG4J_LINE), "kafka")
        .otherwise(F.coalesce(hinted, F.lit("auto")))
    )
    bad = _column_or_null(df, "bad_reason")
    # Only whether the entry is empty is read: its bytes tell, where length() would walk
    # every byte to count its characters (2 % of the executors' samples, JFR).
    octets = F.octet_length(message)
    df = df.withColumns(
        {"_head": head, "_body": body, "_family": family, "_bad": bad, "_len": octets}
    )
    df = end_stage(df).drop("_text", *([] if keep_message else ["message"]))
    h, b, fam = F.col("_head"), F.col("_body"), F.col("_family")
    is_start = _default_layout(h) | h.rlike(P.ENTRY_START)
    continued = F.coalesce(_column_or_null(df, "continued", "boolean"), F.lit(False))
    is_continuation = continued | (~is_start & h.rlike(P.CONTINUATION))
    usable = F.col("_bad").isNull() & (F.col("_len") > 0) & ~is_continuation
    df = df.withColumns({"_usable": usable, "_continuation": is_continuation})

    def allowed(p: P.EventPattern) -> Column:
        return _family_allows(fam, p.family)

    def text(p: P.EventPattern) -> Column:
        return b if p.scope == "entry" else h

    def holds_literal(p: P.EventPattern) -> Column:
        """Whether ``text(p)`` holds one of ``p``'s trigger literals (each from its rarest
        character, :func:`~kafka_health.parsing.prefilter.anchor`): every match of ``p``'s
        regex and of its trigger does (``tests/unit/parsing/test_trigger_literals.py``), and
        a plain search of the line is far cheaper than trying the regex."""
        literals = P.trigger_literals(p.trigger)
        if not literals:
            return F.lit(True)
        return _any_of([text(p).contains(anchor(lit)) for lit in dict.fromkeys(literals)])

    # One cheap pass: does anything look like an event at all? (Most lines do not.)
    # A plain substring search (prefilter_gates: one of its family's texts is in every match
    # of a trigger; most are searched only in a line that holds one of their words). A line
    # it passes goes to the patterns, each behind its own literals: the union of every
    # trigger's regex, tried on it first, decided nothing more (each pattern's regex holds its
    # trigger's match), and dropping it took 22-27 % off an election storm's batch
    # (BENCHMARKS.md).
    gates = prefilter_gates(patterns)
    maybe_col = F.col("_usable")
    if gates is None:  # some trigger has no literal to search for: the triggers' regex
        any_trigger = "|".join(f"(?:{t})" for t in dict.fromkeys(p.trigger for p in patterns))
        maybe_col = maybe_col & b.rlike(any_trigger)
    else:
        # A GC line meets only the GC texts, a Kafka line only Kafka's (as allowed() says).
        tokens = F.split(b, " ")
        maybe_col = maybe_col & _any_of(
            [_family_allows(fam, family) & _passes_prefilter(b, tokens, gate)
             for family, gate in gates.items() if gate.searched or gate.words]
        )  # fmt: skip
    df = df.withColumn("_maybe", maybe_col)
    df = end_stage(df)
    maybe = F.col("_maybe")
    if values_for_dead_letters_only:
        df = _without_what_ordinary_lines_no_longer_need(df)
    # The patterns in chunks, a stage each: the first chunk that matches wins, as one CASE
    # would, but no stage's generated method outgrows Janino's 64 KB (MATCH_CHUNK).
    numbered = list(enumerate(patterns))
    matches = [
        F.when(maybe, _first_match(
            [(allowed(p) & holds_literal(p) & text(p).rlike(p.java_regex()), F.lit(i))
             for i, p in chunk]
        ))
        for chunk in chunks(numbered, MATCH_CHUNK)
    ]  # fmt: skip
    df = coalesce_in_stages(df, "_pid", matches, "int")
    pid_col = F.col("_pid")
    if values_for_dead_letters_only:
        df = _without_what_events_no_longer_need(df, pid_col)
    unmatched = maybe & pid_col.isNull()
    suspects = [
        F.when(unmatched, _first_match(
            [(allowed(p) & holds_literal(p) & text(p).rlike(p.trigger), F.lit(p.event))
             for _i, p in chunk]
        ))
        for chunk in chunks(numbered, TRIGGER_CHUNK)
    ]  # fmt: skip
    df = coalesce_in_stages(df, "_suspect", suspects)

    # One regexp_replace per pattern (only the matching one runs) turns the entry into
    # "name\x02value\x01name\x02value..." of its named groups: one small expression per
    # pattern instead of one per group, so the generated code stays within the JVM's limits.
    templates = [(i, p, _group_template(p)) for i, p in numbered]
    cases = [
        (i, F.regexp_replace(text(p), _whole_entry(p), template))
        for i, p, template in templates
        if template
    ]
    picks = [_pick(pid_col, part) for part in chunks(cases, GROUPS_CHUNK)]
    df = coalesce_in_stages(df, "_extracted", picks)
    extracted = F.col("_extracted")
    df = df.withColumn("_groups", F.str_to_map(extracted, F.lit("\x01"), F.lit("\x02")))
    df = end_stage(df)
    names = sorted({n for p in patterns for n in p.group_index()})

    def g(name: str) -> Column:
        if name not in names:
            return F.lit(None).cast("string")
        return _empty_to_null(F.element_at(F.col("_groups"), F.lit(name)))

    type_col = _pick(pid_col, [(i, F.lit(p.event)) for i, p in enumerate(patterns)])
    is_gc = _pick(pid_col, [(i, F.lit(p.family == "gc")) for i, p in enumerate(patterns)])
    constant_collector = _pick(
        pid_col, [(i, F.lit(p.collector)) for i, p in enumerate(patterns) if p.collector]
    )
    leader_is_self = pid_col.isin(
        *[
            i
            for i, p in enumerate(patterns)
            if p.name
            in (
                "leader_change.become_leader",
                "leader_change.become_leader_1_x",
                "leader_change.become_leader_trace",
            )
        ]
    )
    tp = F.regexp_replace(g("tp"), r"^[A-Za-z0-9_-]{22}:", "")
    tp_topic = _empty_to_null(F.regexp_extract(tp, r"^(.+)-(\d+)$", 1))
    tp_partition = _empty_to_null(F.regexp_extract(tp, r"^(.+)-(\d+)$", 2))
    # The line's own broker (digits): an int32 as Kafka writes it, else none (a mutated or
    # forged line's 30 digits would be a broker, a stream and a label of its own).
    line_broker = F.when(~F.coalesce(is_gc, F.lit(False)), _int(_empty_to_null(
        F.regexp_extract(h, P.LINE_BROKER, 1))).cast("string"))  # fmt: skip
    broker_id = F.coalesce(_empty_to_null(F.trim(_column_or_null(df, "broker_id"))), line_broker)
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
        _seconds(_empty_to_null(uptime_unified), uptime_unit),
        _empty_to_null(uptime_jdk8).try_cast("double"),
    )
    # A line in Kafka's default layout (most of them) gives its time and level at their
    # places, without the five regexes the others meet (a fifth of the field stages' samples
    # in an election storm, JFR).
    default_stamp = _default_stamp(h)
    ts = F.when(default_stamp, _default_stamp_iso(h)).otherwise(_iso_ts(h))
    level = F.when(~F.coalesce(is_gc, F.lit(False)), _empty_to_null(
        F.when(default_stamp, _default_stamp_level(h)).otherwise(
            F.regexp_extract(h, P.LEVEL, 1))))  # fmt: skip
    isr_set = _isr_list(g("isr_set"))
    source_ms = source_time_ms(df)
    outcome = (
        F.when(pid_col.isNotNull(), "event")
        .when(F.col("_suspect").isNotNull(), "malformed")
        .otherwise("unrecognised")
    )
    reason = (
        F.when(pid_col.isNotNull(), F.lit(None).cast("string"))
        .when(F.col("_suspect").isNotNull(), F.col("_suspect"))
        .when(F.col("_bad").isNotNull(), F.col("_bad"))
        .when(F.col("_len") == 0, "empty")
        .when(F.col("_continuation"), "continuation")
        .when((fam != "gc") & (fam != "kafka") & ~is_start, "unknown_format")
        .otherwise("no_event")
    )
    fields = {
        "outcome": outcome,
        "reason": reason,
        "type": type_col,
        "ts": F.when(pid_col.isNotNull(), ts),
        "broker_id": broker_id,
        "level": F.when(pid_col.isNotNull(), level),
        "topic": F.coalesce(g("topic"), tp_topic),
        "partition": _int(F.coalesce(g("partition"), tp_partition)),
        "isr_before": _isr_list(g("isr_before")),
        "isr_after": _isr_list(g("isr_after")),
        "leader": F.coalesce(_int(g("leader")), F.when(leader_is_self, _int(line_broker))),
        "leader_epoch": _int(g("leader_epoch")),
        "min_isr": _int(g("min_isr")),
        "isr_size": F.coalesce(_int(g("isr_size")), F.size(isr_set).try_cast("int")),
        "session_id": g("session_id"),
        "subject_broker_id": _int(g("subject")),
        "pause_s": _seconds(g("pause"), g("pause_unit")),
        "heap_before_mb": _heap_mb(g("heap_before")),
        "heap_after_mb": _heap_mb(g("heap_after")),
        "heap_total_mb": _heap_mb(g("heap_total")),
        "cause": g("cause"),
        "collector": F.when(pid_col.isNotNull() & is_gc, collector),
        "uptime_s": F.when(pid_col.isNotNull() & is_gc, uptime),
        "session_timeout_ms": _int(g("session_timeout")),
    }
    names_in_order = list(fields)
    for part in chunks(names_in_order, FIELDS_CHUNK):
        df = df.withColumns({name: fields[name] for name in part})
        df = end_stage(df)
    df = df.withColumn(
        "event_ms",
        F.when(
            F.col("outcome") == "event",
            F.coalesce(_event_ms(F.col("ts"), config.log_timezone), source_ms),
        ),
    )
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
