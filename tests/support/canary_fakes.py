"""Fakes for the canary's unit tests: a hand-moved clock, a probe producer whose sends a
test completes one by one, a results producer that can be made to fail, a snapshot source."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_health.canary.prober import DoneCallback
from kafka_health.cluster_state.prober import ClusterInfo, TopicPage


class FakeClock:
    """Wall and monotonic time that move only when a test says so."""

    def __init__(self, wall: float = 1_767_225_600.0) -> None:
        self.wall = wall
        self.mono = 100.0

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.mono

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.mono += seconds


@dataclass
class Metadata:
    offset: int
    timestamp: int


class FakeProbeProducer:
    """Keeps every send pending until the test calls ``ack`` or ``fail``."""

    def __init__(self, partitions: Sequence[int], leaders: dict[int, int] | None = None) -> None:
        self.partition_ids = list(partitions)
        self.leaders = dict(leaders or {})
        self.pending: list[tuple[int, bytes, DoneCallback]] = []
        self.raise_on_send: BaseException | None = None
        self.offsets: dict[int, int] = {}

    def partitions(self, topic: str) -> Sequence[int] | None:
        return self.partition_ids or None

    def leader(self, topic: str, partition: int) -> int | None:
        return self.leaders.get(partition)

    def send(self, topic: str, partition: int, value: bytes, on_done: DoneCallback) -> None:
        if self.raise_on_send is not None:
            raise self.raise_on_send
        self.pending.append((partition, value, on_done))

    def ack_all(self, timestamp: int = 1) -> None:
        pending, self.pending = self.pending, []
        for partition, _value, on_done in pending:
            offset = self.offsets.get(partition, 0)
            self.offsets[partition] = offset + 1
            on_done(Metadata(offset, timestamp), None)

    def fail_all(self, error: BaseException) -> None:
        pending, self.pending = self.pending, []
        for _partition, _value, on_done in pending:
            on_done(None, error)


class FakeResultsProducer:
    """Stores what it was sent; ``failing`` makes the next sends raise."""

    def __init__(self) -> None:
        self.topic_records: list[tuple[bytes, bytes]] = []
        self.failing: BaseException | None = None
        self.calls = 0

    def send_all(self, topic: str, records: list[tuple[bytes, bytes]], timeout_s: float) -> None:
        self.calls += 1
        if self.failing is not None:
            # like a batch that failed part-way: the first half got through
            self.topic_records.extend(records[: len(records) // 2])
            raise self.failing
        self.topic_records.extend(records)


def partition_entry(
    index: int, leader: int, replicas: list[int], isr: list[int], error_code: int = 0
) -> dict[str, Any]:
    """A partition as DescribeTopicPartitions returns it."""
    return {
        "partition_index": index,
        "leader_id": leader,
        "leader_epoch": 0,
        "replica_nodes": replicas,
        "isr_nodes": isr,
        "offline_replicas": [],
        "error_code": error_code,
    }


class FakeSnapshotSource:
    """A cluster of topics; ``pages`` cuts them like a broker with a partition limit."""

    def __init__(
        self,
        brokers: list[dict[str, Any]],
        topics: dict[str, list[dict[str, Any]]],
        min_isr: dict[str, int | None] | None = None,
        internal: set[str] | None = None,
    ) -> None:
        self.brokers = brokers
        self.topics = topics
        self.min_isr_values = dict(min_isr or {})
        self.internal = internal or set()
        self.config_calls: list[list[str]] = []

    def cluster(self) -> ClusterInfo:
        return ClusterInfo(self.brokers, controller_id=1, cluster_id="test-cluster")

    def pages(self, page_partitions: int) -> Iterator[list[TopicPage]]:
        page: list[TopicPage] = []
        room = page_partitions
        for name in sorted(self.topics):
            parts = self.topics[name]
            start = 0
            while start < len(parts):
                take = parts[start : start + room]
                page.append(TopicPage(name, name in self.internal, take))
                start += len(take)
                room -= len(take)
                if room == 0:
                    yield page
                    page, room = [], page_partitions
        if page:
            yield page

    def min_isr(self, topics: Sequence[str]) -> dict[str, int | None]:
        self.config_calls.append(list(topics))
        return {t: self.min_isr_values.get(t, 1) for t in topics}


class CountingSink:
    """Records sent records; remembers the most records ever waiting for a flush."""

    def __init__(self) -> None:
        self.records: list[tuple[bytes, bytes]] = []
        self.unflushed = 0
        self.max_unflushed = 0
        self.flushes = 0

    def send(self, key: bytes, value: bytes) -> None:
        self.records.append((key, value))
        self.unflushed += 1
        self.max_unflushed = max(self.max_unflushed, self.unflushed)

    def flush(self, timeout_s: float) -> None:
        self.unflushed = 0
        self.flushes += 1
