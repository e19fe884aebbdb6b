"""Where the job's time goes on ``bench throughput``'s backlog: one run of the job over it
(``run_available_now``, ``local[2]``) with Java Flight Recorder in the driver JVM (which runs
the executors in local mode), then the batch's own steps (``job/step_timings``), the query's
``durationMs`` and the JVM's hottest frames, self and inclusive.

    .venv/bin/python benchmarks/job_profile.py [--seconds 15] [--top 40] [--keep DIR]

Needs a JDK's ``jfr`` tool beside ``java`` (OpenJDK 17 has it). Writes nothing to the repo.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from kafka_health.jdk import jdk_tool


def jfr_tool() -> str:
    found = jdk_tool("jfr")
    if found is None:
        raise SystemExit("no jfr tool (JAVA_HOME, PATH, beside java): install a JDK, not a JRE")
    return found


def hot_frames(recording: Path, top: int) -> dict[str, list[tuple[str, int]]]:
    """Self and inclusive sample counts per method (executor and driver threads alike)."""
    out = subprocess.run(
        [jfr_tool(), "print", "--json", "--events", "jdk.ExecutionSample", str(recording)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    events = json.loads(out.stdout)["recording"]["events"]
    self_counts: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    threads: collections.Counter[str] = collections.Counter()
    for event in events:
        values = event["values"]
        frames = values["stackTrace"]["frames"] if values.get("stackTrace") else []
        names = [f"{f['method']['type']['name']}.{f['method']['name']}" for f in frames]
        thread = (values.get("sampledThread") or {}).get("javaName") or "?"
        threads[thread.split(" (")[0].rstrip("0123456789- ")] += 1
        if names:
            self_counts[names[0]] += 1
        for name in set(names):
            inclusive[name] += 1
    return {
        "samples": [("all", len(events))],
        "threads": threads.most_common(10),
        "self": self_counts.most_common(top),
        "inclusive": inclusive.most_common(top),
    }


def main() -> None:
    from kafka_health.config import JobConfig, MonitorConfig, TopicsConfig
    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
    from kafka_health.dev.loadgen.throughput import ProgressLog, ThroughputPlan, _drain, fill
    from kafka_health.dev.loadgen.traffic import Traffic
    from kafka_health.job.app import QUERY, MonitorJob
    from kafka_health.job.batch import SOURCE_READS
    from kafka_health.spark import build_spark_session

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="backlog of this many s")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--keep", type=Path, help="keep the recording here")
    args = parser.parse_args()
    plan = dataclasses.replace(ThroughputPlan(), seconds=args.seconds)
    with tempfile.TemporaryDirectory(prefix="kafka-health-profile-") as name:
        tmp = Path(name)
        recording = tmp / "job.jfr"
        cluster = LocalCluster.create(ClusterSpec(dir=tmp / "kafka", brokers=1)).up()
        try:
            base = MonitorConfig().with_bootstrap(cluster.bootstrap_servers)
            jfr = (  # deep stacks: a regex's recursion hides the stage that called it
                "-XX:FlightRecorderOptions:stackdepth=1024 "
                "-XX:StartFlightRecording=settings=profile"
            )
            config = dataclasses.replace(
                base,
                topics=TopicsConfig(),
                spark=dataclasses.replace(
                    base.spark,
                    checkpoint_dir=str(tmp / "checkpoints"),
                    conf={**base.spark.conf, "spark.driver.extraJavaOptions": jfr},
                ),
                job=JobConfig(starting_offsets="earliest"),
            )
            records = fill(config, Traffic(plan.shape, config.topics, plan.seed), plan)
            print(f"backlog: {records} records")
            spark = build_spark_session(config.spark)
            progress = ProgressLog()
            spark.streams.addListener(progress.listener())
            job = MonitorJob(spark, config)
            steps: list[dict[str, float]] = []
            original = job.health.on_steps

            def keep_steps(query: str, seconds: dict[str, float]) -> None:
                if query == QUERY:
                    steps.append(dict(seconds))
                original(query, seconds)

            job.health.on_steps = keep_steps  # type: ignore[method-assign,assignment]
            job.run_available_now()
            _drain(progress, QUERY)
            rate, rows = progress.rate(QUERY, SOURCE_READS)
            print(f"job: {rate:,.0f} records/s over {rows} records")
            for p in progress.by_query.get(QUERY, []):
                if p.numInputRows:
                    records = p.numInputRows // SOURCE_READS
                    print(f"  batch {p.batchId}: {records} records, durationMs {p.durationMs}")
            for i, s in enumerate(steps):
                print(f"  steps {i}: " + ", ".join(f"{k} {v:.2f} s" for k, v in s.items()))
            jvm: Any = spark.sparkContext._jvm
            for rec in jvm.jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings():
                rec.dump(jvm.java.io.File(str(recording)).toPath())
            spark.stop()
        finally:
            cluster.down()
        if args.keep:
            shutil.copy(recording, args.keep)
        report = hot_frames(recording, args.top)
        for section, rows_ in report.items():
            print(f"\n{section}:")
            for frame, count in rows_:
                print(f"  {count:7d}  {frame}")


if __name__ == "__main__":
    main()
