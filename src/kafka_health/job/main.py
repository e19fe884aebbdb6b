"""Entry point of the streaming job, shared by ``kafka-health run`` and ``spark-submit``."""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from kafka_health.config import MonitorConfig, load_config
from kafka_health.errors import ConfigError, ConfigProblem

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
    if stop is None:
        stop = threading.Event()
        stop_on_signals(stop)
    spark = build_spark_session(config.spark)
    job = MonitorJob(spark, config)
    sinks = build_sinks(config, job)
    job.sinks.extend(sinks)
    log.info(
        "kafka-health job on %s: %d queries, checkpoints in %s",
        ",".join(config.kafka.bootstrap_servers),
        len(job.query_definitions()),
        config.spark.checkpoint_dir,
    )
    try:
        for sink in sinks:
            sink.start()
        job.run(stop)
    finally:
        for sink in reversed(sinks):
            sink.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``spark-submit streaming/monitor_job.py --config FILE``."""
    parser = argparse.ArgumentParser(prog="monitor_job", description=__doc__)
    parser.add_argument("--config", type=Path, required=True, help="YAML config file")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("kafka").setLevel(logging.WARNING)
    try:
        return run(load_config(args.config))
    except ConfigError as exc:
        print("configuration errors:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
