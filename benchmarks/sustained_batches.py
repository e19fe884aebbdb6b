"""Where a sustained batch's time goes: the job on its processing-time trigger while
``kafka-health bench load`` sends traffic at a steady rate (the last phase of
``bench throughput``), then every monitor batch's rows, ``durationMs`` and the steps of its
``foreachBatch`` body (``job/step_timings``), and the p50/p95 of each after the first third.

    .venv/bin/python benchmarks/sustained_batches.py [--rate 1000] [--seconds 60] [--paced]
        [--storm] [--standalone-workers N] [--timeline]

``--paced``: no live producer. ``--seconds`` of the traffic at ``--rate`` are written first
(``bench throughput``'s backlog), and the job reads them capped at the traffic's records per
trigger interval (``max_offsets_per_trigger``): the rate arrives as a live producer would send
it, but the producer's Python does not share the two cores with the job (at 20,000 records/s
it would take one of them). ``--storm``: that backlog's log lines in the election storm's mix
(``loadgen/traffic.py``'s ``STORM``). A batch that takes longer than the trigger means the job
does not keep up with the rate.

Runs a local 1-broker Kafka and Spark ``local[2]``, or with ``--standalone-workers N`` a Spark
standalone master and N 1-core workers started here (as ``bench throughput`` does). Writes
nothing to the repo.

``--timeline``: Spark's event log in a temporary folder, and from it, for the same batches,
where each one's time went: from its trigger to its Spark job (the offset log, planning, the
plan's code generated again, the ``foreachBatch`` body up to its collect), each stage's span
and its tasks' summed run, CPU, deserialization and GC time, and from the last stage's end
to the batch's (the body's rest, the commit log).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import datetime
import math
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.event_log import event_log_conf, events


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def spread(values: list[float]) -> str:
    return f"p50 {statistics.median(values or [0.0]):.2f} s, p95 {quantile(values, 0.95):.2f} s"


def main() -> None:
    from kafka_health.config import JobConfig, MonitorConfig, TopicsConfig
    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
    from kafka_health.dev.loadgen.throughput import ProgressLog, ThroughputPlan, fill, spark_config
    from kafka_health.dev.loadgen.traffic import Traffic
    from kafka_health.dev.shipper_devcluster import write_config
    from kafka_health.dev.spark_standalone import standalone_cluster
    from kafka_health.job.app import QUERY, MonitorJob
    from kafka_health.job.batch import SOURCE_READS
    from kafka_health.spark import build_spark_session

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=1000.0, help="log records/s")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--paced", action="store_true", help="from a backlog, capped per batch")
    parser.add_argument(
        "--storm", action="store_true", help="--paced: the backlog in the storm's mix"
    )
    parser.add_argument(
        "--standalone-workers", type=int, default=0, metavar="N", help="N 1-core workers"
    )
    parser.add_argument("--timeline", action="store_true", help="from Spark's event log")
    args = parser.parse_args()
    plan = dataclasses.replace(
        ThroughputPlan(), rate=args.rate, seconds=args.seconds, storm=args.storm
    )
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kafka-health-sus-")))
        master = None
        if args.standalone_workers > 0:
            master = stack.enter_context(
                standalone_cluster(tmp / "spark", workers=args.standalone_workers, memory="2g")
            )
            print(f"a standalone master and {args.standalone_workers} 1-core workers at {master}")
        cluster = LocalCluster.create(ClusterSpec(dir=tmp / "kafka", brokers=1)).up()
        stack.callback(cluster.down)
        base = MonitorConfig().with_bootstrap(cluster.bootstrap_servers)
        config = dataclasses.replace(
            base,
            topics=TopicsConfig(),
            spark=with_event_log(spark_config(tmp / "checkpoints", master), tmp / "events")
            if args.timeline
            else spark_config(tmp / "checkpoints", master),
            job=JobConfig(starting_offsets="earliest"),
        )
        written = 0
        if args.paced:
            written = fill(config, Traffic(plan.shape, config.topics, plan.seed), plan)
            per_batch = math.ceil(written / plan.seconds * config.job.trigger_interval_s)
            config = dataclasses.replace(
                config, job=dataclasses.replace(config.job, max_offsets_per_trigger=per_batch)
            )
            print(f"backlog: {written} records; at most {per_batch} per batch")
        config_file = write_config(config, tmp / "monitor.yaml")
        spark = build_spark_session(config.spark)
        progress = ProgressLog()
        spark.streams.addListener(progress.listener())
        job = MonitorJob(spark, config)
        steps: dict[int, dict[str, float]] = {}
        original = job.health.on_steps

        def keep_steps(query: str, seconds: dict[str, float]) -> None:
            if query == QUERY:
                steps[len(steps)] = dict(seconds)
            original(query, seconds)

        job.health.on_steps = keep_steps  # type: ignore[method-assign,assignment]
        stop = threading.Event()
        runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
        runner.start()
        load = None
        if args.paced:
            before, steps_before = 0, 0
            # Until the backlog is read: the batches' records reach its size.
            deadline = time.monotonic() + plan.seconds * 10
            while progress.rate(QUERY, SOURCE_READS)[1] < written and time.monotonic() < deadline:
                time.sleep(1)
        else:
            time.sleep(15)
            before = len(progress.by_query.get(QUERY, []))
            steps_before = len(steps)
            load = live_load(config_file, plan, args)
        stop.set()
        runner.join(timeout=120)
        spark.stop()
        if load is not None and load.returncode != 0:
            raise SystemExit(f"bench load failed: {load.stderr[-2000:]}")
        batches = progress.by_query.get(QUERY, [])[before:]
        report(batches, steps, steps_before)
        if args.timeline:
            timeline(tmp / "events", {p.batchId for p in batches[len(batches) // 3 :]})


def live_load(config_file: Path, plan: Any, args: argparse.Namespace) -> Any:
    """``kafka-health bench load`` at the rate, as a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "kafka_health.cli", "bench", "load", "--config",
         str(config_file), "--brokers", str(plan.shape.brokers), "--partitions",
         str(plan.shape.partitions), "--topics", str(plan.shape.topics), "--rate",
         str(args.rate), "--seconds", str(args.seconds), "--seed", "2", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def with_event_log(spark: Any, folder: Path) -> Any:
    """``spark`` (a ``SparkConfig``) writing Spark's uncompressed event log to ``folder``."""
    return dataclasses.replace(spark, conf={**spark.conf, **event_log_conf(folder)})


