"""The cluster-state prober: every interval, the true leader/replicas/ISR of every partition.

A snapshot describes the brokers (DescribeCluster), then pages through all partitions with
DescribeTopicPartitions (``page_partitions`` at a time, with the broker's cursor), reads the
``min.insync.replicas`` of each page's topics (DescribeConfigs), produces the page's records
and waits for their acknowledgement before reading the next page: memory holds one page,
however large the cluster (50,000 partitions are 25 pages of 2,000). Brokers older than 3.7
have no DescribeTopicPartitions; they are described with one Metadata request instead.
Record schemas: :mod:`kafka_health.cluster_state.records`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge

from kafka_health.clock import Clock
from kafka_health.cluster_state.config import ClusterStateConfig
from kafka_health.cluster_state.records import BrokerState, PartitionState, SnapshotSummary
from kafka_health.failures import classify

log = logging.getLogger(__name__)

MIN_ISR = "min.insync.replicas"
CONFIG_BATCH = 500


@dataclass(frozen=True)
class TopicPage:
    """Some partitions of one topic, as DescribeTopicPartitions returns them."""

    name: str
    internal: bool
    partitions: list[dict[str, Any]]


@dataclass(frozen=True)
class ClusterInfo:
    """The brokers (registered, with ``is_fenced``), the controller and the cluster id."""

    brokers: list[dict[str, Any]]
    controller_id: int | None
    cluster_id: str | None


class SnapshotSource(Protocol):
    """Where a snapshot comes from (an AdminClient adapter, or a fake in tests)."""

    def cluster(self) -> ClusterInfo: ...

    def pages(self, page_partitions: int) -> Iterator[list[TopicPage]]: ...

    def min_isr(self, topics: Sequence[str]) -> dict[str, int | None]: ...


class RecordSink(Protocol):
    """Where records go; ``flush`` waits for all sent so far and raises if one failed."""

    def send(self, key: bytes, value: bytes) -> None: ...

    def flush(self, timeout_s: float) -> None: ...


class ClusterStateMetrics:
    """The prober's series."""

    def __init__(self, registry: CollectorRegistry) -> None:
        ns = "kafka_health_cluster_state"
        self.snapshots = Counter(
            f"{ns}_snapshots", "Snapshots by outcome (ok, failed).", ["outcome"], registry=registry
        )
        self.last_success = Gauge(
            f"{ns}_last_success_timestamp_seconds",
            "Start time of the last complete snapshot.",
            registry=registry,
        )
        self.partitions = Gauge(
            f"{ns}_partitions", "Partitions in the last complete snapshot.", registry=registry
        )
        self.duration = Gauge(
            f"{ns}_snapshot_duration_seconds",
            "How long the last complete snapshot took.",
            registry=registry,
        )


class ClusterStateProber:
    """Takes snapshots and writes them to the sink."""

    def __init__(
        self,
        *,
        source: SnapshotSource,
        sink: RecordSink,
        config: ClusterStateConfig,
        clock: Clock,
        metrics: ClusterStateMetrics | None = None,
        flush_timeout_s: float = 30.0,
    ) -> None:
        self.source = source
        self.sink = sink
        self.config = config
        self.clock = clock
        self.metrics = metrics
        self.flush_timeout_s = flush_timeout_s
        self._pattern = re.compile(config.topics_regex)
        self.max_page_records = 0

    def snapshot(self) -> SnapshotSummary:
        """Describe the cluster and write one complete snapshot; raise if that fails."""
        started = self.clock.monotonic()
        snapshot_ms = int(self.clock.time() * 1000)
        cluster = self.source.cluster()
        registered: set[int] = set()
        live = 0
        for broker in cluster.brokers:
            state = BrokerState(
                snapshot_ms=snapshot_ms,
                broker_id=int(broker["broker_id"]),
                host=broker.get("host"),
                port=broker.get("port"),
                rack=broker.get("rack"),
                live=not broker.get("is_fenced", False),
                controller=int(broker["broker_id"]) == cluster.controller_id,
            )
            registered.add(state.broker_id)
            live += state.live
            self.sink.send(state.key, state.encode())
        replica_holders: set[int] = set()
        topics = partitions = 0
        last_topic: str | None = None
        for page in self.source.pages(self.config.page_partitions):
            selected = [t for t in page if self._selected(t)]
            min_isr = self.source.min_isr(sorted({t.name for t in selected}))
            in_page = 0
            for topic in selected:
                if topic.name != last_topic:
                    topics += 1
                    last_topic = topic.name
                for raw in topic.partitions:
                    record = partition_state(snapshot_ms, topic.name, raw, min_isr.get(topic.name))
                    replica_holders.update(record.replicas)
                    self.sink.send(record.key, record.encode())
                    in_page += 1
            partitions += in_page
            self.max_page_records = max(self.max_page_records, in_page)
            self.sink.flush(self.flush_timeout_s)
        for broker_id in sorted(replica_holders - registered):
            state = BrokerState(snapshot_ms, broker_id, None, None, None, False, False)
            self.sink.send(state.key, state.encode())
        summary = SnapshotSummary(
            snapshot_ms=snapshot_ms,
            done_ms=int(self.clock.time() * 1000),
            topics=topics,
            partitions=partitions,
            brokers=len(registered | replica_holders),
            live_brokers=live,
            controller_id=cluster.controller_id,
            cluster_id=cluster.cluster_id,
        )
        self.sink.send(summary.key, summary.encode())
        self.sink.flush(self.flush_timeout_s)
        if self.metrics is not None:
            self.metrics.snapshots.labels("ok").inc()
            self.metrics.last_success.set(snapshot_ms / 1000)
            self.metrics.partitions.set(partitions)
            self.metrics.duration.set(self.clock.monotonic() - started)
        return summary

    def _selected(self, topic: TopicPage) -> bool:
        if topic.internal and not self.config.include_internal:
            return False
        return self._pattern.fullmatch(topic.name) is not None


