"""``kafka-health ship-logs``: ship broker logs and GC logs into Kafka, at least once."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.config import DEV_CLUSTER_NAME, resolve_cluster_name
from kafka_health.dev.devcluster import DevClusterError, LocalCluster
from kafka_health.kafka_access import refused_access

NAME = "ship-logs"
HELP = "tail broker and GC logs and produce them to the broker-log topic (at least once)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--dev-cluster",
        type=Path,
        metavar="DIR",
        help="ship the logs of the local dev cluster in DIR (its brokers and bootstrap servers "
        "replace shipper.brokers and kafka.bootstrap_servers)",
    )


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.dev_cluster is not None:
        from kafka_health.dev.shipper_devcluster import shipper_config_for

        try:
            cluster = LocalCluster.load(args.dev_cluster)
        except DevClusterError as exc:
            print(f"ship-logs: {exc}", file=sys.stderr)
            return 1
        config = shipper_config_for(cluster, config, metrics_port=config.shipper.metrics_port)
        if not config.cluster_name:
            config = replace(config, cluster_name=DEV_CLUSTER_NAME)
    elif not config.cluster_name and not config.kafka.bootstrap_servers:
        print(
            "ship-logs: set cluster_name (the `cluster` label of its /metrics), or "
            "kafka.bootstrap_servers to read the monitored cluster's id",
            file=sys.stderr,
        )
        return 2
    if not config.shipper.brokers:
        print("ship-logs: shipper.brokers lists no broker: nothing to ship", file=sys.stderr)
        return 2
    if not config.transport_kafka().bootstrap_servers:
        print(
            "ship-logs: transport.bootstrap_servers and kafka.bootstrap_servers are empty: "
            "nowhere to ship",
            file=sys.stderr,
        )
        return 2

    refused = refused_access(config.clusters(), "ship-logs")
    if refused is not None:
        print(refused, file=sys.stderr)
        return 2
    from kafka_health.services.shipper import run_shipper

    config = resolve_cluster_name(config)  # the `cluster` label of its /metrics

    stop = threading.Event()

    def _request_stop(signum: int, _frame: FrameType | None) -> None:
        print(f"{signal.Signals(signum).name} received: delivering and saving positions")
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _request_stop)
    run_shipper(config, stop)
    return 0
