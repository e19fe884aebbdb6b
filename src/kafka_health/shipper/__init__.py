"""Log shipping: broker logs and GC logs into Kafka, at least once, through rotation and outages.

``kafka-health ship-logs`` runs :class:`Shipper`; :mod:`kafka_health.shipper.devcluster` starts
one for the local dev cluster's brokers. The record format is in
:mod:`kafka_health.shipper.envelope`.
"""

from kafka_health.lazy import lazy_names

__all__ = ["SCHEMA", "Shipper", "ShipperMetrics"]

_HOMES = {
    "SCHEMA": "kafka_health.shipper.envelope",
    "ShipperMetrics": "kafka_health.shipper.metrics",
    "Shipper": "kafka_health.shipper.service",
}


__getattr__ = lazy_names(__name__, _HOMES)
