"""``kafka-health bench soak``: the job under steady load for M minutes, its memory and state
sampled every minute.

A local 1-broker Kafka; ``kafka-health run`` as its own process (the way it is deployed); in
this process, :func:`~kafka_health.dev.loadgen.producer.run_load` sends a simulated cluster's
traffic (``partitions`` tracked partitions in the prober's snapshots, broker logs at ``rate``),
and every ``churn_every_s`` deletes ``churn_topics`` topics and creates new ones in their place
(their partitions vanish from the snapshots, new ones appear). Every minute: the resident
memory of the job's driver (Python), its JVM and its Python workers, the detectors' state
(views of partitions, bytes of the state file) and the checkpoint folder's size. The verdict
compares every sample after minute 5 with minute 5 (the issue's target: within +/-10 %;
the checkpoint bounded).
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_health.config import MonitorConfig
from kafka_health.detectors.config import JobConfig
from kafka_health.dev.loadgen.producer import LoadPlan, LoadStats, run_load
from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic
from kafka_health.dev.shipper_devcluster import write_config
from kafka_health.kafka_config import TopicsConfig
from kafka_health.spark.config import SparkConfig

SETTLED_MINUTE = 5


@dataclass(frozen=True)
class SoakPlan:
    minutes: float = 30.0
    shape: ClusterShape = dataclasses.field(
        default_factory=lambda: ClusterShape(brokers=50, partitions=50_000, topics=500)
    )
    rate: float = 500.0
    snapshot_interval_s: float = 10.0
    churn_every_s: float = 120.0
    churn_topics: int = 10
    seed: int = 1


def rss_by_role(root: int) -> dict[str, int]:
    """Resident bytes of ``root``'s process tree: ``driver`` (the root), ``jvm`` (java) and
    ``workers`` (pyspark's Python workers and their daemon)."""
    out = {"driver": 0, "jvm": 0, "workers": 0}
    todo, seen = [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        rss = next((int(line.split()[1]) * 1024 for line in status.splitlines()
                    if line.startswith("VmRSS:")), 0)  # fmt: skip
        role = (
            "driver" if pid == root
            else "jvm" if cmdline.split(" ", 1)[0].endswith("java")
            else "workers" if "pyspark" in cmdline
            else None
        )  # fmt: skip
        if role is not None:
            out[role] += rss
        todo.extend(int(c) for c in children)
    return out


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def state_figures(state_path: Path) -> tuple[int, int]:
    """(partition views the detectors hold, bytes of their state file)."""
    try:
        document = json.loads(state_path.read_text())
    except (OSError, ValueError):
        return 0, 0
    detectors = document.get("board", {}).get("detectors", {})
    views = len(detectors.get("isr", {}).get("views", []))
    return views, state_path.stat().st_size


def verdict(samples: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, Any]:
    """Per key: the value at minute 5, the range after it, and whether every later sample is
    within +/-10 % of it."""
    base = next((s for s in samples if s["minute"] >= SETTLED_MINUTE), None)
    out: dict[str, Any] = {}
    if base is None:
        return out
    later = [s for s in samples if s["minute"] > base["minute"]]
    for key in keys:
        values = [s[key] for s in later]
        ref = base[key]
        within = all(abs(v - ref) <= 0.1 * ref for v in values) if ref else not any(values)
        out[key] = {"at_minute_5": ref, "min_after": min(values, default=ref),
                    "max_after": max(values, default=ref), "within_10_percent": within}  # fmt: skip
    return out


def run_soak(plan: SoakPlan, say: Callable[[str], None] = print) -> dict[str, Any]:
    """The whole soak on a local 1-broker Kafka; the samples and the verdict."""
    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
    from kafka_health.dev.devcluster.ports import free_ports
    from kafka_health.dev.faults.monitor import MonitorProcesses

    with tempfile.TemporaryDirectory(prefix="kafka-health-soak-") as name:
        tmp = Path(name)
        cluster = LocalCluster.create(ClusterSpec(dir=tmp / "kafka", brokers=1)).up()
        monitor: MonitorProcesses | None = None
        try:
            base = MonitorConfig().with_bootstrap(cluster.bootstrap_servers)
            config = dataclasses.replace(
                base,
                topics=TopicsConfig(),
                spark=SparkConfig(checkpoint_dir=str(tmp / "checkpoints")),
                job=JobConfig(starting_offsets="latest"),
                alerting=dataclasses.replace(
                    base.alerting, state_dir=str(tmp / "alerting"),
                    exporter=dataclasses.replace(base.alerting.exporter, port=free_ports(1)[0]),
                ),
            )  # fmt: skip
            config_file = write_config(config, tmp / "monitor.yaml")
            monitor = MonitorProcesses(config_file, tmp / "logs")
            monitor.start("run")
            traffic = Traffic(plan.shape, config.topics, plan.seed)
            load_plan = LoadPlan(
                rate=plan.rate, seconds=plan.minutes * 60 + 30, canary_interval_s=1.0,
                snapshot_interval_s=plan.snapshot_interval_s,
            )  # fmt: skip
            started = time.monotonic()
            churned = [0.0]

            def churn(_stats: LoadStats) -> None:
                if time.monotonic() - churned[0] >= plan.churn_every_s:
                    if churned[0]:
                        traffic.rotate_topics(plan.churn_topics)
                    churned[0] = time.monotonic()

            stop = threading.Event()
            sender = threading.Thread(
                target=run_load, args=(config, traffic, load_plan, stop),
                kwargs={"on_tick": churn}, daemon=True,
            )  # fmt: skip
            sender.start()
            state_path = Path(config.spark.checkpoint_dir) / config.cluster_name / "monitor"
            samples: list[dict[str, Any]] = []
            run_pid = monitor.procs["run"].pid
            try:
                for minute in range(1, int(plan.minutes) + 1):
                    time.sleep(max(0.0, started + minute * 60 - time.monotonic()))
                    if not monitor.alive("run"):
                        raise RuntimeError("kafka-health run exited during the soak")
                    views, state_bytes = state_figures(state_path / "detectors" / "state.json")
                    sample = {
                        "minute": minute, **rss_by_role(run_pid), "state_views": views,
                        "state_bytes": state_bytes,
                        "checkpoint_bytes": folder_bytes(Path(config.spark.checkpoint_dir)),
                    }  # fmt: skip
                    samples.append(sample)
                    say(json.dumps(sample))
            finally:
                stop.set()
                sender.join(timeout=60)
        finally:
            if monitor is not None:
                monitor.stop()
            cluster.down()
    keys = ("driver", "jvm", "workers", "state_views", "state_bytes", "checkpoint_bytes")
    result = {"plan": dataclasses.asdict(plan), "samples": samples,
              "verdict": verdict(samples, keys)}  # fmt: skip
    say(json.dumps(result["verdict"], indent=2))
    return result