def _epoch_ms(stamp: str) -> float:
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000


def timeline(folder: Path, batch_ids: set[int]) -> None:
    """The monitor query's ``batch_ids`` from the event log in ``folder`` (see the module
    docstring): the p50 of each phase, in ms."""
    from kafka_health.job.app import QUERY

    starts: dict[int, tuple[float, float]] = {}  # batch -> (trigger, duration), ms
    query_id = None
    Key = tuple[str | None, int]  # the query's id, the batch's
    batch_stages: dict[Key, list[int]] = collections.defaultdict(list)
    job_submitted: dict[Key, float] = {}  # the batch's first job
    stage_span: dict[int, tuple[float, float]] = {}
    tasks: dict[int, list[dict[str, float]]] = collections.defaultdict(list)
    for event in events(folder):
        kind = event["Event"]
        if kind.endswith("QueryProgressEvent") and event["progress"]["name"] == QUERY:
            progress = event["progress"]
            query_id = progress["id"]
            starts[progress["batchId"]] = (
                _epoch_ms(progress["timestamp"]),
                progress["batchDuration"],
            )
        elif kind == "SparkListenerJobStart":
            props = event.get("Properties") or {}
            if props.get("streaming.sql.batchId") is not None:
                key = (props.get("sql.streaming.queryId"), int(props["streaming.sql.batchId"]))
                batch_stages[key].extend(event["Stage IDs"])
                job_submitted.setdefault(key, event["Submission Time"])
        elif kind == "SparkListenerStageCompleted":
            info = event["Stage Info"]
            stage_span[info["Stage ID"]] = (info["Submission Time"], info["Completion Time"])
        elif kind == "SparkListenerTaskEnd":
            m = event.get("Task Metrics") or {}
            tasks[event["Stage ID"]].append({
                "run": m.get("Executor Run Time", 0),
                "cpu": m.get("Executor CPU Time", 0) / 1e6,
                "deserialize": m.get("Executor Deserialize Time", 0),
                "gc": m.get("JVM GC Time", 0),
            })  # fmt: skip
    phases: dict[str, list[float]] = collections.defaultdict(list)
    for batch in sorted(batch_ids & set(starts)):
        key = (query_id, batch)
        stages = sorted(s for s in batch_stages.get(key, []) if s in stage_span)
        if not stages or key not in job_submitted:
            continue
        trigger, duration = starts[batch]
        phases["trigger to the batch's Spark job"].append(job_submitted[key] - trigger)
        for i, stage in enumerate(stages):
            begun, ended = stage_span[stage]
            phases[f"stage {i}: span"].append(ended - begun)
            phases[f"stage {i}: tasks"].append(len(tasks[stage]))
            for metric in ("run", "cpu", "deserialize", "gc"):
                phases[f"stage {i}: tasks' {metric}"].append(sum(t[metric] for t in tasks[stage]))
        phases["last stage's end to the batch's"].append(
            trigger + duration - stage_span[stages[-1]][1]
        )
    print(f"\nSpark's event log, {len(phases['stage 0: span'])} batches, p50:")
    for name, values in phases.items():
        print(f"  {name:36s} {statistics.median(values):8.0f}")


def report(batches: list[Any], steps: dict[int, dict[str, float]], steps_before: int) -> None:
    """Every batch's rows, phases and steps; their p50/p95 after the first third."""
    from kafka_health.job.batch import SOURCE_READS

    step_rows = [steps[k] for k in sorted(steps) if k >= steps_before]
    for i, p in enumerate(batches):
        d = dict(p.durationMs)
        own = step_rows[i] if i < len(step_rows) else {}
        records = p.numInputRows // SOURCE_READS
        print(
            f"batch {p.batchId}: {records:6d} records {d.get('triggerExecution', 0):5d} ms "
            f"(addBatch {d.get('addBatch', 0)}, latestOffset {d.get('latestOffset', 0)}, "
            f"queryPlanning {d.get('queryPlanning', 0)}, walCommit {d.get('walCommit', 0)}, "
            f"commitOffsets {d.get('commitOffsets', 0)}) "
            + " ".join(f"{k} {v:.2f}" for k, v in own.items())
        )
    kept = batches[len(batches) // 3 :]
    durations = [p.batchDuration / 1000 for p in kept]
    print(f"\n{len(kept)} batches after the first third: duration {spread(durations)}")
    for key in sorted({k for p in kept for k in dict(p.durationMs)}):
        values = [dict(p.durationMs).get(key, 0) / 1000 for p in kept]
        print(f"  {key:20s} {spread(values)}")
    kept_steps = step_rows[len(step_rows) // 3 :]
    for key in sorted({k for s in kept_steps for k in s}):
        print(f"  step {key:15s} {spread([s.get(key, 0.0) for s in kept_steps])}")


if __name__ == "__main__":
    main()
