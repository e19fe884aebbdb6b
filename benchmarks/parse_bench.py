"""Lines per second through the log parser: Spark (local[2]) against a plain-Python ``re`` loop.

The corpus mixes the test table's real lines (events, ~10%) with ordinary log lines that are
not events (~90%, as in a broker's server.log), written to one file. Spark reads it and runs
:func:`~kafka_health.parsing.udf.parse_entries` (every line one entry, as in the streaming
job); the baseline runs :func:`~kafka_health.parsing.reference.classify`, the same table with
Python's ``re``, over the same lines. One run of each; Spark is warmed up on a small batch
first so its JVM start and code generation are not counted.

    .venv/bin/python benchmarks/parse_bench.py [--lines 400000]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from kafka_health.config import SparkConfig
from kafka_health.dev.parsing_cases import ALL_CASES
from kafka_health.parsing.reference import classify

NOISE = [
    "[2019-05-15 22:03:49,511] INFO Rolled new log segment for 'orders-{n}' in 1 ms. "
    "(kafka.log.Log)",
    "[2022-03-12 18:10:07,471] INFO [ReplicaFetcher replicaId=3, leaderId=4, fetcherId=0] "
    "Shutting down (kafka.server.ReplicaFetcherThread)",
    "[2021-04-15 08:24:20,811] INFO [GroupMetadataManager brokerId=3] Removed {n} expired "
    "offsets in 1 milliseconds. (kafka.coordinator.group.GroupMetadataManager)",
    "[2026-11-22 02:37:14,555] INFO [LogLoader partition=probe-{n}, dir=/data] Reloading from "
    "producer snapshot and rebuilding producer state from offset 0 (kafka.log.UnifiedLog)",
    "[2026-11-22T02:37:10.515+0000][0.659s][info][gc,task     ] GC({n}) Using 2 workers of 2 "
    "for evacuation",
    "[2026-11-22T02:37:10.520+0000][0.664s][info][gc,heap     ] GC({n}) Eden regions: 12->0(13)",
]


def corpus(lines: int, seed: int = 1) -> list[str]:
    """``lines`` single-line log entries, about one in ten an event."""
    rng = random.Random(seed)
    events = [c.text for c in ALL_CASES if "\n" not in c.text and c.expect != "unrecognised"]
    out = []
    for n in range(lines):
        if rng.random() < 0.1:
            out.append(rng.choice(events))
        else:
            out.append(rng.choice(NOISE).format(n=n))
    return out


def spark_run(path: Path, lines: int) -> tuple[float, dict[str, int]]:
    from pyspark.sql import functions as F

    from kafka_health.parsing.udf import parse_entries
    from kafka_health.spark import build_spark_session

    spark = build_spark_session(SparkConfig(master="local[2]", app_name="parse-bench"))
    warm = spark.createDataFrame([(x,) for x in corpus(2000, seed=2)], "message string")
    parse_entries(warm).groupBy("outcome").count().collect()
    start = time.perf_counter()
    frame = (
        spark.read.option("lineSep", "\n").text(str(path)).select(F.col("value").alias("message"))
    )
    rows = parse_entries(frame).groupBy("outcome").count().collect()
    elapsed = time.perf_counter() - start
    counts = {r["outcome"]: r["count"] for r in rows}
    assert sum(counts.values()) == lines
    return elapsed, counts


def python_run(texts: list[str]) -> tuple[float, dict[str, int]]:
    counts: dict[str, int] = {}
    start = time.perf_counter()
    for text in texts:
        outcome = classify(text).outcome
        counts[outcome] = counts.get(outcome, 0) + 1
    return time.perf_counter() - start, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=400_000)
    args = parser.parse_args()
    texts = corpus(args.lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.log"
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        spark_s, spark_counts = spark_run(path, args.lines)
    python_s, python_counts = python_run(texts)
    assert spark_counts == python_counts, (spark_counts, python_counts)
    result = {
        "lines": args.lines,
        "outcomes": spark_counts,
        "spark_local2_s": round(spark_s, 2),
        "spark_lines_per_s": round(args.lines / spark_s),
        "python_re_s": round(python_s, 2),
        "python_lines_per_s": round(args.lines / python_s),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
