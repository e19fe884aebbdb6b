"""Real consumer-group traffic for ``kafka-health bench load --groups``: on the monitored cluster,
``groups`` groups each reading ``partitions_per_group`` partitions of their own of one topic
(:data:`TOPIC`), written at a record per partition a second, and each group's committed offsets
moved every second to where the log ended ``lag_s`` ago (OffsetCommit through the admin API,
no consumer: no member). A running job's poller sees the groups, their commits and lag as it
sees an application's; ``bench throughput --groups`` simulates 10,000 of them instead (a local
broker does not hold 100,000 real partitions)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.config import MonitorConfig
from kafka_health.kafka_clients import python_client_options

TOPIC = "bench-load-groups"
GROUP_PREFIX = "bench-load-group-"
"""Not ``kafka-health-``: the job leaves its own groups out by default
(``ConsumerGroupsConfig.exclude``), and these are to be watched as an application's."""
MAX_PARTITIONS = 10_000
"""Partitions of :data:`TOPIC` at most (groups x partitions_per_group)."""


@dataclass(frozen=True)
class GroupTrafficPlan:
    groups: int
    partitions_per_group: int = 10
    lag_s: float = 5.0

    @property
    def partitions(self) -> int:
        return self.groups * self.partitions_per_group

    def problem(self) -> str:
        """Why the plan cannot run ("" when it can)."""
        if self.groups < 1 or self.partitions_per_group < 1 or self.lag_s < 0:
            return "--groups and --partitions-per-group must be at least 1, --group-lag-s >= 0"
        if self.partitions > MAX_PARTITIONS:
            return f"--groups x --partitions-per-group must be at most {MAX_PARTITIONS:,}"
        return ""


@dataclass
class GroupTrafficStats:
    records: int = 0
    commits: int = 0
    commit_failures: int = 0
    seconds: list[float] = field(default_factory=list)


def group_name(n: int) -> str:
    return f"{GROUP_PREFIX}{n:05d}"


def run_group_traffic(
    config: MonitorConfig, plan: GroupTrafficPlan, stop: threading.Event
) -> GroupTrafficStats:
    """Write and commit until ``stop`` is set; the topic is made first when missing."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.errors import KafkaError, TopicAlreadyExistsError
    from kafka.structs import OffsetAndMetadata, TopicPartition

    options = python_client_options(config.kafka)
    admin = KafkaAdminClient(client_id="kafka-health-bench-groups", **options)
    producer = KafkaProducer(acks=1, linger_ms=20, **options)
    stats = GroupTrafficStats()
    try:
        with contextlib.suppress(TopicAlreadyExistsError):
            admin.create_topics([NewTopic(TOPIC, plan.partitions, 1)], timeout_ms=60_000)
        base = _log_ends(config, plan.partitions)
        rounds: deque[tuple[float, int]] = deque()  # (when, records a partition had by then)
        while not stop.is_set():
            started = time.monotonic()
            for p in range(plan.partitions):
                producer.send(TOPIC, value=b"bench", partition=p)
            producer.flush(timeout=30)
            stats.records += plan.partitions
            rounds.append((started, len(stats.seconds) + 1))
            while len(rounds) > 1 and rounds[1][0] <= started - plan.lag_s:
                rounds.popleft()
            committed = rounds[0][1]  # every partition gets a record a round
            for g in range(plan.groups):
                first = g * plan.partitions_per_group
                offsets = {
                    TopicPartition(TOPIC, p): OffsetAndMetadata(base[p] + committed, "", -1)
                    for p in range(first, first + plan.partitions_per_group)
                }
                try:
                    retrying(admin.alter_group_offsets, group_name(g), offsets,
                             within_s=60 if stats.commits == 0 else 0)  # fmt: skip
                    stats.commits += 1
                except KafkaError:
                    stats.commit_failures += 1
            stats.seconds.append(time.monotonic() - started)
            stop.wait(max(0.0, 1.0 - (time.monotonic() - started)))
    finally:
        producer.close(timeout=10)
        admin.close()
    return stats


def retrying(call: Callable[..., Any], *args: Any, within_s: float = 120.0) -> Any:
    """``call(*args)``, again while it fails with a retriable Kafka error, for ``within_s`` (a
    group commit while the coordinator is not ready: ``__consumer_offsets`` is made at a
    cluster's first commit)."""
    from kafka.errors import KafkaError

    deadline = time.monotonic() + within_s
    while True:
        try:
            return call(*args)
        except KafkaError as exc:
            if not getattr(exc, "retriable", False) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _log_ends(config: MonitorConfig, partitions: int) -> list[int]:
    """Each partition's log end offset now (a topic left by an earlier run keeps its records)."""
    from kafka import KafkaConsumer
    from kafka.errors import KafkaError
    from kafka.structs import TopicPartition

    consumer = KafkaConsumer(**python_client_options(config.kafka))
    keys = [TopicPartition(TOPIC, p) for p in range(partitions)]
    deadline = time.monotonic() + 30
    try:
        while True:  # a topic just made may not be in every broker's metadata yet
            try:
                ends = consumer.end_offsets(keys)
                return [int(ends[k]) for k in keys]
            except KafkaError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    finally:
        consumer.close()
