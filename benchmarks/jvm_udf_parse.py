"""Issue 59's way (a): the whole parse (``decode_records`` then ``parse_entries``) as one JVM
function, a Spark Java UDF built from source by Maven (``benchmarks/jvm_udf``,
``jvmparser.parse.ParseUdf``).

The UDF holds no table of its own: :func:`parser_spec` writes the checkout's pattern table
(each pattern's Java regex, trigger, family, scope, its trigger literals' prefilter texts, its
named groups and their numbers), the prefilter's texts, the line shapes, the envelope's paths
and the configuration as JSON, and :func:`register` hands that text to the UDF's constructor;
the UDF object carries it to the executors, which compile it once per JVM. So the two cannot
drift. At registration the jar checks the table (``Spec.check``: every regex compiled by
java.util.regex with as many groups as Python's ``re`` counts, every event field one it
makes), and this module checks that every event field and every named group of the checkout
is one the jar makes or reads (:data:`SIMPLE_FIELDS`, :data:`COMPOSED_FIELDS`).

:func:`parse_records` gives, from the Kafka source's rows, the rows and schema of
``parse_entries(decode_records(records, config), config, kind, keep_message=...,
values_for_dead_letters_only=...)``; the job's composition drops ``host`` and ``envelope``
after it (``job.batch.parsed_logs``).

    .venv/bin/python benchmarks/jvm_udf_parse.py FILE...   # parse log files, print the events

The jar is built on first use (``mvn -q -B package`` in ``benchmarks/jvm_udf``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

MAIN = Path(__file__).resolve().parents[1]
if str(MAIN / "src") not in sys.path:
    sys.path[:0] = [str(MAIN), str(MAIN / "src")]

from kafka_health.parsing import patterns as P  # noqa: E402
from kafka_health.parsing.config import ParsingConfig  # noqa: E402

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

PROJECT = MAIN / "benchmarks" / "jvm_udf"
JAR = PROJECT / "target" / "jvmparser-0.1.jar"
UDF_CLASS = "jvmparser.parse.ParseUdf"
SPEC_VERSION = 1
"""The table format written here; the jar reads the one of ``Spec.VERSION``."""

SIMPLE_FIELDS: dict[str, tuple[str, str]] = {
    "isr_before": ("isr_before", "isr_list"),
    "isr_after": ("isr_after", "isr_list"),
    "leader_epoch": ("leader_epoch", "int"),
    "min_isr": ("min_isr", "int"),
    "session_id": ("session_id", "text"),
    "subject_broker_id": ("subject", "int"),
    "heap_before_mb": ("heap_before", "heap_mb"),
    "heap_after_mb": ("heap_after", "heap_mb"),
    "heap_total_mb": ("heap_total", "heap_mb"),
    "cause": ("cause", "text"),
    "session_timeout_ms": ("session_timeout", "int"),
    "log_dir": ("log_dir", "text"),
    "group": ("group", "text"),
    "generation": ("generation", "int"),
    "members": ("members", "int"),
}
"""Event fields that are one named group's text converted (``parsing.fields.event_fields``):
field -> (group, conversion: ``text``, ``int`` (to_int), ``isr_list``, ``heap_mb``)."""
COMPOSED_FIELDS: dict[str, str] = {
    "ts": "string", "broker_id": "string", "level": "string", "topic": "string",
    "partition": "int", "leader": "int", "isr_size": "int", "pause_s": "double",
    "collector": "string", "uptime_s": "double",
}  # fmt: skip
"""Event fields the jar composes (``EventFields.COMPOSED``), with their Spark types."""
COMPOSED_GROUPS = frozenset(
    {"tp", "topic", "partition", "leader", "isr_size", "isr_set", "pause", "pause_unit",
     "young_gen", "cause"}
)  # fmt: skip
"""Named groups the composed fields read."""
UNREAD_GROUPS = frozenset({"real"})
"""Named groups no field reads (``parsing.fields`` reads none of them either)."""
CONVERSION_TYPES = {"text": "string", "int": "int", "isr_list": "array<int>", "heap_mb": "double"}
DECODED = ("message", "bad_reason", "file", "broker_id", "host", "kind", "envelope", "n_lines")
"""decode_records' columns, in its order (``broker_id`` is then the event's)."""


class JvmParserError(Exception):
    """The jar is missing, stale or does not make what the checkout's parser makes."""


def event_field_specs() -> list[tuple[str, str, str | None, str | None]]:
    """Each of the checkout's event fields (``events.EVENT_FIELDS``): (name, ``simple`` or
    ``composed``, group, conversion); raises when the jar makes no such field or some named
    group of the table is read by none."""
    from kafka_health.parsing.events import EVENT_FIELDS

    out: list[tuple[str, str, str | None, str | None]] = []
    unknown = [f for f in EVENT_FIELDS if f not in SIMPLE_FIELDS and f not in COMPOSED_FIELDS]
    if unknown:
        raise JvmParserError(f"the JVM parser makes no event field {unknown}: add it here")
    read = {g for g, _conversion in SIMPLE_FIELDS.values()} | COMPOSED_GROUPS | UNREAD_GROUPS
    unread = sorted(P.GROUPS - read)
    if unread:
        raise JvmParserError(f"the JVM parser reads no group {unread}: add it here")
    for name in EVENT_FIELDS:
        if name in SIMPLE_FIELDS:
            group, conversion = SIMPLE_FIELDS[name]
            out.append((name, "simple", group, conversion))
        else:
            out.append((name, "composed", None, None))
    return out


