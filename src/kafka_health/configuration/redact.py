"""The effective config as plain data or YAML, every secret replaced by where it comes from."""

from __future__ import annotations

import dataclasses
from typing import Any

import yaml

from kafka_health.configuration.secrets import REDACTED, Secret


def to_redacted_dict(config: Any) -> Any:
    """The effective config as plain data, with every secret replaced by where it comes from."""
    if isinstance(config, Secret):
        source = f"env {config.env}" if config.env else f"file {config.file}"
        return f"{REDACTED} ({source})"
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return {
            f.name: to_redacted_dict(getattr(config, f.name)) for f in dataclasses.fields(config)
        }
    if isinstance(config, list):
        return [to_redacted_dict(v) for v in config]
    if isinstance(config, dict):
        return {k: to_redacted_dict(v) for k, v in config.items()}
    return config


def dump_redacted(config: Any) -> str:
    """YAML text of the effective config with secrets redacted."""
    return yaml.safe_dump(to_redacted_dict(config), sort_keys=False)
