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
from typing import Any, Generic, TypeVar

from prometheus_client import CollectorRegistry

from kafka_health.canary.buffer import DiskBuffer
from kafka_health.canary.clock import SYSTEM_CLOCK, Clock, run_every
from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.canary.prober import KafkaProbeProducer, ProbeLoop, ProbeProducer
from kafka_health.canary.records import Acks
from kafka_health.canary.results import (
    KafkaResultsProducer,
    ResultsProducer,
    ResultsPublisher,
    buffer_sink,
)
from kafka_health.canary.sequence import SequenceStore
from kafka_health.canary.topic import TopicManager, ensure_output_topic
from kafka_health.cluster_state.prober import (
    AdminSnapshotSource,
    ClusterStateMetrics,
    ClusterStateProber,
    KafkaRecordSink,
)
from kafka_health.cluster_state.records import SnapshotSummary
from kafka_health.config import KafkaConfig, MonitorConfig
from kafka_health.kafka_clients import python_client_options
from kafka_health.metrics_endpoint import serve_metrics

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_CLIENT_S = 5.0
RESULTS_RETRY_S = 1.0
"""The results producer is made again sooner: outcomes waiting are what pages."""
TOPIC_READY_WAIT_S = 30.0
"""Probes wait at most this long for the topic manager's first successful round."""


class Lazy(Generic[T]):
    """A client made on first use; after a failed attempt, tried again ``retry_s`` later."""

    def __init__(self, name: str, make: Callable[[], T], clock: Clock, retry_s: float) -> None:
        self.name = name
        self._make = make
        self._clock = clock
        self._retry_s = retry_s
        self._value: T | None = None
        self._next_try = float("-inf")
        self._lock = threading.Lock()

    def __call__(self) -> T | None:
        with self._lock:
            if self._value is None and self._clock.monotonic() >= self._next_try:
                try:
                    self._value = self._make()
                except Exception as exc:
                    self._next_try = self._clock.monotonic() + self._retry_s
                    log.warning("cannot create the %s client yet: %s", self.name, exc)
            return self._value

    def close(self, timeout_s: float) -> None:
        with self._lock:
            value, self._value = self._value, None
        if value is not None:
            try:
                value.close(timeout_s)  # type: ignore[attr-defined]
            except Exception:
                log.debug("closing the %s client failed", self.name, exc_info=True)


def new_producer(options: dict[str, Any]) -> Any:
    """A kafka-python producer that never auto-creates topics.

    kafka-python 3.0.12 does not pass ``allow_auto_create_topics`` on to its
    ``ClusterMetadata`` (``KafkaConnectionManager`` builds it with three settings only), so
    its metadata requests let brokers with ``auto.create.topics.enable`` create a missing
    canary topic with one partition. The setting is applied to the metadata object here.
    """
    from kafka import KafkaProducer

    producer = KafkaProducer(**options)
    producer._metadata.config["allow_auto_create_topics"] = False
    return producer


def probe_producer_options(
    kafka: KafkaConfig, canary_id: str, acks: Acks, timeout_s: float
) -> dict[str, Any]:
    """A probe producer: no retries (each probe's first answer is its outcome), no batching."""
    timeout_ms = int(timeout_s * 1000)
    return {
        **python_client_options(kafka),
        "client_id": f"{canary_id}-probe-acks-{acks}",
        "acks": "all" if acks == "all" else 1,
        "retries": 0,
        "enable_idempotence": False,
        "linger_ms": 0,
        "request_timeout_ms": timeout_ms,
        "delivery_timeout_ms": timeout_ms + 1000,
        "max_block_ms": min(timeout_ms, 5000),
        "bootstrap_timeout_ms": timeout_ms,
        "metadata_max_age_ms": 10_000,
        "allow_auto_create_topics": False,
    }


def _client_options(kafka: KafkaConfig, client_id: str, timeout_s: float | None) -> dict[str, Any]:
    """The cluster's client options, ``client_id``, and ``timeout_s`` as the request timeout
    (default: the client's)."""
    options = {**python_client_options(kafka), "client_id": client_id}
    if timeout_s is not None:
        options["request_timeout_ms"] = int(timeout_s * 1000)
    return options