def _pattern_entry(p: P.EventPattern) -> dict[str, Any]:
    from kafka_health.parsing.prefilter import anchor

    literals = P.trigger_literals(p.trigger)
    return {
        "name": p.name,
        "event": p.event,
        "family": p.family,
        "scope": p.scope,
        "regex": p.java_regex(),
        "trigger": p.trigger,
        "anchors": [anchor(lit) for lit in dict.fromkeys(literals)] if literals else [],
        "groups": p.group_index(),
        "group_count": re.compile(p.regex).groups,
        "collector": p.collector,
    }


def parser_spec(
    config: ParsingConfig,
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
    kind: str = "auto",
    keep_message: bool = True,
    letters_only: bool = False,
    session_tz: str = "UTC",
) -> dict[str, Any]:
    """The parse's table and settings as the jar reads them (``jvmparser.parse.Spec``)."""
    from kafka_health.parsing import envelope as E
    from kafka_health.parsing import jsonlayout as J
    from kafka_health.parsing.events import KAFKA_KINDS
    from kafka_health.parsing.fields import LEADER_IS_SELF
    from kafka_health.parsing.prefilter import prefilter_gates

    gates = prefilter_gates(patterns)
    triggers = dict.fromkeys(p.trigger for p in patterns)
    return {
        "version": SPEC_VERSION,
        "options": {"keep_message": keep_message, "letters_only": letters_only, "kind": kind,
                    "session_tz": session_tz},
        "config": {"record_key": config.record_key, "max_entry_bytes": config.max_entry_bytes,
                   "scan_chars": config.scan_chars, "log_timezone": config.log_timezone},
        "fields_paths": dataclasses.asdict(config.fields),
        "doc_keys": list(E.doc_keys(config.fields)),
        "pre_ecs_beats": dict(E.PRE_ECS_BEATS),
        "log_kinds": list(E.LOG_KINDS),
        "kafka_kinds": list(KAFKA_KINDS),
        "broker_id_max": E.BROKER_ID_MAX,
        # jsonlayout.with_layout_text's paths, by its names.
        "layout": {"message": J.MESSAGE, "stamp": J.TIME_TEXT, "ms": J.EPOCH_MS,
                   "sec": (J.EPOCH_SECOND,), "nanos": (J.NANO_OF_SECOND,), "level": J.LEVEL,
                   "logger": J.LOGGER, "thrown": J.THROWN_NAME, "thrown_msg": J.THROWN_MESSAGE},
        "shapes": {**P.SHAPES, "DEFAULT_LAYOUT_STAMP": P.DEFAULT_LAYOUT_STAMP,
                   "BINARY": E.BINARY, "KIND_FROM_FILE": E.KIND_FROM_FILE,
                   "EPOCH_DIGITS": J.EPOCH_DIGITS},
        "gc_line_texts": list(P.GC_LINE_TEXTS),
        "default_layout_levels": list(P.DEFAULT_LAYOUT_LEVELS),
        "default_layout_level_at": P.DEFAULT_LAYOUT_LEVEL_AT,
        "young_gen_collector": P.YOUNG_GEN_COLLECTOR,
        "leader_is_self": list(LEADER_IS_SELF),
        "patterns": [_pattern_entry(p) for p in patterns],
        "gates": None if gates is None else {
            family: {"searched": list(g.searched), "words": list(g.words),
                     "gated": list(g.gated)}
            for family, g in gates.items()
        },
        "any_trigger": "|".join(f"(?:{t})" for t in triggers),
        "event_fields": [list(f) for f in event_field_specs()],
    }  # fmt: skip


