"""``kafka-health connector-jars``: the jars the job needs on a Spark cluster, comma-separated:
the Spark Kafka connector's and the parser's (built here from source on first use).

For ``spark-submit --jars "$(kafka-health connector-jars)" streaming/monitor_job.py ...``.
"""

from __future__ import annotations

import argparse

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.spark.session import session_jars

NAME = "connector-jars"
HELP = "print the Spark Kafka connector's and the parser's jar paths (for spark-submit --jars)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    print(",".join(str(j) for j in session_jars(config.spark)))
    return 0
