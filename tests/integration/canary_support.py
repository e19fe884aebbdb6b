"""Helpers of the canary's integration tests: condition waits with deadlines, incremental
topic readers, the cluster as AdminClient describes it, and the canary's /metrics."""

from __future__ import annotations

import json
import urllib.request
from collections import defaultdict
from typing import Any, TypeVar

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families

T = TypeVar("T")


class TopicReader:
    """Reads a topic from the beginning, a little more at every ``read()`` (JSON values)."""

    def __init__(self, servers: list[str], topic: str) -> None:
        self.topic = topic
        self.consumer = KafkaConsumer(
            bootstrap_servers=servers, enable_auto_commit=False, request_timeout_ms=10_000
        )
        # kafka-python 3.0.12 forgets allow_auto_create_topics=False in its metadata: a reader
        # must not create the topic before the canary does (see kafka_clients.new_producer).
        self.consumer._cluster.config["allow_auto_create_topics"] = False
        self.records: list[dict[str, Any]] = []
        self._assigned: set[int] = set()

    def read(self, timeout_ms: int = 1000) -> list[dict[str, Any]]:
        """New records since the last call (also kept in ``records``)."""
        partitions = self.consumer.partitions_for_topic(self.topic) or set()
        if partitions - self._assigned:
            self._assigned |= partitions
            tps = [TopicPartition(self.topic, p) for p in sorted(self._assigned)]
            positions = {tp: self._position(tp) for tp in tps}
            self.consumer.assign(tps)
            for tp, position in positions.items():
                if position is None:
                    self.consumer.seek_to_beginning(tp)
                else:
                    self.consumer.seek(tp, position)
        new: list[dict[str, Any]] = []
        for batch in self.consumer.poll(timeout_ms=timeout_ms, max_records=100_000).values():
            new.extend(json.loads(message.value) for message in batch)
        self.records.extend(new)
        return new

    def caught_up(self) -> bool:
        """Read on; True once every partition is read up to its end offset of this moment."""
        self.read()
        assignment = self.consumer.assignment()
        if not assignment:
            return False
        ends = self.consumer.end_offsets(list(assignment))
        while any(self.consumer.position(tp) < end for tp, end in ends.items()):
            if not self.read():
                return False
        return True

    def _position(self, tp: TopicPartition) -> int | None:
        return self.consumer.position(tp) if tp in self.consumer.assignment() else None

    def close(self) -> None:
        self.consumer.close()


def described(admin: KafkaAdminClient) -> dict[tuple[str, int], tuple[int, list[int], list[int]]]:
    """(topic, partition) -> (leader, replicas, isr) as the AdminClient describes them."""
    return {
        (t["name"], p["partition_index"]): (p["leader_id"], p["replica_nodes"], p["isr_nodes"])
        for t in admin.describe_topics()
        for p in t["partitions"]
    }


def snapshot_view(
    records: list[dict[str, Any]],
) -> dict[tuple[str, int], tuple[int, list[int], list[int]]]:
    """The same view from a snapshot's partition records."""
    return {
        (r["topic"], r["partition"]): (r["leader"], r["replicas"], r["isr"])
        for r in records
        if r["kind"] == "partition"
    }


def complete_snapshots(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Snapshots whose closing record arrived with all their partitions, oldest first."""
    by_time: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_time[record["snapshot_ms"]].append(record)
    complete = []
    for snapshot_ms in sorted(by_time):
        group = by_time[snapshot_ms]
        summary = [r for r in group if r["kind"] == "snapshot"]
        partitions = [r for r in group if r["kind"] == "partition"]
        if summary and summary[0]["partitions"] == len(partitions):
            complete.append(group)
    return complete


def leaders(admin: KafkaAdminClient, topic: str) -> dict[int, int]:
    """partition -> leader id of one topic."""
    return {
        p["partition_index"]: p["leader_id"]
        for t in admin.describe_topics([topic])
        for p in t["partitions"]
    }


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The canary's /metrics as {(sample name, sorted labels): value}, without the ``cluster``
    label every sample carries (one cluster per process)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        (s.name, tuple(sorted((k, v) for k, v in s.labels.items() if k != "cluster"))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
