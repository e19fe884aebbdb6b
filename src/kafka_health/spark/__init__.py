"""Spark integration: the session factory."""

import importlib
from typing import Any

__all__ = ["build_spark_session", "kafka_connector_coordinates"]

_HOMES = {
    "build_spark_session": "kafka_health.spark.session",
    "kafka_connector_coordinates": "kafka_health.spark.session",
}


def __getattr__(name: str) -> Any:
    """Names load lazily: their modules need kafka_health.config, which imports this
    package's config section."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
