"""Kafka records of a broker-log topic -> log entries, with Spark SQL functions only.

A record's value is either the raw log entry (the key then holds a broker id or a host name) or
a JSON envelope: the project's shipper (``kafka-health/log/v1``), Filebeat, Fluent Bit, Vector
or an rsyslog ``omkafka`` JSON template. Which JSON paths hold the message, broker id, host,
file and kind is configured (:class:`~kafka_health.config.EnvelopeFieldsConfig`); a Beats
record from before ECS (Filebeat 5.x and 6.x, :data:`PRE_ECS_BEATS`) gives its file and host
where no configured path does. A record that
is itself a log4j JSON layout's event (``log4j-json``) is kept whole: the parser reads its time,
level and logger (:mod:`~kafka_health.parsing.jsonlayout`).

Bad records are never dropped silently: each gets a ``bad_reason`` (``empty``, ``oversize``,
``not_utf8``, ``binary``, ``bad_json``, ``no_message``, ``bad_broker_id``) and keeps its source
offset.

The broker id and the log kind become labels and detector state (a log stream per broker and
kind), so they are checked here, in the plan (built-in functions, before the job's
aggregation groups by them): a broker id is Kafka's node id, an int32 of at least 0 written
as Kafka writes it (``0`` to ``2147483647``, no sign, no leading zero; surrounding blanks are
trimmed, a blank one is none); a record naming any other is rejected (``bad_broker_id``), so a
flood of random ids makes no group, stream or series. A kind is one of :data:`LOG_KINDS` (the
shipper's); a record whose envelope gives another kind keeps the one its file name gives, else
``other``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.parsing.config import EnvelopeFieldsConfig, ParsingConfig
from kafka_health.parsing.jsonlayout import LAYOUT_KEYS, is_layout_record
from kafka_health.spark.stages import chunks, coalesce_in_stages, end_stage

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

# C0 control characters and DEL, other than tab, newline, carriage return and ESC (ANSI
# colours): \x00-\x08, \x0B, \x0C, \x0E-\x1A, \x1C-\x1F, \x7F. Written as one class less
# four, not a union of five ranges: Java's regex tests a union's parts one by one at every
# character, where an intersection stops at its first part, one table lookup for a printable
# character (the regex runs over every raw record: 0.45 s of 171,801 records before, 0.2 s
# after; BENCHMARKS.md).
BINARY = r"[\p{Cntrl}&&[^\t\n\r\x1B]]"
BINARY_CHARACTERS = "".join(map(chr, [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x1B),
                                      *range(0x1C, 0x20), 0x7F]))  # fmt: skip
"""The characters :data:`BINARY` matches, spelled out (its test holds them to it)."""
# Log kind from a file name: server.log, controller.log.2026-11-22-10, kafkaServer-gc.log.0
# ("gc" as a word of its own: kafka-logcleaner.log is not a GC log). Only a hint: the
# parser decides each entry's family from its content.
KIND_FROM_FILE = (
    r"(?:^|/)(?:(server|controller|state-change)\.log|"
    r"[^/]*?(?<![A-Za-z])(gc)(?![A-Za-z])[^/]*\.log)(?:[.\d-]*)?$"
)
LOG_KINDS = ("server", "controller", "state-change", "gc", "other")
"""The log kinds a record may give (the shipper's ``kind``); any other is ``other``."""
BROKER_ID_MAX = 2_147_483_647
"""Kafka's node id is an int32 (``node.id``, ``broker.id``); ids below 0 name no broker."""
SOURCE_COLUMNS = {
    "topic": "source_topic",
    "partition": "source_partition",
    "offset": "source_offset",
    "timestamp": "source_timestamp",
    "key": "source_key",
    "value": "source_value",
}


def json_path(doc: Column, path: str, layouts: bool = False) -> Column:
    """The scalar at dotted ``path`` of a parsed JSON object (:func:`parse_doc`), or null when
    there is none or it is empty.

    The top level is a field of the parsed struct (parsed once per record); deeper levels read
    the nested object's JSON text. Objects and arrays are not scalars and give null (a log line that
    starts with "[" is not JSON, so it stays a string), except, with ``layouts``, an object
    with a ``message``: a log4j JSON layout's event that the shipper did not unpack.
    """
    from pyspark.sql import functions as F

    first, *rest = path.split(".")
    value = doc.getField(first)
    if rest:
        value = F.get_json_object(value, "$." + ".".join(rest))
    # The first and last characters by plain compares (rlike would decode the whole text to a
    # Java String), and only then the JSON parse: every Kafka log line opens with "[", and a
    # get_json_object failing on each of them was a sixth of the decode's cost (BENCHMARKS.md).
    # An object or array reaches here as Spark writes it, with nothing around its brackets.
    # Spark repeats a repeated expression inside a condition, in the generated code and when it
    # runs (it shares only the unconditional ones), so each test names the value once.
    brackets = (value.startswith("[") | value.startswith("{")) & (
        value.endswith("]") | value.endswith("}")
    )
    structured = brackets & F.get_json_object(value, "$").isNotNull()
    if layouts:
        structured = structured & F.get_json_object(value, "$.message").isNull()
    return F.when(~structured & (value != ""), value)


def first_path(doc: Column, paths: list[str], layouts: bool = False) -> Column:
    """The first non-empty scalar among ``paths`` (see :func:`json_path` for ``layouts``)."""
    from pyspark.sql import functions as F

    if not paths:
        return F.lit(None).cast("string")
    found = [json_path(doc, p, layouts) for p in paths]
    return F.coalesce(*found) if len(found) > 1 else found[0]


VALUE_KEPT_MIN_BYTES = 65_536
"""The raw value is kept to at least this (the job's own records' limit) past decoding."""

PATHS_PER_STAGE = 8
"""Envelope paths read in one stage (the default file paths, five, in one): each stage
boundary copies every row, and HotSpot compiles a method over 8 KB (``JIT_OPTIONS`` in
:mod:`kafka_health.spark.session`); more paths in a stage would near Janino's 64 KB."""


def kind_from_file(file: Column) -> Column:
    """server / controller / state-change / gc from a log file name; null when unknown."""
    from pyspark.sql import functions as F

    named = F.regexp_extract(file, KIND_FROM_FILE, 1)
    gc = F.regexp_extract(file, KIND_FROM_FILE, 2)
    return F.when(named != "", named).when(gc != "", "gc")


def valid_broker_id(text: Column) -> Column:
    """Whether ``text`` is a broker id as Kafka writes one: the decimal of an int32 of at
    least 0 (:data:`BROKER_ID_MAX`), no sign, blank or leading zero (``try_cast``, and its
    text again, compared: no regex; null for a null ``text``)."""
    from pyspark.sql import functions as F

    number = F.when(F.octet_length(text) <= len(str(BROKER_ID_MAX)), text.try_cast("int"))
    return F.coalesce((number >= 0) & (number.cast("string") == text), F.lit(False))


def envelope_name(doc: Column) -> Column:
    """Which shipper wrote a JSON envelope, as far as its fields tell (its top-level keys
    :data:`ENVELOPE_MARKERS`)."""
    from pyspark.sql import functions as F

    def has(key: str) -> Column:
        return doc.getField(key).isNotNull()

    return (
        F.when(doc.getField("schema").startswith("kafka-health/log/"), "kafka-health")
        .when(is_layout_record(doc), "log4j-json")
        .when(has("@metadata") | has("agent") | has("ecs") | has("beat"), "filebeat")
        .when(has("source_type"), "vector")
        .when(has("syslogtag") | has("syslog-tag") | has("programname"), "rsyslog")
        .when(has("log") & ~has("message"), "fluent-bit")
        .otherwise("json")
    )


ENVELOPE_MARKERS = (
    "schema", "@metadata", "agent", "ecs", "beat", "source_type", "syslogtag", "syslog-tag",
    "programname", "log", "message",
)  # fmt: skip
"""Top-level keys :func:`envelope_name` tells the shippers apart by."""
PRE_ECS_BEATS = {"file": "source", "host": "beat.hostname"}
"""Where Filebeat 5.x and 6.x keep the file and the host, read from a record with a top-level
``beat`` object (``{name, hostname, version}``) when no configured path gives them. Filebeat 7.0
moved them to ECS' ``log.file.path`` and ``host.name`` / ``agent.hostname`` (and ``offset`` to
``log.offset``); before it, ``source`` is the file and ``beat.hostname`` the host (Filebeat 6.x
"Changes to the output fields": "Filebeat uses the beat.hostname field", "The file field was
renamed to source"). 6.3+ also writes ``host: {name}``, which ``host.name`` reads; Logstash's
Beats input copies ``beat.hostname`` into a string ``host``, which ``host`` reads. A record
without ``beat`` never reads ``source`` (Fluentd's Docker driver writes ``"source": "stdout"``).
Samples in ``tests/fixtures/shipper_formats/`` (``filebeat-6.json``, ``filebeat-5.json``)."""
BAD_JSON = "__kafka_health_bad_json"
"""The parsed document's field that holds the record when it is not one JSON object."""


def doc_keys(fields: EnvelopeFieldsConfig) -> tuple[str, ...]:
    """The top-level keys the decode reads: each configured path's first key (and
    :data:`PRE_ECS_BEATS`'), the shippers' markers and a log4j JSON layout's keys."""
    paths = [*fields.message, *fields.broker_id, *fields.host, *fields.file, *fields.kind,
             *PRE_ECS_BEATS.values()]  # fmt: skip
    keys = [path.split(".")[0] for path in paths]
    return tuple(dict.fromkeys([*keys, *ENVELOPE_MARKERS, *LAYOUT_KEYS]))


def parse_doc(text: Column, fields: EnvelopeFieldsConfig) -> Column:
    """A JSON record's top-level keys that the decode reads (:func:`doc_keys`), as a struct of
    strings (a nested object or array as its JSON text), with :data:`BAD_JSON` set when the
    text is not one JSON object.

    A struct, not a ``map<string,string>``: Jackson puts each key it meets in its field by
    name, where every read of a map compares the wanted key with the map's keys one by one.
    The decode reads about 30 keys of each record; that search was the decode's largest cost
    (BENCHMARKS.md)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    names = [*doc_keys(fields), BAD_JSON]
    schema = StructType([StructField(name, StringType()) for name in names])
    return F.from_json(text, schema, {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": BAD_JSON})


def with_source_names(records: DataFrame) -> DataFrame:
    """Spark's Kafka source columns renamed ``source_*`` (:data:`SOURCE_COLUMNS`)."""
    df = records
    for old, new in SOURCE_COLUMNS.items():
        if old in df.columns:
            df = df.withColumnRenamed(old, new)
    return df


def kept_value(value: Column, size: Column, config: ParsingConfig) -> Column:
    """The raw value as far as it is carried past decoding. It serves only dead letters (cut
    to ``max_value_bytes``) and the job's own records (at most 64 KB): carried whole through
    every stage of the parse, a 10 MB record took 10 MB in each stage's row buffer and the
    heap ran out."""
    from pyspark.sql import functions as F

    kept = max(config.dead_letter.max_value_bytes, VALUE_KEPT_MIN_BYTES)
    return F.when(size > kept, F.substring(value, 1, kept)).otherwise(value)


def _record_key(df: DataFrame) -> Column:
    """The record's key as text (null where it has none, or ``df`` no key column)."""
    from pyspark.sql import functions as F

    if "source_key" in df.columns:
        return F.col("source_key").cast("string")
    return F.lit(None).cast("string")


def _with_sized_text(df: DataFrame, config: ParsingConfig) -> DataFrame:
    """``df`` with the value's size (``_size``, ``source_value_bytes``), its text where it is
    not over ``max_entry_bytes`` (``_text``), and ``source_value`` cut to what is carried
    (:func:`kept_value`), in a stage of their own."""
    from pyspark.sql import functions as F

    value = F.col("source_value")
    size = F.coalesce(F.octet_length(value), F.lit(0))
    text = F.when(size <= config.max_entry_bytes, value.cast("string"))
    df = df.withColumns({
        "_size": size, "_text": text, "source_value_bytes": size,
        "source_value": kept_value(value, size, config),
    })  # fmt: skip
    return end_stage(df)


def _with_doc(df: DataFrame, config: ParsingConfig) -> DataFrame:
    """``df`` with ``_pre_bad`` (why the value is no entry before any JSON is read),
    ``_is_json``, the parsed document (``_doc``, :func:`parse_doc`) and its message
    (``_json_message``), each step in a stage of its own."""
    from pyspark.sql import functions as F

    t = F.col("_text")
    pre_bad = (
        F.when(F.col("_size") == 0, "empty")
        .when(F.col("_size") > config.max_entry_bytes, "oversize")
        .when(~F.expr("is_valid_utf8(_text)"), "not_utf8")
        .when(t.rlike(BINARY), "binary")
    )
    is_json = F.ltrim(t).startswith("{")
    df = df.withColumns({"_pre_bad": pre_bad, "_is_json": is_json})
    df = end_stage(df)
    # from_json alone in its stage: it has no generated code, so its projection runs outside
    # whole-stage codegen, and every expression beside it with it.
    doc = F.when(
        F.col("_pre_bad").isNull() & F.col("_is_json"), parse_doc(F.col("_text"), config.fields)
    )
    df = end_stage(df.withColumn("_doc", doc))
    # Its own column: the message is read four times below, and each read parses JSON again.
    message = first_path(F.col("_doc"), config.fields.message, layouts=True)
    df = df.withColumn("_json_message", message)
    return end_stage(df)


def _json_ok() -> tuple[Column, Column]:
    """Whether ``_doc`` parsed as one JSON object, and whether the record is such a JSON
    record (not raw text)."""
    from pyspark.sql import functions as F

    d = F.col("_doc")
    parsed_ok = d.isNotNull() & d.getField(BAD_JSON).isNull()
    return parsed_ok, F.col("_is_json") & parsed_ok


def _message_and_bad() -> tuple[Column, Column]:
    """The entry's text (a JSON record's message, a log4j JSON layout's record whole, else
    the raw text) and the record's bad-input reason so far."""
    from pyspark.sql import functions as F

    t, d = F.col("_text"), F.col("_doc")
    parsed_ok, is_json_ok = _json_ok()
    json_message = F.col("_json_message")
    message = (
        F.when(F.col("_pre_bad").isNotNull(), F.lit(None).cast("string"))
        .when(is_json_ok & is_layout_record(d), t)  # the parser reads the layout's fields
        .when(F.col("_is_json"), json_message)
        .otherwise(t)
    )
    bad = F.coalesce(
        F.col("_pre_bad"),
        F.when(F.col("_is_json") & ~parsed_ok, "bad_json"),
        F.when(is_json_ok & json_message.isNull(), "no_message"),
    )
    return message, bad


def _key_broker_and_host(key: Column, record_key: str) -> tuple[Column, Column]:
    """What the record's key gives (``record_key``): a broker id, a host, or (``auto``) the
    one it looks like."""
    from pyspark.sql import functions as F

    key_is_id = key.rlike(r"^\s*\d+\s*$")
    if record_key == "broker_id":
        return key, F.lit(None).cast("string")
    if record_key == "host":
        return F.lit(None).cast("string"), key
    if record_key == "none":
        return F.lit(None).cast("string"), F.lit(None).cast("string")
    return F.when(key_is_id, F.trim(key)), F.when(~key_is_id, key)


def pre_ecs_beats(doc: Column, is_json_ok: Column, part: str) -> Column:
    """``part`` (file or host) where Filebeat 5.x and 6.x keep it (:data:`PRE_ECS_BEATS`), for a
    JSON record with a top-level ``beat``; null for any other record."""
    from pyspark.sql import functions as F

    beats = is_json_ok & doc.getField("beat").isNotNull()
    return F.when(beats, json_path(doc, PRE_ECS_BEATS[part]))


def _with_entry(df: DataFrame, config: ParsingConfig, key: Column) -> DataFrame:
    """``df`` with ``message``, ``bad_reason``, ``file``, ``broker_id`` (as given, trimmed)
    and ``host``: the envelope's paths, else what the key gives.

    Two stages for the message, bad reason and file, then the broker, host and kind (the
    next step): methods of 11 and 14 KB, which HotSpot compiles with the session's
    JIT_OPTIONS; five stages when it did not, each copying every row."""
    from pyspark.sql import functions as F

    fields = config.fields
    d = F.col("_doc")
    _parsed_ok, is_json_ok = _json_ok()
    message, bad = _message_and_bad()
    key_broker, key_host = _key_broker_and_host(key, config.record_key)
    df = df.withColumns({"message": message, "bad_reason": bad})
    file_parts = [
        F.when(is_json_ok, first_path(d, part)) for part in chunks(fields.file, PATHS_PER_STAGE)
    ] or [F.lit(None).cast("string")]
    # A pre-ECS Beats record's file after the configured paths, in their last stage.
    file_parts[-1] = F.coalesce(file_parts[-1], pre_ecs_beats(d, is_json_ok, "file"))
    df = coalesce_in_stages(df, "file", file_parts)
    broker_id = F.coalesce(F.when(is_json_ok, first_path(d, fields.broker_id)), key_broker)
    df = df.withColumn("broker_id", F.trim(broker_id))
    host = F.coalesce(
        F.when(is_json_ok, first_path(d, fields.host)),
        pre_ecs_beats(d, is_json_ok, "host"),
        key_host,
    )
    # The broker id's and kind's checks in a stage of their own: with the reads above, C1
    # gave up compiling the stage (test_parser_jit).
    return end_stage(df.withColumn("host", host))


def _with_checked_labels(df: DataFrame, fields: EnvelopeFieldsConfig) -> DataFrame:
    """``df`` with ``kind`` (one of :data:`LOG_KINDS`) and ``broker_id`` only where it is
    Kafka's (else ``bad_reason`` ``bad_broker_id``), in a stage of their own: they become
    labels and detector state (the module docstring)."""
    from pyspark.sql import functions as F

    _parsed_ok, is_json_ok = _json_ok()
    given_kind = F.lower(F.when(is_json_ok, first_path(F.col("_doc"), fields.kind)))
    kind = F.coalesce(
        F.when(given_kind.isin(*LOG_KINDS), given_kind),
        kind_from_file(F.col("file")),
        F.when(given_kind.isNotNull(), F.lit("other")),
    )
    named = F.col("broker_id")
    good_id = valid_broker_id(named)
    return end_stage(df.withColumns({
        "kind": kind,
        "broker_id": F.when(good_id, named),
        "bad_reason": F.coalesce(
            F.col("bad_reason"), F.when((named != "") & ~good_id, F.lit("bad_broker_id"))
        ),
    }))  # fmt: skip


def _with_envelope_and_lines(df: DataFrame) -> DataFrame:
    """``df`` with ``envelope`` (which shipper wrote a JSON record, ``raw`` for a raw one)
    and ``n_lines`` (the entry's lines)."""
    from pyspark.sql import functions as F

    _parsed_ok, is_json_ok = _json_ok()
    df = df.withColumns({
        "envelope": F.when(is_json_ok, envelope_name(F.col("_doc"))).when(
            F.col("_pre_bad").isNull() & ~F.col("_is_json"), "raw"
        ),
    })  # fmt: skip
    msg = F.coalesce(F.col("message"), F.lit(""))
    # split only an entry that has more than one line (a plain scan finds out).
    n_lines = F.when(msg.contains("\n"), F.greatest(F.lit(1), F.size(F.split(msg, "\n"))))
    n_lines = n_lines.otherwise(1)
    return df.withColumn("n_lines", n_lines)


def decode_records(records: DataFrame, config: ParsingConfig | None = None) -> DataFrame:
    """Kafka source rows (key, value, topic, partition, offset, timestamp) -> entries.

    Output: ``message``, ``broker_id``, ``host``, ``file``, ``kind``, ``envelope``,
    ``bad_reason``, ``n_lines`` and the source columns renamed ``source_*``; ``source_value``
    cut to what dead letters and own records use, ``source_value_bytes`` its full size.
    """
    config = config or ParsingConfig()
    df = with_source_names(records)
    key = _record_key(df)
    df = _with_doc(_with_sized_text(df, config), config)
    df = _with_checked_labels(_with_entry(df, config, key), config.fields)
    df = _with_envelope_and_lines(df)
    return df.drop("_size", "_text", "_pre_bad", "_is_json", "_doc", "_json_message")
