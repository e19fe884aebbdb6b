"""Helpers shared by sub-commands: the --config option and loading it."""

from __future__ import annotations

import argparse
from pathlib import Path

from kafka_health.config import MonitorConfig, load_config

DEFAULT_CONFIG = Path("conf/monitor.yaml")


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help=f"YAML config file (default: {DEFAULT_CONFIG} if present, else built-in defaults)",
    )


def config_from_args(args: argparse.Namespace) -> MonitorConfig:
    """The config named by --config, else conf/monitor.yaml when present, else defaults."""
    path: Path | None = args.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    return load_config(path) if path is not None else MonitorConfig()
