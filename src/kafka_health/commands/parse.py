"""``kafka-health parse PATH...``: broker and GC log files -> JSON Lines of events.

The files (plain or .gz) are read by Spark in batch, their lines joined into entries, and each
entry goes through the same Java parse as the streaming job's records
(:mod:`kafka_health.parsing.udf`). Output: one JSON object per event in file order, or with
``--summary`` one object counting each event type, ``lines`` (and ``lines_by_outcome``: event,
malformed, unrecognised; they add up to ``lines``), ``unrecognised_lines`` and ``malformed``.
A missing or unreadable file is exit 2 with its reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.parsing.offline import input_files

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

NAME = "parse"
HELP = "parse broker and GC log files (plain or .gz) into JSON Lines of health events"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--kind",
        choices=("auto", "kafka", "gc"),
        default="auto",
        help="which patterns to try: Kafka broker logs, JVM GC logs, or both (default)",
    )
    parser.add_argument("--broker-id", default=None, help="broker id to put on every event")
    parser.add_argument(
        "--summary", action="store_true", help="print one JSON object of counts instead"
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="log files or folders")


def summary(parsed: DataFrame) -> dict[str, Any]:
    """Counts: each event type, lines (by outcome), entries, malformed, unrecognised lines by
    reason."""
    from kafka_health.parsing.events import outcome_counts
    from kafka_health.parsing.patterns import EVENT_TYPES

    result: dict[str, Any] = dict.fromkeys(EVENT_TYPES, 0)
    lines = entries = unrecognised = malformed = 0
    by_reason: dict[str, int] = {}
    by_outcome: dict[str, int] = {}
    for row in outcome_counts(parsed).collect():
        lines += row["lines"]
        by_outcome[row["outcome"]] = by_outcome.get(row["outcome"], 0) + row["lines"]
        entries += row["entries"]
        if row["outcome"] == "event":
            result[row["type"]] += row["entries"]
        elif row["outcome"] == "malformed":
            malformed += row["entries"]
        else:
            unrecognised += row["lines"]
            by_reason[row["reason"]] = by_reason.get(row["reason"], 0) + row["lines"]
    result.update(
        lines=lines,
        lines_by_outcome=dict(sorted(by_outcome.items())),
        entries=entries,
        malformed=malformed,
        unrecognised_lines=unrecognised,
        unrecognised_by_reason=dict(sorted(by_reason.items())),
    )
    return result


def run(args: argparse.Namespace) -> int:
    files = input_files(args.paths, "parse")
    if files is None:
        return 2
    config = config_from_args(args)

    from kafka_health.parsing.events import json_lines, with_context_collector
    from kafka_health.parsing.offline import read_entries
    from kafka_health.parsing.udf import parse_entries
    from kafka_health.spark import build_spark_session

    spark = build_spark_session(config.spark)
    entries = read_entries(spark, files, config.parsing, broker_id=args.broker_id)
    parsed = with_context_collector(parse_entries(entries, config.parsing, kind=args.kind))
    try:
        if args.summary:
            print(json.dumps(summary(parsed)))
        else:
            events = parsed.where("outcome = 'event'").orderBy("file_index", "line")
            for row in json_lines(events).toLocalIterator():
                sys.stdout.write(row["json"] + "\n")
    except Exception as exc:  # Spark's read errors surface here (e.g. a truncated .gz)
        if type(exc).__module__.startswith(("pyspark", "py4j")):
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            print(f"kafka-health parse: cannot read the input: {first}", file=sys.stderr)
            return 2
        raise
    sys.stdout.flush()
    return 0
