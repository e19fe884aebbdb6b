"""Cluster-state snapshot records (versioned JSON), written to ``topics.cluster_state``.

One snapshot = one record per broker, one per partition, then one closing ``snapshot``
record, all with the same ``snapshot_ms`` (wall time the snapshot started), in this order
on a single-partition topic. Keys: ``broker/<id>``, ``partition/<topic>/<n>``, ``snapshot``.
Schema ``kafka-health/cluster-state/v1``; ``kind`` tells the three shapes apart::

    {"schema":"kafka-health/cluster-state/v1","kind":"broker","snapshot_ms":1767225600000,
     "broker_id":1,"host":"10.0.0.1","port":9092,"rack":null,"live":true,"controller":false}

    {"schema":"kafka-health/cluster-state/v1","kind":"partition","snapshot_ms":1767225600000,
     "topic":"orders","partition":0,"leader":1,"leader_epoch":7,"replicas":[1,2,3],
     "isr":[1,2],"offline_replicas":[3],"min_isr":2,"offline":false,
     "under_replicated":true,"under_min_isr":false,"error":null}

    {"schema":"kafka-health/cluster-state/v1","kind":"snapshot","snapshot_ms":1767225600000,
     "done_ms":1767225600420,"topics":12,"partitions":240,"brokers":3,"live_brokers":3,
     "controller_id":2,"cluster_id":"cG6C272CQgy0fyffWekIkA"}

``live``: registered and not fenced. Brokers that hold replicas but are not registered at
all (ZooKeeper mode forgets dead brokers) appear with ``live`` false and null host.
``leader``: -1 when none; ``offline``: no leader. ``under_replicated``: fewer ISR than
replicas; ``under_min_isr``: fewer ISR than ``min_isr`` (null if the config could not be
read). ``error``: the partition's Kafka error class (e.g. ``LeaderNotAvailable``) or null.
A snapshot without its closing record is incomplete (the prober failed part-way).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from kafka_health.model import ReplicationJudged

SCHEMA = "kafka-health/cluster-state/v1"
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True)


def _compact(kind: str, data: dict[str, Any]) -> bytes:
    return _ENCODER.encode({"schema": SCHEMA, "kind": kind, **data}).encode("ascii")


def _flat(obj: Any) -> dict[str, Any]:
    """The dataclass's fields as a dict (``asdict`` deep-copies: too slow at 50,000)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


@dataclass(frozen=True)
class BrokerState:
    """One broker in a snapshot."""

    snapshot_ms: int
    broker_id: int
    host: str | None
    port: int | None
    rack: str | None
    live: bool
    controller: bool

    @property
    def key(self) -> bytes:
        return f"broker/{self.broker_id}".encode()

    def encode(self) -> bytes:
        return _compact("broker", _flat(self))


@dataclass(frozen=True)
class PartitionState(ReplicationJudged):
    """One partition in a snapshot."""

    snapshot_ms: int
    topic: str
    partition: int
    leader: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]
    offline_replicas: list[int]
    min_isr: int | None
    error: str | None = None

    @property
    def offline(self) -> bool:
        return self.leader < 0

    @property
    def key(self) -> bytes:
        return f"partition/{self.topic}/{self.partition}".encode()

    def encode(self) -> bytes:
        return _compact(
            "partition",
            {
                "snapshot_ms": self.snapshot_ms,
                "topic": self.topic,
                "partition": self.partition,
                "leader": self.leader,
                "leader_epoch": self.leader_epoch,
                "replicas": self.replicas,
                "isr": self.isr,
                "offline_replicas": self.offline_replicas,
                "min_isr": self.min_isr,
                "offline": self.offline,
                "under_replicated": self.under_replicated,
                "under_min_isr": self.under_min_isr,
                "error": self.error,
            },
        )


@dataclass(frozen=True)
class SnapshotSummary:
    """The closing record of a snapshot: counts, so the reader knows it is complete."""

    snapshot_ms: int
    done_ms: int
    topics: int
    partitions: int
    brokers: int
    live_brokers: int
    controller_id: int | None
    cluster_id: str | None

    key = b"snapshot"

    def encode(self) -> bytes:
        return _compact("snapshot", _flat(self))


def decode(raw: bytes) -> dict[str, Any]:
    """Parse a cluster-state record (any kind); raise ValueError for another schema."""
    data: dict[str, Any] = json.loads(raw)
    if data.get("schema") != SCHEMA:
        raise ValueError(f"not a {SCHEMA} record: {data.get('schema')!r}")
    return data
