"""The parse: one Java UDF call per Kafka record or per entry a file's lines make
(``kafka-health parse``, ``replay``, the job's dead letters), the job's only parser (the job's
batch tally, ``kafkahealth.parse.BatchTally``, calls the same Java per record:
:func:`~kafka_health.job.batch.driver_rows`).

The UDFs (``kafkahealth.parse.ParseUdf`` and ``EntryUdf``, built from this package's Java
sources: :mod:`kafka_health.spark.parser_jar`) hold no table of their own: each is registered
with the checkout's table as JSON (:func:`~kafka_health.parsing.udf_spec.parser_spec`), which
the UDF object carries to the executors, where it is compiled once per JVM. The jar checks the
table at registration (``Spec.check``). Same regexes, same engine as Spark's built-in functions
(java.util.regex), on the same bounded texts; the Python reference
(:mod:`~kafka_health.parsing.reference`) is the tests' oracle.

:func:`parse_records` gives, from the Kafka source's rows, the records' columns (renamed
``source_*``), ``source_value_bytes``, the decode's columns (``message``, ``bad_reason``,
``file``, ``broker_id``, ``host``, ``kind``, ``envelope``, ``n_lines``), ``outcome``,
``reason``, ``type``, the event fields (:data:`~kafka_health.parsing.events.EVENT_FIELDS`) and
``event_ms``. :func:`parse_entries` adds ``outcome`` to ``event_ms`` to entries (see
:mod:`~kafka_health.parsing.events` for what each means).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_health.parsing import patterns as P
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.events import Kind
from kafka_health.parsing.udf_spec import (
    SPEC_VERSION,
    ParserSpecError,
    entry_result_type,
    parser_spec,
    record_result_type,
)
from kafka_health.spark.config import SparkConfig
from kafka_health.spark.parser_jar import ensure_parser_jar

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

PACKAGE = "kafkahealth.parse"


def _jar_loaded(spark: SparkSession) -> bool:
    from py4j.java_gateway import JavaClass

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    return isinstance(jvm.kafkahealth.parse.ParseUdf, JavaClass)


def load_jar(spark: SparkSession) -> None:
    """Put the parser's jar on the session's classpath (``ADD JAR``, from the default cache)
    unless its classes are there already (``spark.jars`` or ``--jars`` named it: the session
    factory and ``kafka-health connector-jars`` do)."""
    if _jar_loaded(spark):
        return
    jar = ensure_parser_jar(Path(SparkConfig().cache_dir))
    spark.sql(f"ADD JAR '{jar}'")
    if not _jar_loaded(spark):
        raise ParserSpecError(f"{PACKAGE}.ParseUdf is not on the classpath after ADD JAR {jar}")


_REGISTERED: dict[tuple[str, str, str], str] = {}
_CHECKED: set[tuple[str, str]] = set()


def _application(spark: SparkSession) -> str:
    """The Spark application ``spark`` belongs to: one driver JVM, whose classpath and checks
    all its sessions share. Not the session object's id: ``foreachBatch`` hands every batch a
    new Python session object (the spec was built and checked again every batch, and the
    caches below grew by one 54 KB text a batch)."""
    return str(spark.sparkContext.applicationId)


def checked_spec(spark: SparkSession, spec: dict[str, Any]) -> str:
    """``spec`` as the JSON text the jar's classes take, the jar loaded and the text checked
    by it (once per application and text)."""
    text = json.dumps(spec, sort_keys=True)
    if (_application(spark), text) in _CHECKED:
        return text
    load_jar(spark)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    parse = jvm.kafkahealth.parse
    jar_version = int(parse.ParseUdf.specVersion())
    if jar_version != SPEC_VERSION:
        raise ParserSpecError(f"the jar reads table version {jar_version}, this is {SPEC_VERSION}")
    problems = str(parse.Spec.check(text))
    if problems:
        raise ParserSpecError(f"the jar refuses the checkout's table:\n{problems}")
    _CHECKED.add((_application(spark), text))
    return text


def register(spark: SparkSession, spec: dict[str, Any], udf_class: str = "ParseUdf") -> str:
    """Register ``udf_class`` (``ParseUdf``: a record; ``EntryUdf``: an entry) for ``spec``,
    checked by the jar first; returns its SQL name."""
    from pyspark.sql.types import _parse_datatype_string

    text = checked_spec(spark, spec)
    name = _REGISTERED.setdefault((_application(spark), udf_class, text),
                                  f"kh_parse_{len(_REGISTERED)}")  # fmt: skip
    if spark.catalog.functionExists(name):  # registered in this session (each has its own)
        return name
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    parse = jvm.kafkahealth.parse
    ddl = record_result_type(spec) if udf_class == "ParseUdf" else entry_result_type(spec)
    jtype = spark._jsparkSession.parseDataType(_parse_datatype_string(ddl).json())
    spark._jsparkSession.udf().register(name, getattr(parse, udf_class)(text), jtype)
    return name


def _spec(
    spark: SparkSession,
    config: ParsingConfig,
    patterns: tuple[P.EventPattern, ...],
    kind: Kind,
    keep_message: bool,
    letters_only: bool,
) -> dict[str, Any]:
    zone = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    return parser_spec(config, patterns, kind, keep_message, letters_only, zone)


def record_spec_text(
    spark: SparkSession, config: ParsingConfig, keep_message: bool, letters_only: bool
) -> str:
    """The checked table of a record's whole parse with every pattern (``ParseUdf``'s, and
    the job's batch tally's: ``kafkahealth.parse.BatchTally``), built once per application and
    settings (building it takes some 40 ms, and the jar's check of it more: the job asks for
    it every batch)."""
    zone = spark.conf.get("spark.sql.session.timeZone") or "UTC"
    key = (_application(spark), repr(config), keep_message, letters_only, zone)
    if key not in _RECORD_SPECS:
        spec = parser_spec(config, P.ALL_PATTERNS, "auto", keep_message, letters_only, zone)
        _RECORD_SPECS[key] = checked_spec(spark, spec)
    return _RECORD_SPECS[key]


_RECORD_SPECS: dict[tuple[str, str, bool, bool, str], str] = {}


def parse_records(
    records: DataFrame,
    config: ParsingConfig | None = None,
    kind: Kind = "auto",
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
    keep_message: bool = True,
    values_for_dead_letters_only: bool = False,
) -> DataFrame:
    """Kafka records of a broker-log topic (Spark's Kafka source columns) -> their entries
    parsed, one UDF call per record (see the module docstring). ``keep_message=False`` leaves
    the entry's text out (the job); ``values_for_dead_letters_only`` keeps the raw
    ``source_value`` and the file only on rows that may become dead letters (the job)."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.envelope import kept_value, with_source_names
    from kafka_health.parsing.events import source_time_ms

    config = config or ParsingConfig()
    spark = records.sparkSession
    spec = _spec(spark, config, patterns, kind, keep_message, values_for_dead_letters_only)
    name = register(spark, spec)
    df = with_source_names(records)
    given = list(df.columns)
    key = F.col("source_key") if "source_key" in given else F.lit(None).cast("binary")
    df = df.withColumn("_u", F.call_udf(name, key, F.col("source_value"), source_time_ms(df)))
    u = F.col("_u")
    size = F.coalesce(F.octet_length("source_value"), F.lit(0))
    kept = kept_value(F.col("source_value"), size, config)
    if values_for_dead_letters_only:
        kept = F.when(u["keep_letter"], kept)
    host = F.coalesce(u["host"], F.when(u["host_is_key"], key.cast("string")))
    columns = [kept.alias(c) if c == "source_value" else F.col(c) for c in given]
    columns.append(size.alias("source_value_bytes"))
    if keep_message:
        columns.append(u["message"].alias("message"))
    columns += [u[c].alias(c) for c in ("bad_reason", "file", "broker_id")]
    columns += [host.alias("host"), *[u[c].alias(c) for c in ("kind", "envelope", "n_lines")]]
    columns += [u[c].alias(c) for c in _parsed_columns(spec) if c != "broker_id"]
    return df.select(*columns)


def _parsed_columns(spec: dict[str, Any]) -> list[str]:
    return ["outcome", "reason", "type", *[f[0] for f in spec["event_fields"]], "event_ms"]


def parse_entries(
    entries: DataFrame,
    config: ParsingConfig | None = None,
    kind: Kind = "auto",
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
) -> DataFrame:
    """Entries (a ``message`` column: one whole entry, continuation lines joined with "\\n";
    optionally ``kind``, ``broker_id``, ``bad_reason``, ``continued`` and
    ``source_timestamp``: :func:`~kafka_health.parsing.offline.read_entries`) with
    ``outcome``, ``reason``, ``type``, the event fields and ``event_ms`` (an input column of
    the same name is replaced), by the same Java parse as :func:`parse_records`."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.events import source_time_ms

    config = config or ParsingConfig()
    spark = entries.sparkSession
    spec = _spec(spark, config, patterns, kind, True, False)
    name = register(spark, spec, "EntryUdf")
    given = set(entries.columns)

    def column(name: str, dtype: str = "string") -> Any:
        return F.col(name).cast(dtype) if name in given else F.lit(None).cast(dtype)

    call = F.call_udf(
        name, column("message"), column("bad_reason"), column("kind"), column("broker_id"),
        column("continued", "boolean"), source_time_ms(entries),
    )  # fmt: skip
    parsed = _parsed_columns(spec)
    kept = [F.col(c) for c in entries.columns if c not in parsed]
    return entries.withColumn("_u", call).select(*kept, *[F.col("_u")[c].alias(c) for c in parsed])
