"""What single operations of the parse cost per record, beside the job's whole batch plan, over
the same cached static backlog as ``batch_static.py`` (no Kafka, no trigger): the floor under
issue 14's ratio to the no-work read.

    .venv/bin/python benchmarks/operation_costs.py [--seconds 8] [--runs 6] [--storm] [NAME ...]

Each operation is grouped by its result (one small aggregation, as the job's batch ends), run
``--runs`` times; the fastest run is reported as records/s and as microseconds of core time a
record (two cores). The first few names are the base any operation pays: reading the cached
rows and the aggregation. Writes nothing to the repo.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def operations(frame: Any, messages: Any) -> dict[str, Callable[[], Any]]:
    """Each operation's DataFrame, built anew per run. ``frame``: Kafka source rows;
    ``messages``: the broker-log lines alone (column ``t``)."""
    from pyspark.sql import functions as F

    from kafka_health.config import MonitorConfig
    from kafka_health.job import batch as job_batch
    from kafka_health.parsing.columns import any_of
    from kafka_health.parsing.envelope import BINARY, parse_doc
    from kafka_health.parsing.matching import passes_prefilter
    from kafka_health.parsing.prefilter import prefilter_anchors, prefilter_gates

    config = MonitorConfig()
    is_log = F.col("topic") == config.topics.broker_logs
    anchors, gates = prefilter_anchors(), prefilter_gates()
    assert anchors is not None and gates is not None
    text, t = F.col("value").cast("string"), F.col("t")
    checks = F.expr("is_valid_utf8(t)") & ~t.rlike(BINARY)
    doc = parse_doc(text, config.parsing.fields)
    walks = f"lines: the Kafka anchors' {len(anchors['kafka'])} contains"
    searched = len(gates["kafka"].searched)
    gated = f"lines: the Kafka gate ({searched} contains, split, arrays_overlap)"
    return {
        "read and count": lambda: frame.groupBy("topic").count(),
        "value as text, length": lambda: frame.groupBy(F.length(text) % 7).count(),
        "envelope from_json, two fields": lambda: (
            frame.select(doc.alias("d")).groupBy("d.broker_id").agg(F.count("d.message"))
        ),
        "envelope from_json, every key the decode reads": lambda: _all_keys(frame, config, False),
        "envelope try_parse_json + try_variant_get, every key": lambda: _all_keys(
            frame, config, True
        ),
        "lines: read and count": lambda: messages.groupBy(F.length(t) % 7).count(),
        "lines: is_valid_utf8 and the BINARY regex": lambda: messages.groupBy(checks).count(),
        walks: lambda: messages.groupBy(any_of([t.contains(a) for a in anchors["kafka"]])).count(),
        gated: lambda: messages.groupBy(
            passes_prefilter(t, F.split(t, " "), gates["kafka"])
        ).count(),
        "the job's batch plan": lambda: job_batch.driver_rows(
            job_batch.parsed_stream(frame, config)
        ),
        # The same plan with nothing to parse: every broker-log value null, as the job's own
        # topics' records cross the parse. What the stages cost whatever a line holds.
        "the job's batch plan, every log value null": lambda: job_batch.driver_rows(
            job_batch.parsed_stream(frame.withColumn("value", F.when(~is_log, "value")), config)
        ),
        # The whole plan over each kind of record alone (see main: the records a prefilter
        # gate passes, and the others), each counted in its own records.
        "the job's batch plan, the records a gate passes (x8)": lambda: job_batch.driver_rows(
            job_batch.parsed_stream(_split(frame, config)[0], config)
        ),
        "the job's batch plan, the other records": lambda: job_batch.driver_rows(
            job_batch.parsed_stream(_split(frame, config)[1], config)
        ),
        # The gated records' parse cut short: Spark prunes the expressions nothing counted
        # reads, so each counts what the parse costs up to that column.
        "the records a gate passes (x8): the parse, counted by outcome": lambda: _gated_by(
            frame, config, "outcome"
        ),
        "the records a gate passes (x8): the parse up to event_ms": lambda: _gated_by(
            frame, config, "event_ms"
        ),
        "the records a gate passes (x8): the parse and the driver's columns": lambda: _gated_by(
            frame, config, "g_record"
        ),
        "24 stages passing 30 columns, 25 of them null": lambda: _stages(frame, 24, 25),
        "24 stages passing 5 columns and a null struct of 25": (
            lambda: _struct_stages(frame, 24, 25)
        ),
    }


def _all_keys(frame: Any, config: Any, variant: bool) -> Any:
    """Every top-level key the decode reads (:func:`~kafka_health.parsing.envelope.doc_keys`),
    by ``from_json`` into a struct or by a variant and a ``try_variant_get`` each, counted by
    the summed lengths (so none is pruned)."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.envelope import doc_keys, parse_doc

    keys = doc_keys(config.parsing.fields)
    text = F.col("value").cast("string")
    if variant:
        doc = F.try_parse_json(text)
        values = [F.try_variant_get(doc, f"$['{k}']", "string") for k in keys]
    else:
        parsed = parse_doc(text, config.parsing.fields)
        values = [parsed.getField(k) for k in keys]
    total = sum((F.coalesce(F.length(v), F.lit(0)) for v in values), F.lit(0))
    return frame.groupBy(total % 7).count()


_SPLITS: dict[int, tuple[Any, Any]] = {}
GATED_COPIES = 8
"""Copies of the gated records (each at new offsets, so each is its own group, as an event
is): about 2 s of them, enough that a batch's fixed costs do not hide their own."""


