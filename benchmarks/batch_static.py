"""The job's per-record cost alone: its batch plan (``parsed_stream`` then ``driver_rows``, one
``collect``) over a cached static DataFrame of ``bench throughput``'s backlog, with no Kafka and
no trigger. Each run builds the plan again (Spark reuses a finished plan's shuffle output), so
every run after the first, warm, reads, decodes, parses and aggregates every record.

    .venv/bin/python benchmarks/batch_static.py [--seconds 8] [--runs 5] [--storm] [--code DIR]
        [--profile OUT.jfr] [--cpu]

Each run's time includes building the plan in Python (about 2 s here), which the streaming
job does once when its query starts; the run line also gives the build and the run apart.

``--code DIR`` runs another checkout's ``src`` (an A/B in one environment); ``--profile``
records the warm runs with Java Flight Recorder and prints where the executor threads were:
the innermost generated stage of each sample, and the hottest frames, of the runs after the
first recorded one (starting a recording throws away the JVM's compiled code: the run that
follows ran 2-3 times slower, mostly interpreted, and its samples said so). ``--cpu`` writes Spark's
event log to a temporary folder and prints each run's executor CPU time (its tasks' CPU,
the figure an A/B of the parse compares: steadier here than wall time, which moves with the
machine). Writes nothing to the repo.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.event_log import event_log_conf, events

KAFKA_COLUMNS = (
    "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
    "timestampType int"
)


def backlog_rows(seconds: int, storm: bool = False) -> list[tuple[Any, ...]]:
    """``bench throughput``'s backlog for ``seconds`` as Kafka source rows (one partition);
    ``storm``: its log lines in the election storm's mix."""
    import dataclasses

    from kafka_health.config import MonitorConfig
    from kafka_health.dev.loadgen.throughput import ThroughputPlan, backlog
    from kafka_health.dev.loadgen.traffic import Traffic

    plan = dataclasses.replace(ThroughputPlan(), seconds=seconds, storm=storm)
    traffic = Traffic(plan.shape, MonitorConfig().topics, plan.seed)
    rows: list[tuple[Any, ...]] = []
    offsets: dict[str, int] = {}
    for at, batch in backlog(traffic, plan, int(time.time() * 1000) - seconds * 1000):
        stamp = datetime.datetime.fromtimestamp(at / 1000)
        for topic, key, value in batch:
            offset = offsets.get(topic, 0)
            offsets[topic] = offset + 1
            rows.append((key, value, topic, 0, offset, stamp, 0))
    return rows


def executor_cpu_ms(event_log: Path) -> list[float]:
    """Each job's executor CPU time in ms (the sum over its tasks), in job order, from the
    uncompressed event log(s) under ``event_log`` (not the checksum files beside them)."""
    job_of_stage: dict[int, int] = {}
    cpu_ns: dict[int, int] = collections.defaultdict(int)
    for event in events(event_log):
        if event["Event"] == "SparkListenerJobStart":
            job_of_stage.update(dict.fromkeys(event["Stage IDs"], event["Job ID"]))
        elif event["Event"] == "SparkListenerTaskEnd" and event["Stage ID"] in job_of_stage:
            metrics = event.get("Task Metrics") or {}
            cpu_ns[job_of_stage[event["Stage ID"]]] += metrics.get("Executor CPU Time", 0)
    return [cpu_ns[job] / 1e6 for job in sorted(cpu_ns)]