def ensure_jar() -> Path:
    """The jar, built by Maven when missing or older than a Java source or the pom."""
    sources = [PROJECT / "pom.xml", *PROJECT.rglob("*.java")]
    if not JAR.exists() or JAR.stat().st_mtime < max(s.stat().st_mtime for s in sources):
        done = subprocess.run(
            ["mvn", "-q", "-B", "package"], cwd=PROJECT, capture_output=True, text=True,
            check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise JvmParserError(f"mvn package failed:\n{(done.stdout + done.stderr)[-3000:]}")
    return JAR


def _jar_loaded(spark: SparkSession) -> bool:
    from py4j.java_gateway import JavaClass

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    return isinstance(jvm.jvmparser.parse.ParseUdf, JavaClass)


def load_jar(spark: SparkSession) -> None:
    """Put the jar on the session's classpath (``ADD JAR``) unless its classes are there
    already (``spark.jars`` named it)."""
    if not _jar_loaded(spark):
        spark.sql(f"ADD JAR '{ensure_jar()}'")
    if not _jar_loaded(spark):
        raise JvmParserError(f"{UDF_CLASS} is not on the classpath after ADD JAR {JAR}")


def result_type(spec: dict[str, Any]) -> str:
    """The UDF's struct (``ParseUdf``'s order) as DDL."""
    fields = []
    if spec["options"]["keep_message"]:
        fields.append("message string")
    fields += ["host string", "host_is_key boolean", "file string", "kind string",
               "envelope string", "bad_reason string", "n_lines int", "outcome string",
               "reason string", "type string"]  # fmt: skip
    for name, how, _group, conversion in spec["event_fields"]:
        kind = COMPOSED_FIELDS[name] if how == "composed" else CONVERSION_TYPES[conversion]
        fields.append(f"`{name}` {kind}")
    fields += ["event_ms bigint", "keep_letter boolean"]
    return ", ".join(fields)


_REGISTERED: dict[tuple[int, str], str] = {}


def register(spark: SparkSession, spec: dict[str, Any]) -> str:
    """Register the UDF for ``spec`` (checked by the jar first); returns its SQL name."""
    from pyspark.sql.types import _parse_datatype_string

    text = json.dumps(spec, sort_keys=True)
    key = (id(spark), text)
    if key in _REGISTERED:
        return _REGISTERED[key]
    load_jar(spark)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    jar_version = int(jvm.jvmparser.parse.ParseUdf.specVersion())
    if jar_version != SPEC_VERSION:
        raise JvmParserError(f"the jar reads table version {jar_version}, this is {SPEC_VERSION}")
    problems = str(jvm.jvmparser.parse.Spec.check(text))
    if problems:
        raise JvmParserError(f"the jar refuses the checkout's table:\n{problems}")
    name = f"kh_jvm_parse_{len(_REGISTERED)}"
    datatype = _parse_datatype_string(result_type(spec))
    jtype = spark._jsparkSession.parseDataType(datatype.json())
    udf = jvm.jvmparser.parse.ParseUdf(text)
    spark._jsparkSession.udf().register(name, udf, jtype)
    _REGISTERED[key] = name
    return name


def parse_records(
    records: DataFrame,
    config: ParsingConfig | None = None,
    kind: str = "auto",
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
    keep_message: bool = True,
    values_for_dead_letters_only: bool = False,
) -> DataFrame:
    """``parse_entries(decode_records(records, config), config, kind, patterns,
    keep_message, values_for_dead_letters_only)``, its rows and schema, by one UDF call per
    record."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.envelope import kept_value, with_source_names

    config = config or ParsingConfig()
    spark = records.sparkSession
    zone = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    spec = parser_spec(config, patterns, kind, keep_message, values_for_dead_letters_only, zone)
    name = register(spark, spec)
    df = with_source_names(records)
    given = list(df.columns)
    key = F.col("source_key") if "source_key" in given else F.lit(None).cast("binary")
    shipped = (
        F.unix_millis(F.col("source_timestamp"))
        if "source_timestamp" in given
        else F.lit(None).cast("long")
    )
    df = df.withColumn("_u", F.call_udf(name, key, F.col("source_value"), shipped))
    u = F.col("_u")
    size = F.coalesce(F.octet_length("source_value"), F.lit(0))
    kept = kept_value(F.col("source_value"), size, config)
    if values_for_dead_letters_only:
        kept = F.when(u["keep_letter"], kept)
    host = F.coalesce(u["host"], F.when(u["host_is_key"], key.cast("string")))
    decoded = {
        "message": u["message"] if keep_message else None,
        "bad_reason": u["bad_reason"], "file": u["file"], "broker_id": u["broker_id"],
        "host": host, "kind": u["kind"], "envelope": u["envelope"], "n_lines": u["n_lines"],
    }  # fmt: skip
    columns = [kept.alias(c) if c == "source_value" else F.col(c) for c in given] + [
        size.alias("source_value_bytes")
    ]
    columns += [col.alias(n) for n, col in decoded.items() if col is not None]
    columns += [u[c].alias(c) for c in ("outcome", "reason", "type")]
    columns += [u[n].alias(n) for n, *_ in spec["event_fields"] if n != "broker_id"]
    columns.append(u["event_ms"].alias("event_ms"))
    return df.select(*columns)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="log files: each line a record")
    args = parser.parse_args()
    from datetime import datetime

    from kafka_health.config import MonitorConfig
    from kafka_health.spark import build_spark_session

    spark = build_spark_session(MonitorConfig().spark)
    rows = []
    for path in args.paths:
        for i, line in enumerate(Path(path).read_bytes().split(b"\n")):
            rows.append((None, line, path, 0, i, datetime.now()))
    schema = (
        "key binary, value binary, topic string, partition int, offset long, timestamp timestamp"
    )
    parsed = parse_records(spark.createDataFrame(rows, schema))
    hidden = ("source_key", "source_value", "source_timestamp")
    for row in parsed.where("outcome = 'event'").toLocalIterator():
        print(json.dumps({k: v for k, v in row.asDict().items() if k not in hidden}))
    spark.stop()


if __name__ == "__main__":
    main()
