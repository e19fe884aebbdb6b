"""Log shipping: broker logs and GC logs into Kafka, at least once, through rotation and outages.

``kafka-health ship-logs`` runs :class:`Shipper`; :mod:`kafka_health.shipper.devcluster` starts
one for the local dev cluster's brokers. The record format is in
:mod:`kafka_health.shipper.envelope`.
"""

import importlib
from typing import Any

__all__ = ["SCHEMA", "Shipper", "ShipperMetrics"]

_HOMES = {
    "SCHEMA": "kafka_health.shipper.envelope",
    "ShipperMetrics": "kafka_health.shipper.metrics",
    "Shipper": "kafka_health.shipper.service",
}


def __getattr__(name: str) -> Any:
    """Names load lazily: their modules need kafka_health.config, which imports this
    package's config section."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
