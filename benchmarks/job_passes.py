"""Where the job's time goes beside Spark's no-work read, pass by pass.

``bench throughput``'s backlog on a local 1-broker Kafka, read alternately by the limit query
(Spark's Kafka source, ``noop``) and the job (:meth:`MonitorJob.run_available_now`), ``--passes``
times each, every pass new queries as ``bench throughput``'s warm-up passes are. Per pass: the
rate (records over the batches' durations), Spark's steps of those batches (``durationMs``),
the CPU seconds of each process (the Spark JVM, the Kafka broker, this Python) and of the
JVM's threads by name (its task threads, the JIT's compilers, GC, the listener bus). The last
line: the last three passes' mean rates and ratio.

    .venv/bin/python benchmarks/job_passes.py [--passes 7] [--seconds 15]

The JIT keeps compiling for many passes (each pass's queries bring planning code paths of
their own), and its compiler threads take the same two cores the tasks need: the thread lines
show how much of a pass that was. Writes nothing to the repo.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.idle_cpu import TICK, stat_ticks
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.loadgen import throughput as bench
from kafka_health.dev.loadgen.traffic import Traffic


def process_cpu(kinds: dict[str, Callable[[str], bool]]) -> dict[str, float]:
    """CPU seconds so far of the processes whose command line each of ``kinds`` accepts."""
    out = dict.fromkeys(kinds, 0.0)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            ticks = stat_ticks(entry / "stat")
        except OSError:
            continue
        for name, accepts in kinds.items():
            if accepts(command):
                out[name] += ticks / TICK
    return out


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of ``pid``'s threads, by name with its numbers folded (``#``)."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            ticks = stat_ticks(task / "stat")
        except OSError:
            continue
        key = name if name.startswith(("C1 ", "C2 ")) else re.sub(r"\d+", "#", name)
        out[key] = out.get(key, 0.0) + ticks / TICK
    return out


def spent(before: dict[str, float], after: dict[str, float], least: float = 0.05) -> str:
    """The CPU seconds between two snapshots, largest first, those under ``least`` left out."""
    moved = {k: after[k] - before.get(k, 0.0) for k in after}
    return " ".join(f"{k}={v:.2f}" for k, v in sorted(moved.items(), key=lambda kv: -kv[1])
                    if v >= least)  # fmt: skip


def steps(progress: bench.ProgressLog, name: str, since: int) -> str:
    """The seconds of each step Spark reports (``durationMs``) over the query's batches
    from its ``since``-th progress on that read records: ``addBatch`` is the work."""
    total: dict[str, float] = {}
    batches = [p for p in progress.by_query.get(name, [])[since:] if p.numInputRows > 0]
    for p in batches:
        for step, ms in (p.durationMs or {}).items():
            total[step] = total.get(step, 0.0) + ms / 1000
    shown = " ".join(f"{k}={v:.2f}" for k, v in sorted(total.items(), key=lambda kv: -kv[1]))
    return f"{len(batches)} batch(es): {shown}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=15.0, help="backlog: seconds of traffic")
    args = parser.parse_args()

    from kafka_health.job.app import MonitorJob
    from kafka_health.spark import build_spark_session

    plan = dataclasses.replace(bench.ThroughputPlan(), seconds=args.seconds)
    kinds: dict[str, Callable[[str], bool]] = {
        "spark": lambda c: "pyspark-shell" in c or "SparkSubmit" in c,
        "broker": lambda c: "kafka.Kafka " in c,
        "python": lambda c: "job_passes.py" in c,
    }
    with tempfile.TemporaryDirectory(prefix="kafka-health-job-passes-") as name:
        tmp = Path(name)
        cluster = LocalCluster.create(ClusterSpec(dir=tmp / "kafka", brokers=1)).up()
        try:
            config = bench.throughput_config(tmp, cluster.bootstrap_servers, None)
            records = bench.fill(config, Traffic(plan.shape, config.topics, plan.seed), plan)
            print(f"backlog: {records:,} records")
            spark = build_spark_session(config.spark)
            jvm = int(spark._jvm.java.lang.ProcessHandle.current().pid())  # type: ignore[union-attr]
            progress = bench.ProgressLog()
            spark.streams.addListener(progress.listener())
            rates: list[tuple[float, float]] = []
            for n in range(args.passes):
                procs, threads = process_cpu(kinds), thread_cpu(jvm)
                limit_since = len(progress.by_query.get("limit", []))
                started = time.monotonic()
                limit = bench.limit_rate(spark, config, tmp / f"limit-{n}")
                took = time.monotonic() - started
                cpu = f"{spent(procs, process_cpu(kinds))}\n    {spent(threads, thread_cpu(jvm))}"
                print(f"pass {n} limit {limit:,.0f} records/s, {took:.2f} s: {cpu}")
                bench._drain(progress, "limit", 1.0)
                print(f"    {steps(progress, 'limit', limit_since)}")
                procs, threads = process_cpu(kinds), thread_cpu(jvm)
                since = len(progress.by_query.get("monitor", []))
                started = time.monotonic()
                MonitorJob(spark, bench.warm_up_config(config, tmp, n)).run_available_now()
                took = time.monotonic() - started
                job_procs, job_threads = process_cpu(kinds), thread_cpu(jvm)
                bench._drain(progress, "monitor", 2.0)
                job, _ = progress.rate("monitor", 1, since)
                print(
                    f"pass {n} job {job:,.0f} records/s, {took:.2f} s: "
                    f"{spent(procs, job_procs)}\n    {spent(threads, job_threads)}"
                )
                print(f"    {steps(progress, 'monitor', since)}")
                rates.append((limit, job))
            last = rates[-3:]
            limit_mean = sum(r[0] for r in last) / len(last)
            job_mean = sum(r[1] for r in last) / len(last)
            ratio = sum(r[1] / r[0] for r in last) / len(last)
            print(f"last {len(last)} passes: limit {limit_mean:,.0f}, job {job_mean:,.0f} "
                  f"records/s, job / limit {ratio:.3f}")  # fmt: skip
        finally:
            cluster.down()


if __name__ == "__main__":
    main()
