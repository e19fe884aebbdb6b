"""``kafka-health run --config FILE``: the streaming job on a local Spark."""

from __future__ import annotations

import argparse

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.job.main import run as run_job

NAME = "run"
HELP = "run the streaming health job (local Spark, Kafka connector resolved for you)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)


def run(args: argparse.Namespace) -> int:
    return run_job(config_from_args(args))
