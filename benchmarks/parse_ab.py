"""Issue 59, point 2: the whole parse three ways in one Spark session, row-checked, then timed
interleaved on the same cached corpora.

- (a) a JVM UDF built from ``benchmarks/jvm_udf`` (``benchmarks/jvm_udf_parse.py``);
- (b) ``mapInArrow`` with pyarrow (``kafka_health.parsing.arrow``);
- (c) today's built-in plan (``decode_records`` then ``parse_entries``, as
  ``job.batch.parsed_logs`` composes them).

Each way runs with the job's options (``keep_message=False``,
``values_for_dead_letters_only=True``, the decode's ``host`` and ``envelope`` dropped).

    .venv/bin/python benchmarks/parse_ab.py [--seconds 10] [--runs 7] [--warmup 1]
        [--fixtures] [--logs-only] [--no-check] [--explain] [--json OUT.json]
    .venv/bin/python benchmarks/parse_ab.py --check-full

The corpora: ``bench throughput``'s backlog for ``--seconds`` in the steady mix and in the
election storm's (``batch_static.backlog_rows``), as the job's parse meets them (the records of
the job's own topics with their values null, as ``job.batch.parsed_stream`` passes them;
``--logs-only``: the broker-log records alone), and with ``--fixtures`` the two equivalence
tests' corpora (CI size) as one more. Each is a cached DataFrame of Kafka source rows.

First the check: (a) and (b) against (c), every row and column of every corpus; any difference
prints the first differing rows and exits 1. Then the plans: (a)'s UDF appears once in its plan
(one call a row) and (b)'s ``MapInArrow`` is there (not pruned). Then the timing: "read" is
``operation_costs.py``'s "read and count" (``groupBy(topic).count()`` over the cached rows);
each way is its parse followed by one small aggregate over every output column
(``groupBy(xxhash64(every column) % 7).count()``, so nothing is pruned). Round after round,
each corpus, each way in an order rotated every round; ``--warmup`` rounds first, not counted.
Reported per corpus and way: the min and median seconds, records/s and core µs a record (two
cores, as ``core_costs.cost_line``), and µs a record past the read (the way's less the read's,
from the mins and from the medians).

``--check-full`` checks (a) and (b) against (c) on the equivalence tests' corpora at full size
(``KAFKA_HEALTH_HOSTILE_LINES`` hostile lines, 20,000 by default; every fixture line in every
envelope), with the job's options and ``kafka-health parse``'s, and does no timing.

The jar is built with Maven when missing or stale (into ``benchmarks/jvm_udf/target``); nothing
else is written but ``--json``'s file.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

MAIN = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(MAIN), str(MAIN / "src")]

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from kafka_health.parsing.config import ParsingConfig

READ = "read"
WAYS = ("a: JVM UDF", "b: mapInArrow", "c: built-in")
KEYS = ["source_topic", "source_partition", "source_offset"]
"""A parsed row's identity: its record's place in the corpus."""


def build_session() -> SparkSession:
    """The job's Spark session (``MonitorConfig().spark``, ``local[2]``) with the JVM parser's
    jar on ``spark.jars`` beside the Kafka connector's, adaptive execution off as in the
    streaming query (``batch_static.py``)."""
    import pyspark

    from benchmarks.jvm_udf_parse import ensure_jar
    from kafka_health.config import MonitorConfig
    from kafka_health.spark import build_spark_session
    from kafka_health.spark.connector import ensure_kafka_connector_jars

    cfg = MonitorConfig().spark
    connector = cfg.jars or [
        str(j) for j in ensure_kafka_connector_jars(Path(cfg.cache_dir), pyspark.__version__)
    ]
    spark = build_spark_session(dataclasses.replace(cfg, jars=[*connector, str(ensure_jar())]))
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    return spark


def versions(spark: SparkSession) -> dict[str, str]:
    """What the figures depend on: the versions and the Arrow batch size."""
    import platform

    import pyarrow
    import pyspark

    jvm: Any = spark.sparkContext._jvm
    prop = jvm.java.lang.System.getProperty
    return {
        "python": platform.python_version(),
        "pyarrow": pyarrow.__version__,
        "pyspark": pyspark.__version__,
        "spark": spark.version,
        "java": f"{prop('java.version')} ({prop('java.vm.name')})",
        "spark.sql.execution.arrow.maxRecordsPerBatch": str(
            spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
        ),
        "spark.master": str(spark.conf.get("spark.master")),
    }


# --- the corpora -------------------------------------------------------------------------


def backlog_frame(spark: SparkSession, seconds: int, storm: bool, logs_only: bool) -> DataFrame:
    """``bench throughput``'s backlog (``batch_static.backlog_rows``) as cached Kafka source
    rows: the other topics' records with their values null, as the job's parse meets them
    (``job.batch.parsed_stream``), or left out (``logs_only``)."""
    from benchmarks.batch_static import KAFKA_COLUMNS, backlog_rows
    from kafka_health.config import MonitorConfig

    logs = MonitorConfig().topics.broker_logs
    rows = [
        r if r[2] == logs else (r[0], None, *r[2:])
        for r in backlog_rows(seconds, storm)
        if r[2] == logs or not logs_only
    ]
    return spark.createDataFrame(rows, KAFKA_COLUMNS).repartition(2).cache()


def test_corpora(full: bool) -> dict[str, list[tuple[bytes | None, bytes | None]]]:
    """The records of the two equivalence tests' corpora
    (``tests/spark/test_parse_{arrow,jvm}_equivalence.py``), by name: at their CI size, or
    ``full``."""
    from tests.spark import test_parse_jvm_equivalence as jvm_test
    from tests.support import parse_corpora as pc

    named = {f"arrow test: {name}": records for name, records in pc.corpora(full).items()}
    named["jvm test: all records"] = jvm_test.all_records(pc.hostile_count(full))
    return named


def fixtures_frame(spark: SparkSession, full: bool) -> DataFrame:
    """:func:`test_corpora` as one cached DataFrame of Kafka source rows in the broker-log
    topic; each corpus its own partition number (which a difference's report names)."""
    from benchmarks.batch_static import KAFKA_COLUMNS
    from kafka_health.config import MonitorConfig

    topic = MonitorConfig().topics.broker_logs
    at = datetime(2026, 11, 22, 10, 0, 0)
    rows: list[tuple[Any, ...]] = []
    for partition, (name, records) in enumerate(test_corpora(full).items()):
        print(f"  partition {partition}: {name}, {len(records)} records")
        rows += [(k, v, topic, partition, len(rows) + i, at, 0) for i, (k, v) in enumerate(records)]
    return spark.createDataFrame(rows, KAFKA_COLUMNS).repartition(2).cache()


# --- the three ways ----------------------------------------------------------------------


def parsed(way: str, records: DataFrame, config: ParsingConfig, job: bool = True) -> DataFrame:
    """``records`` parsed by ``way`` (one of :data:`WAYS`), with the job's options (``job``)
    or ``kafka-health parse``'s."""
    from benchmarks import jvm_udf_parse
    from kafka_health.parsing import arrow
    from kafka_health.parsing.envelope import decode_records
    from kafka_health.parsing.events import parse_entries

    keep, letters = not job, job
    if way.startswith("a"):
        df = jvm_udf_parse.parse_records(
            records, config, keep_message=keep, values_for_dead_letters_only=letters
        )
        return df.drop("host", "envelope") if job else df
    if way.startswith("b"):
        return arrow.parse_records(
            records, config, keep_message=keep, values_for_dead_letters_only=letters,
            drop_host_and_envelope=job,
        )  # fmt: skip
    entries = decode_records(records, config)
    if job:
        entries = entries.drop("host", "envelope")
    return parse_entries(entries, config, keep_message=keep, values_for_dead_letters_only=letters)


def touched(df: DataFrame) -> DataFrame:
    """``df`` reduced to a few rows by a hash of every column: each column computed, none
    pruned, the aggregation itself next to nothing."""
    from pyspark.sql import functions as F

    digest = F.xxhash64(*[F.col(c) for c in df.columns])
    return df.groupBy((digest % 7).alias("g")).count()


def read_only(records: DataFrame) -> DataFrame:
    """The no-work read: ``operation_costs.py``'s "read and count"."""
    return records.groupBy("topic").count()


def plan(way: str, records: DataFrame, config: ParsingConfig) -> DataFrame:
    """One timed plan, built anew: the read, or ``way``'s parse and the aggregate."""
    if way == READ:
        return read_only(records)
    return touched(parsed(way, records, config))


# --- the check ---------------------------------------------------------------------------


def differences(
    records: DataFrame, config: ParsingConfig, job: bool, show: int = 20
) -> tuple[int, list[str]]:
    """Rows of (c), and every difference of (a) and (b) from them (schema, rows missing or
    extra, cells), the first ``show`` of each way printed with their records' values."""
    from pyspark.sql import functions as F

    built = parsed(WAYS[2], records, config, job).cache()
    problems: list[str] = []
    try:
        rows = built.count()
        for way in WAYS[:2]:
            other = parsed(way, records, config, job)
            if other.schema.simpleString() != built.schema.simpleString():
                problems.append(
                    f"{way}: schema {other.schema.simpleString()}\n"
                    f"  built-in: {built.schema.simpleString()}"
                )
                continue
            names = [c for c in built.columns if c not in KEYS]
            joined = (
                built.withColumn("_here", F.lit(True))
                .alias("c")
                .join(other.withColumn("_here", F.lit(True)).alias("x"), KEYS, "full_outer")
            )
            missing = F.col("c._here").isNull() | F.col("x._here").isNull()
            differs = F.array_compact(
                F.array(
                    F.when(missing, F.lit("(row)")),
                    *[
                        F.when(~F.col(f"c.{n}").eqNullSafe(F.col(f"x.{n}")), F.lit(n))
                        for n in names
                    ],
                )
            )
            bad = joined.select(
                *KEYS, differs.alias("columns"),
                *[F.col(f"c.{n}").alias(f"c_{n}") for n in names],
                *[F.col(f"x.{n}").alias(f"x_{n}") for n in names],
            ).where(F.size("columns") > 0).cache()  # fmt: skip
            try:
                total = bad.count()
                if not total:
                    continue
                problems.append(f"{way}: {total} of {rows} rows differ from the built-in's")
                for row in bad.orderBy(*KEYS).limit(show).collect():
                    problems += _shown(records, row, way)
            finally:
                bad.unpersist()
    finally:
        built.unpersist()
    return rows, problems


def _shown(records: DataFrame, row: Any, way: str) -> list[str]:
    """One differing row: its key, each differing column's two values, the record's value."""
    from pyspark.sql import functions as F

    topic, partition, offset = (row[k] for k in KEYS)
    source = (
        records.where(
            (F.col("topic") == topic)
            & (F.col("partition") == partition)
            & (F.col("offset") == offset)
        )
        .select("key", "value")
        .first()
    )
    value = None if source is None else source["value"]
    lines = [f"  {topic}/{partition}@{offset} key={None if source is None else source['key']!r}"
             f" value={value[:200] if value is not None else None!r}"]  # fmt: skip
    for column in row["columns"]:
        if column == "(row)":
            lines.append("    the row is missing from one side")
            continue
        mine, theirs = row[f"x_{column}"], row[f"c_{column}"]
        lines.append(f"    {column}: {way} {repr(mine)[:160]} | built-in {repr(theirs)[:160]}")
    return lines


def check(corpora: dict[str, DataFrame], config: ParsingConfig, both_options: bool) -> bool:
    """:func:`differences` on every corpus, with the job's options (and ``kafka-health
    parse``'s with ``both_options``); True when there are none."""
    ok = True
    for name, records in corpora.items():
        for job in (True, False) if both_options else (True,):
            started = time.monotonic()
            rows, problems = differences(records, config, job)
            label = "the job's options" if job else "kafka-health parse's options"
            took = time.monotonic() - started
            if problems:
                ok = False
                print(f"check {name}, {label}: DIFFERENCES ({took:.0f} s)")
                print("\n".join(problems))
            else:
                print(f"check {name}, {label}: {rows} rows, 0 differences ({took:.0f} s)")
    return ok


def plan_problems(records: DataFrame, config: ParsingConfig, explain: bool) -> list[str]:
    """The timed plans' shapes: (a)'s UDF called once in its plan, (b)'s ``MapInArrow``
    present once (not pruned). Every field of a plan printed (``maxToStringFields``)."""
    spark = records.sparkSession
    spark.conf.set("spark.sql.debug.maxToStringFields", "100000")
    problems = []
    try:
        for way in (READ, *WAYS):
            text = str(plan(way, records, config)._jdf.queryExecution().executedPlan().toString())
            if explain:
                print(f"--- {way}\n{text}")
            if way.startswith("a"):
                calls = len(re.findall(r"kh_jvm_parse_\d+\(", text))
                if calls != 1:
                    problems.append(f"{way}: the UDF is called {calls} times in the plan")
            if way.startswith("b"):
                nodes = len(re.findall(r"MapInArrow\b", text))
                if nodes != 1:
                    problems.append(f"{way}: {nodes} MapInArrow nodes in the plan")
    finally:
        spark.conf.unset("spark.sql.debug.maxToStringFields")
    return problems


# --- the timing --------------------------------------------------------------------------


def timed(build: Callable[[], DataFrame]) -> float:
    """Seconds of one ``collect`` of a plan ``build`` makes anew (its building not counted,
    as ``core_costs.collect_seconds``)."""
    df = build()
    started = time.monotonic()
    df.collect()
    return time.monotonic() - started


def interleaved(
    corpora: dict[str, DataFrame], config: ParsingConfig, runs: int, warmup: int
) -> dict[str, dict[str, list[float]]]:
    """Seconds of each run, by corpus and way: round after round, each corpus, the read and
    the ways in an order rotated by one each round. The ``warmup`` rounds are not kept."""
    order = [READ, *WAYS]
    seconds: dict[str, dict[str, list[float]]] = {c: {w: [] for w in order} for c in corpora}
    for round_ in range(warmup + runs):
        shift = round_ % len(order)
        this = order[shift:] + order[:shift]
        for name, records in corpora.items():
            took = {}
            for way in this:
                took[way] = timed(functools.partial(plan, way, records, config))
                if round_ >= warmup:
                    seconds[name][way].append(took[way])
            label = "warm-up" if round_ < warmup else f"run {round_ - warmup + 1}/{runs}"
            shown = ", ".join(f"{w.split(':')[0]} {took[w]:.2f}" for w in this)
            print(f"{label} {name}: {shown} s", flush=True)
    return seconds


CORES = 2


def summary(seconds: dict[str, list[float]], records: int) -> dict[str, dict[str, float]]:
    """Per way: min and median seconds, records/s (at the min), core µs a record (at the min
    and the median), and µs a record past the read (the way's less the read's)."""
    read_min, read_median = min(seconds[READ]), statistics.median(seconds[READ])
    out: dict[str, dict[str, float]] = {}
    for way, times in seconds.items():
        low, mid = min(times), statistics.median(times)
        out[way] = {
            "min_s": low,
            "median_s": mid,
            "records_per_s": records / low,
            "core_us_min": CORES * low / records * 1e6,
            "core_us_median": CORES * mid / records * 1e6,
            "past_read_us_min": CORES * (low - read_min) / records * 1e6,
            "past_read_us_median": CORES * (mid - read_median) / records * 1e6,
        }
    return out


def print_table(name: str, records: int, table: dict[str, dict[str, float]]) -> None:
    print(f"\n{name}: {records:,} records")
    print(f"  {'way':16s} {'min s':>7s} {'median s':>9s} {'records/s':>11s} "
          f"{'core us/rec':>12s} {'(median)':>9s} {'past read':>10s} {'(median)':>9s}")  # fmt: skip
    for way, t in table.items():
        print(f"  {way:16s} {t['min_s']:7.2f} {t['median_s']:9.2f} {t['records_per_s']:11,.0f} "
              f"{t['core_us_min']:12.2f} {t['core_us_median']:9.2f} "
              f"{t['past_read_us_min']:10.2f} {t['past_read_us_median']:9.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10, help="seconds of backlog per mix")
    parser.add_argument("--runs", type=int, default=7, help="timed rounds")
    parser.add_argument("--warmup", type=int, default=1, help="rounds run first, not counted")
    parser.add_argument("--fixtures", action="store_true", help="the tests' corpora too")
    parser.add_argument("--logs-only", action="store_true", help="the broker-log records alone")
    parser.add_argument("--no-check", action="store_true", help="skip the row check")
    parser.add_argument(
        "--check-full", action="store_true", help="only the check, on the tests' full corpora"
    )
    parser.add_argument("--explain", action="store_true", help="print the timed plans")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be at least 1, --warmup at least 0")
    from kafka_health.config import MonitorConfig

    config = MonitorConfig().parsing
    spark = build_session()
    about = versions(spark)
    for key, value in about.items():
        print(f"{key}: {value}")
    if args.check_full:
        print("the tests' corpora, full size:")
        full = {"fixtures (full)": fixtures_frame(spark, full=True)}
        ok = check(full, config, both_options=True)
        spark.stop()
        sys.exit(0 if ok else 1)

    corpora: dict[str, DataFrame] = {}
    for name, storm in (("steady", False), ("storm", True)):
        corpora[name] = backlog_frame(spark, args.seconds, storm, args.logs_only)
    if args.fixtures:
        print("the tests' corpora, CI size:")
        corpora["fixtures"] = fixtures_frame(spark, full=False)
    counts = {name: df.count() for name, df in corpora.items()}
    logs = MonitorConfig().topics.broker_logs
    for name, df in corpora.items():
        in_logs = df.where(df["topic"] == logs).count()
        print(f"corpus {name}: {counts[name]:,} records, {in_logs:,} of them broker-log records")

    if not args.no_check and not check(corpora, config, both_options=False):
        spark.stop()
        sys.exit(1)
    problems = plan_problems(next(iter(corpora.values())), config, args.explain)
    if problems:
        print("\n".join(problems))
        spark.stop()
        sys.exit(1)
    print("plans: (a)'s UDF called once a row, (b)'s MapInArrow present")

    seconds = interleaved(corpora, config, args.runs, args.warmup)
    tables = {name: summary(seconds[name], counts[name]) for name in corpora}
    for name, table in tables.items():
        print_table(name, counts[name], table)
    if args.json:
        report = {
            "versions": about,
            "settings": {"seconds": args.seconds, "runs": args.runs, "warmup": args.warmup,
                         "logs_only": args.logs_only, "cores": CORES},
            "corpora": {name: {"records": counts[name], "seconds": seconds[name],
                               "ways": tables[name]} for name in corpora},
        }  # fmt: skip
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"\nwritten: {args.json}")
    spark.stop()


if __name__ == "__main__":
    main()