def _split(frame: Any, config: Any) -> tuple[Any, Any]:
    """``frame``'s records split by the parse's prefilter gates (either family's): those a
    gate passes, :data:`GATED_COPIES` times over, and the others; each cached once."""
    if id(frame) in _SPLITS:
        return _SPLITS[id(frame)]
    from pyspark.sql import functions as F

    from kafka_health.parsing.matching import passes_prefilter
    from kafka_health.parsing.prefilter import prefilter_gates

    gates = prefilter_gates()
    assert gates is not None
    message = F.get_json_object(F.col("value").cast("string"), "$.message")
    t = F.coalesce(message, F.lit(""))
    tokens = F.split(t, " ")
    passes = passes_prefilter(t, tokens, gates["gc"]) | passes_prefilter(t, tokens, gates["kafka"])
    is_log = F.col("topic") == config.topics.broker_logs
    gated = frame.where(is_log & passes)
    copies = gated
    for k in range(1, GATED_COPIES):
        copies = copies.union(gated.withColumn("offset", F.col("offset") + k * 10_000_000))
    split = (copies.repartition(2).cache(), frame.where(~(is_log & passes)).cache())
    _SPLITS[id(frame)] = split
    return split


def _gated_by(frame: Any, config: Any, column: str) -> Any:
    """The gated records (:func:`_split`) through the job's parse, counted by a hash of
    ``column`` (a few groups, so the aggregation costs nothing)."""
    from pyspark.sql import functions as F

    from kafka_health.job import batch as job_batch

    parsed = job_batch.parsed_stream(_split(frame, config)[0], config)
    return parsed.groupBy(F.length(F.col(column).cast("string")) % 7).count()


def _split_counts(frame: Any, names: list[str]) -> dict[str, int]:
    """The records each split operation among ``names`` reads (:func:`_split`), printed."""
    split_names = [n for n in names if "gate passes" in n or "other records" in n]
    if not split_names:
        return {}
    from kafka_health.config import MonitorConfig

    gated, others = _split(frame, MonitorConfig())
    n_gated, n_others = gated.count(), others.count()
    print(f"records a gate passes: {n_gated // GATED_COPIES} (x{GATED_COPIES}), "
          f"others: {n_others}")  # fmt: skip
    return {n: n_gated if "gate passes" in n else n_others for n in split_names}


def _stages(frame: Any, stages: int, empty: int) -> Any:
    """``stages`` stage boundaries (:func:`~kafka_health.spark.stages.end_stage`) over five of
    ``frame``'s columns and ``empty`` null texts, each stage rewriting one (to null again)."""
    from pyspark.sql import functions as F

    from kafka_health.spark.stages import end_stage

    names = [f"c{i}" for i in range(empty)]
    df = frame.select(
        "topic", "partition", "offset", "timestamp", "key",
        *[F.lit(None).cast("string").alias(name) for name in names],
    )  # fmt: skip
    for k in range(stages):
        name = names[k % empty]
        df = df.withColumn(name, F.when(F.col("partition") < 0, F.concat(name, F.lit("x"))))
        df = end_stage(df)
    return df.groupBy("topic").agg(*[F.max(name) for name in names])


def _struct_stages(frame: Any, stages: int, fields: int) -> Any:
    """As :func:`_stages`, but the ``fields`` texts in one struct column that is null as a
    whole (what only a candidate line would carry), each stage rewriting one field."""
    from pyspark.sql import functions as F

    from kafka_health.spark.stages import end_stage

    names = [f"c{i}" for i in range(fields)]
    struct_type = "struct<" + ", ".join(f"{name}: string" for name in names) + ">"
    df = frame.select(
        "topic", "partition", "offset", "timestamp", "key",
        F.lit(None).cast(struct_type).alias("s"),
    )  # fmt: skip
    for k in range(stages):
        name = names[k % fields]
        grown = F.col("s").withField(name, F.concat(F.col("s")[name], F.lit("x")))
        df = df.withColumn("s", F.when(F.col("partition") < 0, grown))
        df = end_stage(df)
    return df.groupBy("topic").agg(*[F.max(F.col("s")[name]) for name in names])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=8, help="seconds of backlog")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--storm", action="store_true", help="log lines in the storm's mix")
    parser.add_argument("names", nargs="*", help="operations to run (default: all)")
    args = parser.parse_args()
    from pyspark.sql import functions as F

    from benchmarks.batch_static import KAFKA_COLUMNS, backlog_rows
    from benchmarks.core_costs import collect_seconds, cost_line
    from kafka_health.config import MonitorConfig
    from kafka_health.spark import build_spark_session

    spark = build_spark_session(MonitorConfig().spark)
    rows = backlog_rows(args.seconds, args.storm)
    frame = spark.createDataFrame(rows, KAFKA_COLUMNS).repartition(2).cache()
    records = frame.count()
    message = F.get_json_object(F.col("value").cast("string"), "$.message")
    messages = frame.select(message.alias("t")).where("t is not null").cache()
    lines = messages.count()
    print(f"records: {records}, of them broker-log lines: {lines}")
    built = operations(frame, messages)
    counts = _split_counts(frame, args.names or list(built))
    for name in args.names or list(built):
        count = counts.get(name) or (lines if name.startswith("lines:") else records)
        best = min(collect_seconds(built[name], args.runs))
        print(cost_line(name, best, count, 60))
    spark.stop()


if __name__ == "__main__":
    main()
