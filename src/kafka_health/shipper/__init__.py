"""Log shipping: broker logs and GC logs into Kafka, at least once, through rotation and outages.

``kafka-health ship-logs`` runs :class:`Shipper`; :mod:`kafka_health.shipper.devcluster` starts
one for the local dev cluster's brokers. The record format is in
:mod:`kafka_health.shipper.envelope`.
"""

from kafka_health.shipper.envelope import SCHEMA
from kafka_health.shipper.metrics import ShipperMetrics
from kafka_health.shipper.service import Shipper

__all__ = ["SCHEMA", "Shipper", "ShipperMetrics"]
