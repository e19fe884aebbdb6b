"""Entry point of the streaming job, shared by ``kafka-health run`` and ``spark-submit``."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from kafka_health.config import MonitorConfig, load_config, resolve_cluster_name
from kafka_health.errors import ConfigError, ConfigProblem, StateFormatError
from kafka_health.kafka_access import refused_access
from kafka_health.logs import configure_logging
from kafka_health.model import Signal

log = logging.getLogger(__name__)


def run(config: MonitorConfig, stop: threading.Event | None = None) -> int:
    """Run the job until ``stop`` is set (by default: until SIGTERM or SIGINT)."""
    from kafka_health.job.app import MonitorJob, stop_on_signals
    from kafka_health.job.sinks import build_sinks
    from kafka_health.spark import build_spark_session

    if not config.kafka.bootstrap_servers:
        raise ConfigError(
            [ConfigProblem("kafka.bootstrap_servers", "the job needs the cluster to monitor")]
        )
    refused = refused_access(config.clusters(), "run")
    if refused is not None:
        print(f"kafka-health {refused}", file=sys.stderr)
        return 2
    # Before anything is named or labelled by it; kept beside the checkpoints it names.
    config = resolve_cluster_name(config, kept_in=Path(config.spark.checkpoint_dir))
    spark = build_spark_session(config.spark)
    if stop is None:  # after the session: PySpark installs a SIGINT handler of its own
        stop = threading.Event()
        stop_on_signals(stop)
    job = MonitorJob(spark, config)
    try:
        job.start()  # a state a newer release wrote is refused before any sink starts
    except StateFormatError as exc:
        print(f"kafka-health run: {exc}", file=sys.stderr)
        return 2
    sinks = build_sinks(config, job)
    job.sinks.extend(sinks)
    log.info(
        "kafka-health job on %s (own topics on %s): %d queries, checkpoints in %s",
        ",".join(config.kafka.bootstrap_servers),
        ",".join(config.transport_kafka().bootstrap_servers),
        len(job.query_definitions()),
        config.spark.checkpoint_dir,
    )
    try:
        for sink in sinks:
            sink.start()
        job.run(stop)
    except StateFormatError as exc:
        print(f"kafka-health run: {exc}", file=sys.stderr)
        return 2
    finally:
        for sink in reversed(sinks):
            sink.stop()
    return 0


def run_once(config: MonitorConfig) -> list[Signal]:
    """Process what the topics hold now with every query, then return the signals."""
    from kafka_health.job.app import MonitorJob
    from kafka_health.spark import build_spark_session

    job = MonitorJob(build_spark_session(config.spark), config)
    job.run_available_now()
    return job.board.signals()


def print_signals(signals: list[Signal]) -> None:
    """One JSON object per signal, sorted, on stdout."""
    for s in sorted(signals, key=lambda s: (s.name, s.labels)):
        record = {"name": s.name, "labels": dict(s.labels), "value": s.value, "at": s.at}
        print(json.dumps({**record, "details": s.details}, sort_keys=True, default=str))


def main(argv: Sequence[str] | None = None) -> int:
    """``spark-submit streaming/monitor_job.py --config FILE [--once]``."""
    parser = argparse.ArgumentParser(prog="monitor_job", description=__doc__)
    parser.add_argument("--config", type=Path, required=True, help="YAML config file")
    parser.add_argument(
        "--once",
        action="store_true",
        help="process what the topics hold now, print the signals as JSON lines, exit",
    )
    args = parser.parse_args(argv)
    configure_logging()
    try:
        config = load_config(args.config)
        if args.once:
            print_signals(run_once(config))
            return 0
        return run(config)
    except ConfigError as exc:
        print("configuration errors:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
