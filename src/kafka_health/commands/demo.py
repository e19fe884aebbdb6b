"""``kafka-health demo``: a local 3-broker Kafka cluster under the monitor, until Ctrl-C.

For now it starts the cluster, shows its brokers and topics and keeps reporting them; later
stages add the log shipper, the canary and the streaming job to the same command.
"""

from __future__ import annotations

import argparse
import signal
import threading
import time
from pathlib import Path
from types import FrameType

from kafka_health.commands.common import add_config_argument, config_from_args
from kafka_health.commands.dev_cluster import cluster_spec, print_status
from kafka_health.devcluster import LocalCluster
from kafka_health.kafka_clients import python_client_options

NAME = "demo"
HELP = "run a local 3-broker Kafka cluster under the monitor until Ctrl-C"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--dir", type=Path, help="cluster folder (default: devcluster.dir)")
    parser.add_argument(
        "--duration", type=float, default=None, help="stop by itself after this many seconds"
    )
    parser.add_argument("--interval", type=float, default=30.0, help="seconds between reports")


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    spec = cluster_spec(config.devcluster, dir=args.dir, brokers=3)
    stop = threading.Event()

    def _request_stop(signum: int, _frame: FrameType | None) -> None:
        print(f"\n{signal.Signals(signum).name} received: stopping the demo cluster")
        stop.set()

    previous = {s: signal.signal(s, _request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    print(
        f"kafka-health demo: starting a local 3-broker Kafka {spec.version} cluster in {spec.dir}"
    )
    cluster = LocalCluster.create(spec)
    try:
        cluster.up()
        client_config = config.with_bootstrap(cluster.bootstrap_servers)
        print_status(cluster)
        print(f"bootstrap servers: {','.join(cluster.bootstrap_servers)}")
        print_topics(python_client_options(client_config.kafka))
        print("running; press Ctrl-C to stop")
        deadline = None if args.duration is None else time.monotonic() + args.duration
        while not stop.wait(timeout=_next_wait(args.interval, deadline)):
            if deadline is not None and time.monotonic() >= deadline:
                break
            print_status(cluster)
    finally:
        cluster.down()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        print("demo cluster stopped")
    return 0


def _next_wait(interval: float, deadline: float | None) -> float:
    if deadline is None:
        return interval
    return max(0.0, min(interval, deadline - time.monotonic()))


def print_topics(client_options: dict[str, object]) -> None:
    """List the cluster's topics with partition count, leaders and ISR sizes."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(client_id="kafka-health-demo", **client_options)
    try:
        described = admin.describe_topics()
    finally:
        admin.close()
    print(f"topics ({len(described)}):")
    for topic in sorted(described, key=lambda t: str(t["topic"])):
        partitions = topic["partitions"]
        leaders = sorted({p["leader"] for p in partitions})
        under = sum(1 for p in partitions if len(p["isr"]) < len(p["replicas"]))
        print(
            f"  {topic['topic']:<40} partitions={len(partitions)} leaders={leaders} "
            f"under_replicated={under}"
        )
