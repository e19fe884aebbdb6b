"""The canary process: wires topic manager, probe loop, results publisher, prober, metrics.

``CanaryService(config).start()`` returns at once; ``stop()`` shuts down in reverse order.
Start order: metrics endpoint, results publisher, topic manager, probe loop, cluster-state
prober. Kafka clients are created lazily and again after failures, so a canary started
against a dead cluster keeps running, counting failures, and catches up when it recovers.
Sequence state and the results buffer live in ``<canary.state_dir>/<canary.id>/``.

Probes, the canary topic's management and the cluster-state prober's describes go to the
monitored cluster (``kafka``); outcomes and snapshots go to the transport cluster
(``config.transport_kafka()``, the monitored one unless ``transport`` names another), each
through a producer of its own, so a hung monitored broker cannot hold them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from kafka_health.canary.buffer import DiskBuffer
from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.canary.prober import (
    KafkaProbeProducer,
    ProbeLoop,
    ProbeProducer,
    probe_producer_options,
)
from kafka_health.canary.records import Acks
from kafka_health.canary.results import (
    KafkaResultsProducer,
    ResultsProducer,
    ResultsPublisher,
    buffer_sink,
)
from kafka_health.canary.sequence import SequenceStore
from kafka_health.canary.topic import TopicManager
from kafka_health.clock import SYSTEM_CLOCK, Clock
from kafka_health.config import MonitorConfig
from kafka_health.kafka_clients import Lazy, admin_options, new_producer, results_producer_options
from kafka_health.metrics_endpoint import serve_metrics
from kafka_health.services.cluster_state import ClusterStateService
from kafka_health.services.transport import ensure_transport_topic

log = logging.getLogger(__name__)

RETRY_CLIENT_S = 5.0
RESULTS_RETRY_S = 1.0
"""The results producer is made again sooner: outcomes waiting are what pages."""
TOPIC_READY_WAIT_S = 30.0
"""Probes wait at most this long for the topic manager's first successful round."""


