"""The monitor's own topics on a separate transport cluster."""

from __future__ import annotations

import logging

from kafka_health.canary.topic import ensure_output_topic
from kafka_health.config import MonitorConfig
from kafka_health.kafka_clients import admin_options

log = logging.getLogger(__name__)


def ensure_transport_topic(config: MonitorConfig, topic: str, partitions: int) -> None:
    """Create one of the monitor's own topics on a separate transport cluster if missing.

    Reported, not fatal (a managed cluster may forbid it): the producer is made either way.
    On the monitored cluster the canary's topic manager creates them instead.
    """
    from kafka import KafkaAdminClient

    if not config.separate_transport:
        return
    try:
        admin = KafkaAdminClient(
            **admin_options(config.transport_kafka(), f"{config.canary.id}-transport-topics")
        )
    except Exception as exc:
        log.warning("cannot check %s on the transport: %s: %s", topic, type(exc).__name__, exc)
        return
    try:
        if ensure_output_topic(admin, topic, partitions):
            log.info("created %s on the transport cluster", topic)
    except Exception as exc:
        log.warning("cannot create %s on the transport: %s: %s", topic, type(exc).__name__, exc)
    finally:
        admin.close()
