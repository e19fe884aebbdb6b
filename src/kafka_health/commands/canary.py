"""``kafka-health canary``: probe every canary partition each interval, until Ctrl-C.

Also runs the cluster-state prober unless ``--no-cluster-state`` (or ``canary.cluster_state:
false``). Without ``kafka.bootstrap_servers`` it uses the local dev cluster in
``devcluster.dir`` (``kafka-health dev-cluster up``).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.config import DEV_CLUSTER_NAME, MonitorConfig, resolve_cluster_name
from kafka_health.kafka_access import refused_access

NAME = "canary"
HELP = "probe every partition of the canary topic (and snapshot the cluster state) until Ctrl-C"

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument(
        "--no-cluster-state", action="store_true", help="do not run the cluster-state prober"
    )
    parser.add_argument("--duration", type=float, help="stop by itself after this many seconds")


def run(args: argparse.Namespace) -> int:
    from kafka_health.services.canary import CanaryService

    config = with_cluster(config_from_args(args))
    if config is None:
        return 2
    refused = refused_access(config.clusters(), "canary")
    if refused is not None:
        print(refused, file=sys.stderr)
        return 2
    config = resolve_cluster_name(config)  # the `cluster` label of its /metrics
    service = CanaryService(config, cluster_state=False if args.no_cluster_state else None)
    service.start()
    if service.metrics_port is not None:
        print(f"canary metrics: http://{config.canary.metrics_host}:{service.metrics_port}/metrics")
    try:
        wait_for_signal(args.duration)
    finally:
        service.stop()
    return 0


def with_cluster(config: MonitorConfig) -> MonitorConfig | None:
    """The config, pointed at the local dev cluster when it names no bootstrap servers (then
    named ``local`` unless ``cluster_name`` is set)."""
    if config.kafka.bootstrap_servers:
        return config
    from kafka_health.dev.devcluster import DevClusterError, LocalCluster

    try:
        cluster = LocalCluster.load(Path(config.devcluster.dir))
    except (DevClusterError, OSError, ValueError) as exc:
        print(
            f"no kafka.bootstrap_servers and no dev cluster in {config.devcluster.dir}: {exc}",
            file=sys.stderr,
        )
        return None
    named = config if config.cluster_name else replace(config, cluster_name=DEV_CLUSTER_NAME)
    return named.with_bootstrap(cluster.bootstrap_servers)


def wait_for_signal(duration_s: float | None) -> None:
    """Block until SIGINT/SIGTERM (or ``duration_s``), restoring the handlers afterwards."""
    stop = threading.Event()

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        log.info("%s received: stopping", signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        stop.wait(duration_s)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
