"""The job's CPU and batch durations at idle on a healthy 3-broker cluster, run as an operator
runs it: ``ship-logs``, ``canary`` and ``run`` as separate processes on a local dev cluster.

CPU = utime + stime ticks of the ``run`` process and its descendants (the Spark JVM) over the
measured interval, after a warm-up; batch durations = ``kafka_health_job_batch_duration_seconds``
each time ``kafka_health_job_last_batch_timestamp_seconds`` moves (the listener's
``StreamingQueryProgress.batchDuration``), per query, with the mean of each phase of
``durationMs`` (``kafka_health_job_batch_phase_seconds``) and of each step of the
``foreachBatch`` body (``kafka_health_job_batch_step_seconds``, shown as ``addBatch.STEP``).
``--code`` runs another checkout's ``src`` (e.g. the job before a change) with this harness.

    .venv/bin/python benchmarks/idle_cpu.py [--seconds 180] [--warmup 90] [--code DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kafka_health.config import MonitorConfig
from kafka_health.dev.demo import demo_config
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.devcluster.ports import free_ports
from kafka_health.dev.faults.monitor import MonitorProcesses, scrape
from kafka_health.dev.shipper_devcluster import shipper_config_for, write_config

TICK = os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(p)], capture_output=True,
                                  text=True, check=False).stdout.split()  # fmt: skip
        todo += [int(c) for c in children]
    return out


def process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def stat_ticks(stat: Path) -> int:
    """utime + stime of a ``/proc`` stat file (a process's or a thread's), in clock ticks."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += stat_ticks(Path(f"/proc/{pid}/stat"))
        except OSError:
            continue
    return total


def compiles(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float]) -> float:
    """The job's ``kafka_health_job_codegen_compiles_total`` (NaN when not exported)."""
    return samples.get(("kafka_health_job_codegen_compiles_total", ()), float("nan"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--warmup", type=float, default=90.0)
    parser.add_argument("--trigger", type=float, default=None, help="job.trigger_interval_s")
    parser.add_argument("--code", type=Path, default=None, help="checkout whose src/ runs")
    parser.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a spark.conf setting for the job (repeatable)")  # fmt: skip
    args = parser.parse_args()
    if args.code is not None:
        os.environ["PYTHONPATH"] = str(args.code.resolve() / "src")
    with tempfile.TemporaryDirectory(prefix="idle-cpu-") as tmp:
        work = Path(tmp)
        cluster = LocalCluster.create(ClusterSpec(dir=work / "kafka", brokers=3)).up()
        monitor = None
        try:
            (port,) = free_ports(1)
            config = shipper_config_for(
                cluster, demo_config(MonitorConfig(), cluster, "http://127.0.0.1:9/")
            )
            config = dataclasses.replace(
                config,
                spark=dataclasses.replace(config.spark, checkpoint_dir=str(work / "checkpoints")),
                alerting=dataclasses.replace(
                    config.alerting,
                    exporter=dataclasses.replace(
                        config.alerting.exporter, host="127.0.0.1", port=port
                    ),
                ),
            )
            extra = dict(item.split("=", 1) for item in args.spark_conf)
            if extra:
                config = dataclasses.replace(
                    config, spark=dataclasses.replace(config.spark, conf=extra)
                )
            if args.trigger is not None:
                config = dataclasses.replace(
                    config, job=dataclasses.replace(config.job, trigger_interval_s=args.trigger)
                )
            write_config(config, work / "monitor.yaml")
            monitor = MonitorProcesses(work / "monitor.yaml", work / "monitor")
            monitor.start()
            run = monitor.procs["run"].pid
            time.sleep(args.warmup)
            pids = tree(run)
            start_ticks, started = cpu_ticks(pids), time.monotonic()
            start_each = {pid: cpu_ticks([pid]) for pid in pids}
            compiles_before = compiles(scrape(port))
            durations: dict[str, list[float]] = {}
            phases: dict[tuple[str, str], list[float]] = {}
            last_at: dict[tuple[tuple[str, str], ...], float] = {}
            while time.monotonic() - started < args.seconds:
                samples = scrape(port)
                for (name, scope), value in samples.items():
                    if name != "kafka_health_job_last_batch_timestamp_seconds":
                        continue
                    if last_at.get(scope) not in (None, value):
                        query = dict(scope).get("query", "?")
                        durations.setdefault(query, []).append(
                            samples.get(("kafka_health_job_batch_duration_seconds", scope), 0.0)
                        )
                        for (metric, labels), seconds in samples.items():
                            named = dict(labels)
                            if named.get("query") != query:
                                continue
                            if metric == "kafka_health_job_batch_phase_seconds":
                                phases.setdefault((query, named["phase"]), []).append(seconds)
                            elif metric == "kafka_health_job_batch_step_seconds":
                                key = (query, "addBatch." + named["step"])
                                phases.setdefault(key, []).append(seconds)
                    last_at[scope] = value
                time.sleep(0.5)
            elapsed = time.monotonic() - started
            cores = (cpu_ticks(pids) - start_ticks) / TICK / elapsed
            print(f"job (run + Spark JVM, {len(pids)} processes): {cores:.2f} cores on average "
                  f"over {elapsed:.0f} s after {args.warmup:.0f} s of warm-up")  # fmt: skip
            for pid in pids:
                each = (cpu_ticks([pid]) - start_each[pid]) / TICK / elapsed
                print(f"  {process_name(pid)} (pid {pid}): {each:.2f} cores")
            compiled = compiles(scrape(port))
            print(f"generated classes compiled by the driver: {compiled - compiles_before:.0f} "
                  f"while measured, {compiled:.0f} since the start")  # fmt: skip
            for query, seen in sorted(durations.items()):
                ordered = sorted(seen)
                p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
                median, peak = statistics.median(ordered), ordered[-1]
                print(f"query {query}: {len(seen)} batches; duration median {median:.2f} s, "
                      f"p95 {p95:.2f} s, max {peak:.2f} s")  # fmt: skip
                spent = {ph: statistics.mean(v) for (q, ph), v in phases.items() if q == query}
                print("  mean phases: " + ", ".join(
                    f"{ph} {sec:.2f} s" for ph, sec in sorted(spent.items(), key=lambda x: -x[1])
                ))  # fmt: skip
            if not durations:
                print("no batch completed while measured")
        finally:
            if monitor is not None:
                monitor.stop()
            cluster.down()


if __name__ == "__main__":
    main()
