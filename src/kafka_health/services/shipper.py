"""Run a shipper until told to stop: metrics endpoint, producer (re)connection, the loop."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from kafka_health.config import MonitorConfig
from kafka_health.shipper.metrics import ShipperMetrics
from kafka_health.shipper.sender import ProducerLike, kafka_producer
from kafka_health.shipper.service import Shipper

log = logging.getLogger(__name__)


def run_shipper(
    config: MonitorConfig,
    stop: threading.Event,
    *,
    metrics: ShipperMetrics | None = None,
    on_metrics_port: Callable[[int], None] | None = None,
    producer_factory: Callable[[], ProducerLike] | None = None,
) -> None:
    """Ship ``config.shipper``'s files to ``config.topics.broker_logs`` until ``stop`` is set.

    When Kafka cannot be reached at start, connecting is retried with backoff (the files keep
    the logs meanwhile); the metrics endpoint is up from the start.
    """
    from kafka_health.metrics_endpoint import serve_metrics

    metrics = metrics or ShipperMetrics()
    settings = config.shipper
    server = None
    if settings.metrics_port is not None:
        server, port = serve_metrics(
            metrics.registry, settings.metrics_host, settings.metrics_port,
            config.metrics_endpoints, cluster=config.cluster_name,
        )  # fmt: skip
        if on_metrics_port is not None:
            on_metrics_port(port)
    try:
        # Broker logs travel through the transport (the monitored cluster unless separate).
        transport = config.transport_kafka()
        factory = producer_factory or (lambda: kafka_producer(transport, settings))
        producer = _connect(factory, stop, settings.retry_backoff_s, settings.retry_backoff_max_s)
        if producer is None:
            return
        shipper = Shipper(settings, config.topics.broker_logs, producer, metrics=metrics)
        log.info(
            "shipping %d file pattern(s) of %d broker(s) to topic %s",
            sum(len(b.files) for b in settings.brokers),
            len(settings.brokers),
            config.topics.broker_logs,
        )
        shipper.run(stop)
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()


def _connect(
    factory: Callable[[], ProducerLike], stop: threading.Event, backoff_s: float, max_s: float
) -> ProducerLike | None:
    delay = backoff_s
    while not stop.is_set():
        try:
            return factory()
        except Exception as exc:  # NoBrokersAvailable, DNS, TLS...: Kafka may come later
            log.warning("cannot connect to Kafka (%s: %s): retrying in %.1f s",
                        type(exc).__name__, exc, delay)  # fmt: skip
            stop.wait(delay)
            delay = min(max_s, delay * 2)
    return None