def results_producer_options(
    kafka: KafkaConfig, client_id: str, timeout_s: float | None = None
) -> dict[str, Any]:
    """The results producer: acks=all, one request in flight (in order); failed batches are
    sent again from the on-disk buffer (at least once), so no idempotence is needed.
    ``timeout_s`` bounds each request (default: the client's request timeout)."""
    options = _client_options(kafka, client_id, timeout_s)
    return {
        **options,
        "acks": "all",
        "enable_idempotence": False,
        "max_in_flight_requests_per_connection": 1,
        "linger_ms": 5,
        "delivery_timeout_ms": options["request_timeout_ms"] + 1000,
        # Room for a second metadata request when the first went to a hung broker.
        "max_block_ms": max(5000, 2 * options["request_timeout_ms"] - 1000),
        # kafka-python bootstraps from one random server until this deadline: a hung one
        # would hold the whole attempt, so attempts are short and repeated (RESULTS_RETRY_S).
        "bootstrap_timeout_ms": options["request_timeout_ms"],
        "allow_auto_create_topics": False,
    }


def state_producer_options(
    kafka: KafkaConfig, client_id: str, timeout_s: float | None = None
) -> dict[str, Any]:
    """The snapshot producer: acks=1 so snapshots still go out while topics are under min
    ISR (the moment they matter most); gzip, as 50,000 JSON records compress well.
    ``timeout_s`` bounds each request (default: the client's request timeout)."""
    options = _client_options(kafka, client_id, timeout_s)
    return {
        **options,
        "acks": 1,
        "enable_idempotence": False,
        "linger_ms": 20,
        "batch_size": 256 * 1024,
        "compression_type": "gzip",
        "delivery_timeout_ms": options["request_timeout_ms"] + 1000,
        "max_block_ms": 5000,
        "bootstrap_timeout_ms": 10_000,
        "allow_auto_create_topics": False,
    }


def admin_options(
    kafka: KafkaConfig, client_id: str, request_timeout_s: float | None = None
) -> dict[str, Any]:
    """An admin client; ``request_timeout_s`` bounds each request (default: the client's)."""
    options = {
        **python_client_options(kafka),
        "client_id": client_id,
        "bootstrap_timeout_ms": 10_000,
    }
    if request_timeout_s is not None:
        timeout_ms = int(request_timeout_s * 1000)
        options["request_timeout_ms"] = timeout_ms
        options["bootstrap_timeout_ms"] = max(timeout_ms, 1000)
    return options


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
        from kafka import KafkaAdminClient

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
        kafka = config.kafka
        modes: list[Acks] = ["all", "1"] if canary.acks1_probe else ["all"]
        self._probe_producers: dict[Acks, Lazy[ProbeProducer]] = {
            mode: Lazy(
                f"probe acks={mode}",
                lambda mode=mode: KafkaProbeProducer(  # type: ignore[misc]
                    new_producer(
                        probe_producer_options(kafka, canary.id, mode, canary.send_timeout_s)
                    )
                ),
                clock,
                RETRY_CLIENT_S,
            )
            for mode in modes
        }
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
        # The topic manager creates the output topics only where it manages the canary topic:
        # on a separate transport their producers create them (ensure_transport_topic).
        outputs = {config.topics.canary_results: canary.results_partitions}
        run_state = canary.cluster_state if cluster_state is None else cluster_state
        if run_state:
            outputs[config.topics.cluster_state] = config.cluster_state.topic_partitions
        if config.separate_transport:
            outputs = {}
        self.topic_manager = TopicManager(
            lambda: KafkaAdminClient(**admin_options(kafka, f"{canary.id}-topic-manager")),
            topic,
            canary,
            outputs,
            self.metrics,
            gone_after_s=config.job.inventory_ttl_s,
        )
        self.cluster_state = (
            ClusterStateService(config, self.registry, clock) if run_state else None
        )
        self._server: Any = None
        self._stops = {name: threading.Event() for name in ("publisher", "manager", "probes")}
        self._topic_ready = threading.Event()
        self._threads: dict[str, threading.Thread] = {}

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
                self.config.metrics_endpoints,
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
