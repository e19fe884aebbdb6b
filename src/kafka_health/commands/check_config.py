"""``kafka-health check-config FILE``: validate a config and print it with secrets redacted."""

from __future__ import annotations

import argparse
from pathlib import Path

from kafka_health.config import load_config
from kafka_health.configuration.redact import dump_redacted

NAME = "check-config"
HELP = "validate a config file; print the effective config (secrets redacted) or the errors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the YAML config file")


def run(args: argparse.Namespace) -> int:
    config = load_config(args.file)  # ConfigError -> exit 2 with every problem, in cli.main
    print(f"# {args.file}: valid. Effective configuration (secrets redacted):")
    print(dump_redacted(config), end="")
    return 0
