"""``kafka-health dev-cluster``: start, inspect, stop or inject faults into a local Kafka."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
from pathlib import Path

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.commands.interrupts import interrupted_by_signals
from kafka_health.dev.devcluster import ClusterSpec, DevClusterError, LocalCluster
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev_cluster_config import DevClusterConfig

NAME = "dev-cluster"
HELP = "start, inspect, stop or inject faults into a local Kafka cluster (JVM processes)"

BROKER_ACTIONS = ("stop", "kill", "freeze", "thaw", "start", "gc-pause")


def cluster_spec(config: DevClusterConfig, **overrides: object) -> ClusterSpec:
    """The dev cluster described by the config, with command-line overrides applied."""
    values: dict[str, object] = {
        "dir": Path(config.dir),
        "brokers": config.brokers,
        "mode": config.mode,
        "kafka_version": config.kafka_version,
        "zookeeper_kafka_version": config.zookeeper_kafka_version,
        "cache_dir": Path(config.cache_dir),
        "heap": config.heap,
        "zookeeper_session_timeout_ms": config.zookeeper_session_timeout_ms,
    }
    values.update({k: v for k, v in overrides.items() if v is not None})
    return ClusterSpec(**values)  # type: ignore[arg-type]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("action", choices=("up", "status", "down", *BROKER_ACTIONS))
    parser.add_argument("broker_id", nargs="?", type=int, help="broker for stop/kill/freeze/...")
    parser.add_argument("--dir", type=Path, help="cluster folder (default: devcluster.dir)")
    parser.add_argument("--brokers", type=int, choices=(1, 3), help="number of brokers (up)")
    parser.add_argument("--mode", choices=("kraft", "zookeeper"), help="KRaft 4.x or ZooKeeper 3.9")
    parser.add_argument(
        "--seconds",
        type=float,
        default=10.0,
        help="gc-pause: how long the broker's Full GC pauses it (default 10, the seed incident's)",
    )
    parser.add_argument(
        "--zk-session-timeout-ms", type=int, help="zookeeper.session.timeout.ms (zookeeper mode)"
    )
    parser.add_argument(
        "--security", choices=("none", "sasl", "tls"),
        help="up: a secured client listener beside PLAINTEXT (sasl: SCRAM-SHA-512, KRaft only; "
        "tls: a CA and certificate made for the run)",
    )  # fmt: skip
    parser.add_argument(
        "--cert-days", type=int,
        help="up --security tls: days the broker certificate is valid (default 7; 1 or 2 make "
        "one that BrokerCertificateExpiringSoon pages about)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args).devcluster
    directory = args.dir or Path(config.dir)
    try:
        if args.action == "up":
            return _up(config, args, directory)
        cluster = LocalCluster.load(directory)
        if args.action == "status":
            print_status(cluster)
        elif args.action == "down":
            return _down(cluster, directory)
        else:
            if args.broker_id is None:
                print(f"'{args.action}' needs a broker id", file=sys.stderr)
                return 2
            if args.action == "gc-pause":
                logged = cluster.gc_pause_broker(args.broker_id, args.seconds)
                print(f"broker {args.broker_id}: Full GC paused it for {logged:.3f} s (its gc.log)")
                return 0
            action = {
                "stop": cluster.stop_broker,
                "kill": cluster.kill_broker,
                "freeze": cluster.freeze_broker,
                "thaw": cluster.thaw_broker,
                "start": cluster.start_broker,
            }[args.action]
            action(args.broker_id)
            print(f"broker {args.broker_id}: {args.action} done")
    except DevClusterError as exc:
        print(f"dev-cluster: {exc}", file=sys.stderr)
        return 1
    return 0


def _up(config: DevClusterConfig, args: argparse.Namespace, directory: Path) -> int:
    spec = cluster_spec(
        config,
        dir=directory,
        brokers=args.brokers,
        mode=args.mode,
        zookeeper_session_timeout_ms=args.zk_session_timeout_ms,
        security=args.security,
        cert_days=args.cert_days,
    )
    checked = DevClusterConfig(**{**dataclasses.asdict(config), "brokers": spec.brokers})
    problems = checked.check("devcluster")
    if problems:
        for problem in problems:
            print(f"dev-cluster: {problem}", file=sys.stderr)
        return 2
    print(f"starting {spec.brokers} {spec.mode} broker(s) (Kafka {spec.version}) in {directory}")
    # SIGTERM while starting must not leave half a cluster behind: up() stops what it started.
    try:
        with interrupted_by_signals((signal.SIGTERM,)):
            cluster = LocalCluster.create(spec).up()
    except KeyboardInterrupt:
        print("dev-cluster: interrupted; the processes started so far are stopped", file=sys.stderr)
        return 130
    print_status(cluster)
    print(f"bootstrap servers: {','.join(cluster.bootstrap_servers)}")
    if cluster.security is not None:
        print(f"{cluster.security.listener} bootstrap servers: "
              f"{','.join(cluster.secure_bootstrap_servers)}")  # fmt: skip
        print("kafka.client settings for it: " + ", ".join(
            f"{k}: {v}" for k, v in cluster.security.client_settings().items()))  # fmt: skip
    return 0


def _down(cluster: LocalCluster, directory: Path) -> int:
    report = cluster.down()
    for line in report.lines():
        print(f"dev-cluster: {line}", file=sys.stderr)
    if report.survivors:
        return 1
    print(f"dev cluster in {directory} stopped")
    return 0


def print_status(cluster: LocalCluster) -> None:
    """One line per broker: id, process state, registration, address, log folder, GC log size.
    What runs is looked up afresh (``status``), so brokers started elsewhere show up too."""
    statuses = cluster.status()
    zk = cluster.zookeeper
    print(f"cluster {cluster.cluster_id} ({cluster.spec.mode}, Kafka {cluster.spec.version})")
    if zk is not None:
        state = process_state(zk.pid)
        print(f"zookeeper  {state:<8} pid={zk.pid} 127.0.0.1:{zk.port}")
    for s in statuses:
        live = "live" if s.registered else "not registered"
        print(
            f"broker {s.broker_id}  {s.process:<8} {live:<15} {s.bootstrap:<16} "
            f"logs={s.log_dir}  gc.log={s.gc_log_bytes} bytes"
        )
