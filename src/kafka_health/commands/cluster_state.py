"""``kafka-health cluster-state``: the cluster-state prober alone, until Ctrl-C (or ``--once``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from kafka_health.commands.canary import wait_for_signal, with_cluster
from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.config import resolve_cluster_name
from kafka_health.kafka_access import refused_access

NAME = "cluster-state"
HELP = "snapshot every partition's leader, replicas and ISR to the cluster-state topic"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--once", action="store_true", help="one snapshot, print its summary")
    parser.add_argument("--duration", type=float, help="stop by itself after this many seconds")


def run(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry

    from kafka_health.metrics_endpoint import serve_metrics
    from kafka_health.services.cluster_state import ClusterStateService

    config = with_cluster(config_from_args(args))
    if config is None:
        return 2
    refused = refused_access(config.clusters(), "cluster-state")
    if refused is not None:
        print(refused, file=sys.stderr)
        return 2
    config = resolve_cluster_name(config)  # the `cluster` label of its /metrics
    registry = CollectorRegistry()
    service = ClusterStateService(config, registry)
    if args.once:
        try:
            summary = service.snapshot_once()
        except Exception as exc:
            print(f"cluster-state: snapshot failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(dataclasses.asdict(summary)))
        return 0
    server = None
    settings = config.cluster_state
    if settings.metrics_port is not None:
        endpoints = config.metrics_endpoints
        server, port = serve_metrics(
            registry, settings.metrics_host, settings.metrics_port, endpoints,
            cluster=config.cluster_name,
        )  # fmt: skip
        print(f"cluster-state metrics: {endpoints.scheme}://{settings.metrics_host}:{port}/metrics")
    service.start()
    try:
        wait_for_signal(args.duration)
    finally:
        service.stop()
        if server is not None:
            server.shutdown()
    return 0
