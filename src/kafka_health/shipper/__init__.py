"""Log shipping: broker logs and GC logs into Kafka, at least once, through rotation and outages.

``kafka-health ship-logs`` runs :class:`~kafka_health.shipper.service.Shipper` (wired by
:mod:`kafka_health.services.shipper`); :mod:`kafka_health.dev.shipper_devcluster` starts
one for the local dev cluster's brokers. The record format is in
:mod:`kafka_health.shipper.envelope`.
"""
