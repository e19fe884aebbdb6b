"""``kafka-health demo``: the whole pipeline on a local 3-broker Kafka cluster, until Ctrl-C.

It starts, in order: the cluster (JVM processes), the log shipper, the canary with the
cluster-state prober, a console pager (a real webhook receiver), the alert service with its
``/metrics`` endpoint, and the streaming job; every ``--interval`` seconds it prints the
headline signals. Ctrl-C (or SIGTERM) stops everything in reverse order. Try, in another
shell, ``kafka-health dev-cluster freeze 2 --dir var/devcluster`` and watch the pages.
"""

from __future__ import annotations

import argparse
import dataclasses
import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from kafka_health.commands.common import add_config_argument, config_from_args
from kafka_health.commands.demo_pager import ConsolePager
from kafka_health.commands.dev_cluster import cluster_spec, print_status
from kafka_health.config import MonitorConfig, ReceiverConfig
from kafka_health.devcluster import LocalCluster
from kafka_health.kafka_clients import python_client_options
from kafka_health.model import Signal, labels

KRAFT_BROKER_SESSION_TIMEOUT_MS = 9000
"""broker.session.timeout.ms, Kafka's default, which the dev cluster keeps."""

NAME = "demo"
HELP = "run a local 3-broker Kafka cluster with the shipper, canary, job and alerts until Ctrl-C"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--dir", type=Path, help="cluster folder (default: devcluster.dir)")
    parser.add_argument(
        "--duration", type=float, default=None, help="stop by itself after this many seconds"
    )
    parser.add_argument("--interval", type=float, default=30.0, help="seconds between reports")
    parser.add_argument(
        "--cluster-only", action="store_true", help="start only the Kafka cluster (no monitor)"
    )