def partition_state(
    snapshot_ms: int, topic: str, raw: dict[str, Any], min_isr: int | None
) -> PartitionState:
    """A partition record from a DescribeTopicPartitions/Metadata partition entry."""
    from kafka.errors import for_code

    code = int(raw.get("error_code", 0))
    return PartitionState(
        snapshot_ms=snapshot_ms,
        topic=topic,
        partition=int(raw["partition_index"]),
        leader=int(raw["leader_id"]),
        leader_epoch=int(raw.get("leader_epoch", -1)),
        replicas=[int(b) for b in raw["replica_nodes"]],
        isr=[int(b) for b in raw["isr_nodes"]],
        offline_replicas=[int(b) for b in raw.get("offline_replicas") or []],
        min_isr=min_isr,
        error=classify(for_code(code)()) if code else None,
    )


class AdminSnapshotSource:
    """:class:`SnapshotSource` over a kafka-python ``KafkaAdminClient``."""

    def __init__(self, admin: Any) -> None:
        self.admin = admin

    def cluster(self) -> ClusterInfo:
        described = self.admin.describe_cluster()
        return ClusterInfo(
            brokers=list(described["brokers"]),
            controller_id=described.get("controller_id"),
            cluster_id=described.get("cluster_id"),
        )

    def pages(self, page_partitions: int) -> Iterator[list[TopicPage]]:
        from kafka.errors import UnsupportedVersionError

        cursor = None
        while True:
            try:
                answer = self.admin.describe_topic_partitions(
                    [], response_partition_limit=page_partitions, cursor=cursor
                )
            except UnsupportedVersionError:  # broker < 3.7 (IncompatibleBrokerVersion too)
                if cursor is not None:
                    raise
                yield from self._metadata_pages(page_partitions)
                return
            yield [
                TopicPage(t["name"], bool(t.get("is_internal")), t["partitions"])
                for t in answer["topics"]
                if int(t.get("error_code", 0)) == 0
            ]
            cursor = answer.get("next_cursor")
            if cursor is None:
                return

    def _metadata_pages(self, page_partitions: int) -> Iterator[list[TopicPage]]:
        page: list[TopicPage] = []
        size = 0
        for topic in sorted(self.admin.describe_topics(), key=lambda t: str(t["name"])):
            if int(topic.get("error_code", 0)) != 0:
                continue
            page.append(
                TopicPage(topic["name"], bool(topic.get("is_internal")), topic["partitions"])
            )
            size += len(topic["partitions"])
            if size >= page_partitions:
                yield page
                page, size = [], 0
        if page:
            yield page

    def min_isr(self, topics: Sequence[str]) -> dict[str, int | None]:
        from kafka.admin import ConfigResource, ConfigResourceType

        found: dict[str, int | None] = {}
        for start in range(0, len(topics), CONFIG_BATCH):
            batch = topics[start : start + CONFIG_BATCH]
            resources = [ConfigResource(ConfigResourceType.TOPIC, t, [MIN_ISR]) for t in batch]
            described = self.admin.describe_configs(resources, config_filter="all").get("topic", {})
            for name in batch:
                value = described.get(name, {}).get(MIN_ISR, {}).get("value")
                found[name] = int(value) if value is not None else None
        return found


class KafkaRecordSink:
    """:class:`RecordSink` over a kafka-python ``KafkaProducer``."""

    def __init__(self, producer: Any, topic: str) -> None:
        self.producer = producer
        self.topic = topic
        self._futures: list[Any] = []

    def send(self, key: bytes, value: bytes) -> None:
        self._futures.append(self.producer.send(self.topic, key=key, value=value))

    def flush(self, timeout_s: float) -> None:
        futures, self._futures = self._futures, []
        self.producer.flush(timeout=timeout_s)
        for future in futures:
            future.get(timeout=0)

    def close(self, timeout_s: float) -> None:
        self.producer.close(timeout=timeout_s)