def executor_profile(recording: Path, since: str, top: int = 25) -> None:
    """Samples of Spark's executor threads taken from ``since`` (an ISO time in UTC) on: by
    innermost generated stage, and self frames."""
    out = subprocess.run(
        ["jfr", "print", "--json", "--stack-depth", "256", "--events", "jdk.ExecutionSample",
         str(recording)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    stages: collections.Counter[str] = collections.Counter()
    frames_self: collections.Counter[str] = collections.Counter()
    total = 0
    for event in json.loads(out.stdout)["recording"]["events"]:
        values = event["values"]
        thread = (values.get("sampledThread") or {}).get("javaName") or ""
        if not thread.startswith("Executor task") or values["startTime"] < since:
            continue
        total += 1
        trace = values["stackTrace"]["frames"] if values.get("stackTrace") else []
        names = [f"{f['method']['type']['name']}.{f['method']['name']}" for f in trace]
        if names:
            frames_self[names[0].split("/")[-1]] += 1
        generated = [n for n in names if "GeneratedClass$" in n]
        stages[generated[0].split("GeneratedClass$")[-1].split(".")[0] if generated else "-"] += 1
    print(f"\nexecutor samples: {total}")
    for title, counter in (("innermost generated class", stages), ("self", frames_self)):
        print(f"\n{title}:")
        for name, count in counter.most_common(top):
            print(f"  {count:6d} {count / max(total, 1):6.1%}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=8, help="seconds of backlog")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--storm", action="store_true", help="log lines in the storm's mix")
    parser.add_argument("--code", type=Path, help="a checkout whose src to run")
    parser.add_argument("--profile", type=Path, help="JFR of the warm runs, written here")
    parser.add_argument("--cpu", action="store_true", help="each run's executor CPU time")
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(args.code.resolve() / "src"))
    import dataclasses

    from kafka_health.config import MonitorConfig
    from kafka_health.job import batch as job_batch
    from kafka_health.spark import build_spark_session

    print(f"code: {Path(job_batch.__file__).resolve().parents[2]}")
    config = MonitorConfig()
    rows = backlog_rows(args.seconds, args.storm)
    conf = dict(config.spark.conf)
    if args.profile:
        conf["spark.driver.extraJavaOptions"] = "-XX:FlightRecorderOptions:stackdepth=256"
    event_log = Path(tempfile.mkdtemp(prefix="batch-static-events-")) if args.cpu else None
    if event_log is not None:
        conf.update(event_log_conf(event_log))
    spark = build_spark_session(dataclasses.replace(config.spark, conf=conf))
    # As in the streaming query, which runs without adaptive execution (Spark turns it off
    # there); with it, Spark plans the exchanges differently (no reused exchange).
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    frame = spark.createDataFrame(rows, KAFKA_COLUMNS).repartition(2).cache()
    print(f"records: {frame.count()}")
    recording: Any = None
    since = ""
    for run in range(args.runs):
        if args.profile and run == 1:
            jvm: Any = spark.sparkContext._jvm
            recording = jvm.jdk.jfr.Recording(jvm.jdk.jfr.Configuration.getConfiguration("profile"))
            recording.start()
        started = time.monotonic()
        records = job_batch.monitor_records(frame, config)
        built = time.monotonic()
        out = job_batch.driver_rows(records, config)
        took, ran = time.monotonic() - started, time.monotonic() - built
        label = "cold" if run == 0 else "warm"
        print(f"run {run} ({label}): {took:.2f} s, {len(rows) / took:,.0f} records/s, "
              f"{len(out)} rows (building the plan {built - started:.2f} s, running it "
              f"{ran:.2f} s: {len(rows) / ran:,.0f} records/s)")  # fmt: skip
        if run == 1:  # the run the recording's start slowed (see the module docstring)
            since = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
    if recording is not None:
        recording.stop()
        recording.dump(jvm.java.io.File(str(args.profile)).toPath())
    spark.stop()
    if event_log is not None:
        runs_cpu = executor_cpu_ms(event_log)[-args.runs :]
        print("executor CPU per run: " + ", ".join(f"{ms:,.0f} ms" for ms in runs_cpu))
        # The JIT compiles the parse's stages through the first few warm runs.
        steady = runs_cpu[max(2, len(runs_cpu) // 3) :]
        if steady:
            print(f"runs after the first third: median {statistics.median(steady):,.0f} ms, "
                  f"min {min(steady):,.0f} ms")  # fmt: skip
        shutil.rmtree(event_log, ignore_errors=True)
    if args.profile:
        executor_profile(args.profile, since)


if __name__ == "__main__":
    main()