def demo_config(
    base: MonitorConfig,
    cluster: LocalCluster,
    pager_url: str,
    transport: LocalCluster | None = None,
) -> MonitorConfig:
    """The monitor's config for a fresh demo cluster: state under its folder, pages to the
    console pager, metrics on free ports, GC pauses judged against its brokers' session
    timeout; the monitor's own topics on ``transport`` when given (else on ``cluster``)."""
    home = cluster.spec.dir.resolve()
    config = base.with_bootstrap(cluster.bootstrap_servers)
    if transport is not None:
        config = config.with_transport(transport.bootstrap_servers)
    receiver = ReceiverConfig(name="console", url=pager_url, timeout_s=5.0)
    session_ms = (
        cluster.spec.zookeeper_session_timeout_ms
        if cluster.spec.mode == "zookeeper"
        else KRAFT_BROKER_SESSION_TIMEOUT_MS
    )
    return dataclasses.replace(
        config,
        spark=dataclasses.replace(config.spark, checkpoint_dir=str(home / "checkpoints")),
        job=dataclasses.replace(
            config.job, starting_offsets="earliest", session_timeout_ms=session_ms
        ),
        canary=dataclasses.replace(config.canary, state_dir=str(home / "canary"), metrics_port=0),
        alerting=dataclasses.replace(
            config.alerting,
            state_dir=str(home / "alerting"),
            receivers=[receiver],
            exporter=dataclasses.replace(config.alerting.exporter, port=0),
        ),
    )


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    spec = cluster_spec(config.devcluster, dir=args.dir, brokers=3)
    stop = threading.Event()

    def _request_stop(signum: int, _frame: FrameType | None) -> None:
        print(f"\n{signal.Signals(signum).name} received: stopping the demo")
        stop.set()

    previous = {s: signal.signal(s, _request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    print(f"kafka-health demo: starting a 3-broker Kafka {spec.version} cluster in {spec.dir}")
    cluster = LocalCluster.create(spec)
    stack: list[Any] = []  # started parts, stopped in reverse order
    try:
        cluster.up()
        print_status(cluster)
        print(f"bootstrap servers: {','.join(cluster.bootstrap_servers)}")
        if args.cluster_only:
            print_topics(
                python_client_options(config.with_bootstrap(cluster.bootstrap_servers).kafka)
            )
            job = None
        else:
            job = start_monitor(config, cluster, stack)
            # PySpark's SparkContext installs its own SIGINT handler (cancel jobs, raise
            # KeyboardInterrupt): ours must come back so Ctrl-C stops every part in order.
            for sig in previous:
                signal.signal(sig, _request_stop)
        print("running; press Ctrl-C to stop")
        deadline = None if args.duration is None else time.monotonic() + args.duration
        while not stop.wait(timeout=_next_wait(args.interval, deadline)):
            if deadline is not None and time.monotonic() >= deadline:
                break
            print_status(cluster)
            if job is not None:
                print_signals(job.signals())
    finally:
        stop.set()
        for part in reversed(stack):
            part()
        cluster.down()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        print("demo cluster stopped")
    return 0


def start_monitor(
    config: MonitorConfig,
    cluster: LocalCluster,
    stack: list[Any],
    pager: ConsolePager | None = None,
    transport: LocalCluster | None = None,
) -> Any:
    """Start pager, shipper, canary, alert service and job; push each one's stop on ``stack``
    (pass ``pager`` to keep a handle on the pages, ``transport`` to carry the monitor's own
    topics on a separate cluster)."""
    from kafka_health.canary.service import CanaryService
    from kafka_health.job.app import MonitorJob
    from kafka_health.job.sinks import build_sinks
    from kafka_health.shipper.devcluster import shipper_config_for, start_shipper_thread
    from kafka_health.spark import build_spark_session

    pager = pager or ConsolePager()
    pager.start()
    stack.append(pager.stop)
    monitor = demo_config(config, cluster, pager.url, transport)
    shipper = start_shipper_thread(shipper_config_for(cluster, monitor))
    stack.append(shipper.stop)
    print(f"log shipper: broker logs -> {monitor.topics.broker_logs}")
    canary = CanaryService(monitor)
    canary.start()
    stack.append(canary.stop)
    print(f"canary: probing every partition of {monitor.topics.canary} "
          f"(metrics on port {canary.metrics_port})")  # fmt: skip
    print("starting Spark and the streaming job (the first batches take a minute) ...")
    spark = build_spark_session(monitor.spark)
    job = MonitorJob(spark, monitor)
    sinks = build_sinks(monitor, job)
    for sink in sinks:
        sink.start()
        stack.append(sink.stop)
        job.sinks.append(sink)
    job_stop = threading.Event()
    runner = threading.Thread(target=job.run, args=(job_stop,), name="kafka-health-job")
    runner.start()

    def stop_job() -> None:
        job_stop.set()
        runner.join(timeout=monitor.job.stop_timeout_s + 30)

    stack.append(stop_job)
    for sink in sinks:
        port = getattr(getattr(sink, "exporter", None), "port", None)
        if port:
            print(f"alerts and signals: http://127.0.0.1:{port}/metrics")
    print(f"pages go to the console pager at {pager.url}")
    return job


HEADLINES = (
    ("canary_availability_ratio", labels(), "canary availability", "{:.1%}"),
    ("canary_ack_latency_seconds", labels(quantile="0.99"), "ack p99", "{:.3f} s"),
    ("under_replicated_partitions", labels(), "under-replicated", "{:.0f}"),
    ("under_min_isr_partitions", labels(), "under min ISR", "{:.0f}"),
    ("leader_elections_per_minute", labels(), "elections/min", "{:.0f}"),
    ("canary_lost_writes", None, "lost writes", "{:.0f}"),
)


def print_signals(signals: list[Signal]) -> None:
    """One line with the headline signals (what an on-call engineer looks at first)."""
    parts = []
    for name, scope, title, fmt in HEADLINES:
        values = [
            s.value for s in signals if s.name == name and (scope is None or s.labels == scope)
        ]
        if values:
            parts.append(f"{title} {fmt.format(sum(values) if scope is None else values[0])}")
    full_gc = sum(s.value for s in signals if s.name == "full_gc_count")
    parts.append(f"full GCs {full_gc:.0f}")
    for stale in (s for s in signals if s.name == "signal_stale" and s.value > 0):
        age = stale.details.get("age_s", "?")
        parts.append(f"{stale.label('source')} UNKNOWN (no new data for {age} s)")
    print("signals: " + ("; ".join(parts) if parts else "(waiting for the first batches)"))


def _next_wait(interval: float, deadline: float | None) -> float:
    if deadline is None:
        return interval
    return max(0.0, min(interval, deadline - time.monotonic()))


def print_topics(client_options: dict[str, object]) -> None:
    """List the cluster's topics with partition count, leaders and under-replicated count."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(client_id="kafka-health-demo", **client_options)
    try:
        described = admin.describe_topics()
    finally:
        admin.close()
    print(f"topics ({len(described)}):")
    for topic in sorted(described, key=lambda t: str(_get(t, "name", "topic"))):
        partitions = topic["partitions"]
        leaders = sorted({_get(p, "leader_id", "leader") for p in partitions})
        under = sum(
            1
            for p in partitions
            if len(_get(p, "isr_nodes", "isr")) < len(_get(p, "replica_nodes", "replicas"))
        )
        print(
            f"  {_get(topic, 'name', 'topic'):<40} partitions={len(partitions)} "
            f"leaders={leaders} under_replicated={under}"
        )


def _get(mapping: dict[str, Any], key: str, old_key: str) -> Any:
    """kafka-python 3 names (``name``, ``leader_id``...) with 2.x's as fallback."""
    return mapping[key] if key in mapping else mapping[old_key]
