"""The cluster-state process: the prober in its own thread, with its own admin client and
producer (``kafka-health cluster-state``, or beside the canary in ``kafka-health canary``).

Describes go to the monitored cluster (``kafka``); snapshots go to the transport cluster
(``config.transport_kafka()``, the monitored one unless ``transport`` names another).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from prometheus_client import CollectorRegistry

from kafka_health.canary.topic import ensure_output_topic
from kafka_health.clock import SYSTEM_CLOCK, Clock, run_every
from kafka_health.cluster_state.prober import (
    AdminSnapshotSource,
    ClusterStateMetrics,
    ClusterStateProber,
    KafkaRecordSink,
)
from kafka_health.cluster_state.records import SnapshotSummary
from kafka_health.config import MonitorConfig
from kafka_health.kafka_clients import admin_options, new_producer, state_producer_options
from kafka_health.services.transport import ensure_transport_topic

log = logging.getLogger(__name__)


class ClusterStateService:
    """The prober in its own thread, with its own admin client and producer."""

    def __init__(
        self, config: MonitorConfig, registry: CollectorRegistry, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.config = config
        self.clock = clock
        self.metrics = ClusterStateMetrics(registry)
        self.prober: ClusterStateProber | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._admin: Any = None
        self._sink: KafkaRecordSink | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="cluster-state", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._close()

    def snapshot_once(self) -> SnapshotSummary:
        """Connect, take one snapshot, close (``kafka-health cluster-state --once``)."""
        try:
            return self._connect().snapshot()
        finally:
            self._close()

    def _run(self) -> None:
        run_every(self.config.cluster_state.interval_s, self._stop, self.clock, self._round)

    def _round(self) -> None:
        """One snapshot; after a failure the clients are rebuilt for the next one."""
        try:
            if self.prober is None:
                self.prober = self._connect()
            self.prober.snapshot()
        except Exception as exc:
            log.warning("cluster-state snapshot failed: %s: %s", type(exc).__name__, exc)
            self.metrics.snapshots.labels("failed").inc()
            self.prober = None
            self._close()

    def _connect(self) -> ClusterStateProber:
        from kafka import KafkaAdminClient

        settings = self.config.cluster_state
        name = f"{self.config.canary.id}-cluster-state"
        # Describes go to the monitored cluster, each bounded so that a frozen broker fails
        # this snapshot within the budget; snapshots go to the transport.
        self._admin = KafkaAdminClient(
            **admin_options(self.config.kafka, name, settings.request_timeout_s)
        )
        topic = self.config.topics.cluster_state
        if self.config.separate_transport:
            ensure_transport_topic(self.config, topic, settings.topic_partitions)
        else:
            try:
                if ensure_output_topic(self._admin, topic, settings.topic_partitions):
                    log.info("created %s", topic)
            except Exception as exc:  # reported, not fatal: managed clusters may forbid it
                log.warning("cannot create %s: %s: %s", topic, type(exc).__name__, exc)
        options = state_producer_options(
            self.config.transport_kafka(), name, settings.request_timeout_s
        )
        self._sink = KafkaRecordSink(new_producer(options), topic)
        return ClusterStateProber(
            source=AdminSnapshotSource(self._admin),
            sink=self._sink,
            config=settings,
            clock=self.clock,
            metrics=self.metrics,
            flush_timeout_s=options["delivery_timeout_ms"] / 1000 + 1,
        )

    def _close(self) -> None:
        sink, admin = self._sink, self._admin
        self._sink = self._admin = None
        try:
            if sink is not None:
                sink.close(5.0)
            if admin is not None:
                admin.close()
        except Exception:
            log.debug("closing a cluster-state client failed", exc_info=True)
