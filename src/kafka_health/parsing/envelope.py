"""Kafka records of a broker-log topic -> log entries: what the decode reads and checks. The
decode itself is the parser's (``RecordDecoder`` and ``Envelope`` of the Java UDF,
:mod:`kafka_health.parsing.udf`); its constants and paths come from here
(:mod:`~kafka_health.parsing.udf_spec`).

A record's value is either the raw log entry (the key then holds a broker id or a host name) or
a JSON envelope: the project's shipper (``kafka-health/log/v1``), Filebeat, Fluent Bit, Vector
or an rsyslog ``omkafka`` JSON template. Which JSON paths hold the message, broker id, host,
file and kind is configured (:class:`~kafka_health.config.EnvelopeFieldsConfig`); a Beats
record from before ECS (Filebeat 5.x and 6.x, :data:`PRE_ECS_BEATS`) gives its file and host
where no configured path does. A record that is itself a log4j JSON layout's event
(``log4j-json``) is kept whole: the parser reads its time, level and logger
(:mod:`~kafka_health.parsing.jsonlayout`).

Bad records are never dropped silently: each gets a ``bad_reason`` (``empty``, ``oversize``,
``not_utf8``, ``binary``, ``bad_json``, ``no_message``, ``bad_broker_id``) and keeps its source
offset.

The broker id and the log kind become labels and detector state (a log stream per broker and
kind), so they are checked in the decode, before the job's aggregation groups by them: a
broker id is Kafka's node id, an int32 of at least 0 written as Kafka writes it (``0`` to
``2147483647``, no sign, no leading zero; surrounding blanks are trimmed, a blank one is none);
a record naming any other is rejected (``bad_broker_id``), so a flood of random ids makes no
group, stream or series. A kind is one of :data:`LOG_KINDS` (the shipper's); a record whose
envelope gives another kind keeps the one its file name gives, else ``other``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.parsing.config import EnvelopeFieldsConfig, ParsingConfig
from kafka_health.parsing.jsonlayout import LAYOUT_KEYS

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


VALUE_KEPT_MIN_BYTES = 65_536
"""The raw value is kept to at least this (the job's own records' limit) past decoding."""


def kind_from_file(file: Column) -> Column:
    """server / controller / state-change / gc from a log file name; null when unknown."""
    from pyspark.sql import functions as F

    named = F.regexp_extract(file, KIND_FROM_FILE, 1)
    gc = F.regexp_extract(file, KIND_FROM_FILE, 2)
    return F.when(named != "", named).when(gc != "", "gc")


ENVELOPE_MARKERS = (
    "schema", "@metadata", "agent", "ecs", "beat", "source_type", "syslogtag", "syslog-tag",
    "programname", "log", "message",
)  # fmt: skip
"""Top-level keys the shippers are told apart by (the parser's ``Envelope.shipper``)."""
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


def doc_keys(fields: EnvelopeFieldsConfig) -> tuple[str, ...]:
    """The top-level keys the decode reads: each configured path's first key (and
    :data:`PRE_ECS_BEATS`'), the shippers' markers and a log4j JSON layout's keys."""
    paths = [*fields.message, *fields.broker_id, *fields.host, *fields.file, *fields.kind,
             *PRE_ECS_BEATS.values()]  # fmt: skip
    keys = [path.split(".")[0] for path in paths]
    return tuple(dict.fromkeys([*keys, *ENVELOPE_MARKERS, *LAYOUT_KEYS]))


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
