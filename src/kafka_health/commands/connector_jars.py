"""``kafka-health connector-jars``: the Spark Kafka connector's jars, comma-separated.

For ``spark-submit --jars "$(kafka-health connector-jars)" streaming/monitor_job.py ...``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.spark.connector import ensure_kafka_connector_jars

NAME = "connector-jars"
HELP = "print the Spark Kafka connector's jar paths (for spark-submit --jars)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)


def run(args: argparse.Namespace) -> int:
    import pyspark

    config = config_from_args(args)
    if config.spark.jars:
        jars = [Path(j).expanduser() for j in config.spark.jars]
    else:
        jars = ensure_kafka_connector_jars(Path(config.spark.cache_dir), pyspark.__version__)
    print(",".join(str(j) for j in jars))
    return 0