class CanaryService:
    """The whole canary. Construction reads state and fails early; ``start`` connects."""

    def __init__(
        self,
        config: MonitorConfig,
        *,
        registry: CollectorRegistry | None = None,
        clock: Clock = SYSTEM_CLOCK,
        cluster_state: bool | None = None,
    ) -> None:
        self.config = config
        canary = config.canary
        self.clock = clock
        self.registry = registry or CollectorRegistry()
        self.metrics = CanaryMetrics(self.registry)
        self.metrics_port: int | None = None
        self.state_dir = Path(canary.state_dir).expanduser() / canary.id
        topic = config.topics.canary
        self.sequences = SequenceStore(
            self.state_dir / "sequences.json", canary.id, topic, canary.sequence_block
        )
        self.buffer = DiskBuffer(
            self.state_dir / "results-buffer", canary.buffer_max_bytes, canary.buffer_segment_bytes
        )
        self.metrics.track_buffer(lambda: self.buffer.pending, lambda: self.buffer.pending_bytes)
        self._probe_producers = self._new_probe_producers()
        self._results_producer: Lazy[ResultsProducer] = Lazy(
            "results", self._new_results_producer, clock, RESULTS_RETRY_S
        )
        self.probe_loop = ProbeLoop(
            canary_id=canary.id,
            topic=topic,
            producers=self._probe_producers,
            sequences=self.sequences,
            sink=buffer_sink(self.buffer),
            clock=clock,
            metrics=self.metrics,
            deadline_s=canary.probe_deadline_s,
        )
        self.publisher = ResultsPublisher(
            buffer=self.buffer,
            producer=self._results_producer,
            topic=config.topics.canary_results,
            reset=lambda: self._results_producer.close(0.0),
            metrics=self.metrics,
            timeout_s=canary.results_timeout_s + 1.0,  # the producer's delivery timeout
            backoff_max_s=RESULTS_RETRY_S * 2,
        )
        run_state = canary.cluster_state if cluster_state is None else cluster_state
        self.topic_manager = self._new_topic_manager(run_state)
        self.cluster_state = (
            ClusterStateService(config, self.registry, clock) if run_state else None
        )
        self._server: Any = None
        self._stops = {name: threading.Event() for name in ("publisher", "manager", "probes")}
        self._topic_ready = threading.Event()
        self._threads: dict[str, threading.Thread] = {}

    def _new_probe_producers(self) -> dict[Acks, Lazy[ProbeProducer]]:
        """A lazy probe producer per acks mode probed (``all``, and ``1`` with
        ``acks1_probe``), on the monitored cluster."""
        canary, kafka = self.config.canary, self.config.kafka
        modes: list[Acks] = ["all", "1"] if canary.acks1_probe else ["all"]
        return {
            mode: Lazy(
                f"probe acks={mode}",
                lambda mode=mode: KafkaProbeProducer(  # type: ignore[misc]
                    new_producer(
                        probe_producer_options(kafka, canary.id, mode, canary.send_timeout_s)
                    )
                ),
                self.clock,
                RETRY_CLIENT_S,
            )
            for mode in modes
        }

    def _new_topic_manager(self, run_state: bool) -> TopicManager:
        """The canary topic's manager, with the output topics it creates beside it (the
        cluster-state topic only where ``run_state``)."""
        from kafka import KafkaAdminClient

        config, canary, kafka = self.config, self.config.canary, self.config.kafka
        # The topic manager creates the output topics only where it manages the canary topic:
        # on a separate transport their producers create them (ensure_transport_topic).
        outputs = {config.topics.canary_results: canary.results_partitions}
        if run_state:
            outputs[config.topics.cluster_state] = config.cluster_state.topic_partitions
        if config.separate_transport:
            outputs = {}
        return TopicManager(
            lambda: KafkaAdminClient(**admin_options(kafka, f"{canary.id}-topic-manager")),
            config.topics.canary,
            canary,
            outputs,
            self.metrics,
            gone_after_s=config.job.inventory_ttl_s,
        )

    def _new_results_producer(self) -> ResultsProducer:
        """The results producer, on the transport (the results topic created there first)."""
        config = self.config
        ensure_transport_topic(
            config, config.topics.canary_results, config.canary.results_partitions
        )
        options = results_producer_options(
            config.transport_kafka(), f"{config.canary.id}-results", config.canary.results_timeout_s
        )
        return KafkaResultsProducer(new_producer(options))

    def start(self) -> None:
        """Start every part (returns at once); a part that cannot start yet keeps retrying."""
        canary = self.config.canary
        if canary.metrics_port is not None:
            self._server, self.metrics_port = serve_metrics(
                self.registry, canary.metrics_host, canary.metrics_port,
                self.config.metrics_endpoints, cluster=self.config.cluster_name,
            )  # fmt: skip
        self._spawn("publisher", lambda stop: self.publisher.run(stop))
        if canary.manage_topic:
            self._spawn("manager", self._manage)
        else:
            self._topic_ready.set()
        self._spawn("probes", self._probe)
        if self.cluster_state is not None:
            self.cluster_state.start()
        log.info(
            "canary %s probing %s every %.1f s",
            canary.id,
            self.config.topics.canary,
            canary.interval_s,
        )

    def stop(self, deliver_timeout_s: float = 5.0) -> None:
        """Stop in reverse order; in-flight probes finish and outcomes reach the buffer."""
        if self.cluster_state is not None:
            self.cluster_state.stop()
        self._halt("probes")
        for producer in self._probe_producers.values():
            producer.close(self.config.canary.send_timeout_s)
        self.probe_loop.drain()
        self._halt("manager")
        self.topic_manager.close()
        deadline = self.clock.monotonic() + deliver_timeout_s
        while self.buffer.pending and self.clock.monotonic() < deadline:
            self._stops["publisher"].wait(0.1)
        self._halt("publisher")
        self._results_producer.close(5.0)
        self.buffer.close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def _manage(self, stop: threading.Event) -> None:
        while not stop.is_set():
            if not self.topic_manager.ensure().errors:
                self._topic_ready.set()
            stop.wait(self.config.canary.manage_interval_s)

    def _probe(self, stop: threading.Event) -> None:
        """Probe once the topic manager's first round succeeded (a probe of a topic still
        being created fails for the canary, not for the cluster), or after
        ``TOPIC_READY_WAIT_S`` regardless: an unreachable cluster must show as failures."""
        deadline = self.clock.monotonic() + TOPIC_READY_WAIT_S
        while not self._topic_ready.wait(0.2) and not stop.is_set():
            if self.clock.monotonic() >= deadline:
                log.warning("probing %s before its topic is ready", self.config.topics.canary)
                break
        self.probe_loop.run(stop, self.config.canary.interval_s)

    def _spawn(self, name: str, body: Callable[[threading.Event], None]) -> None:
        thread = threading.Thread(
            target=body, args=(self._stops[name],), name=f"canary-{name}", daemon=True
        )
        self._threads[name] = thread
        thread.start()

    def _halt(self, name: str, timeout_s: float = 30.0) -> None:
        self._stops[name].set()
        thread = self._threads.pop(name, None)
        if thread is not None:
            thread.join(timeout_s)
