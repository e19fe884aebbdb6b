"""The cluster-state prober: exact records, filters, and bounded memory at 50,000 partitions."""

from __future__ import annotations

import dataclasses

import pytest
from tests.support.canary_fakes import (
    CountingSink,
    FakeClock,
    FakeSnapshotSource,
    partition_entry,
)

from kafka_health.cluster_state.prober import ClusterStateProber
from kafka_health.cluster_state.records import decode
from kafka_health.config import ClusterStateConfig

BROKERS = [
    {"broker_id": 1, "host": "h1", "port": 9092, "rack": "a", "is_fenced": False},
    {"broker_id": 2, "host": "h2", "port": 9092, "rack": None, "is_fenced": False},
    {"broker_id": 3, "host": "h3", "port": 9092, "rack": None, "is_fenced": True},
]


def run(source: FakeSnapshotSource, **config: object) -> tuple[CountingSink, list[dict]]:  # type: ignore[type-arg]
    sink = CountingSink()
    prober = ClusterStateProber(
        source=source,
        sink=sink,
        config=dataclasses.replace(ClusterStateConfig(), **config),  # type: ignore[arg-type]
        clock=FakeClock(wall=1767225600.0),
    )
    prober.snapshot()
    return sink, [decode(value) for _, value in sink.records]


def test_records_of_one_snapshot_in_order() -> None:
    source = FakeSnapshotSource(
        BROKERS,
        {"orders": [partition_entry(0, 1, [1, 2, 3], [1, 2]), partition_entry(1, -1, [3], [3])]},
        min_isr={"orders": 2},
    )
    sink, records = run(source)
    assert [r["kind"] for r in records] == ["broker"] * 3 + ["partition"] * 2 + ["snapshot"]
    assert sink.records[0] == (
        b"broker/1",
        b'{"schema":"kafka-health/cluster-state/v1","kind":"broker","snapshot_ms":1767225600000,'
        b'"broker_id":1,"host":"h1","port":9092,"rack":"a","live":true,"controller":true}',
    )
    assert sink.records[3] == (
        b"partition/orders/0",
        b'{"schema":"kafka-health/cluster-state/v1","kind":"partition",'
        b'"snapshot_ms":1767225600000,"topic":"orders","partition":0,"leader":1,'
        b'"leader_epoch":0,"replicas":[1,2,3],"isr":[1,2],"offline_replicas":[],"min_isr":2,'
        b'"offline":false,"under_replicated":true,"under_min_isr":false,"error":null}',
    )
    assert records[2]["live"] is False, "a fenced broker is registered but not live"
    offline = records[4]
    assert (offline["offline"], offline["under_min_isr"]) == (True, True)
    assert records[-1] == {
        "schema": "kafka-health/cluster-state/v1", "kind": "snapshot",
        "snapshot_ms": 1767225600000, "done_ms": 1767225600000, "topics": 1, "partitions": 2,
        "brokers": 3, "live_brokers": 2, "controller_id": 1, "cluster_id": "test-cluster",
    }  # fmt: skip


# (case, isr, min_isr, under_replicated, under_min_isr, why)
FLAGS = [
    ("in sync", [1, 2, 3], 2, False, False, "full ISR"),
    ("one replica behind", [1, 2], 2, True, False, "at min ISR: still writable with acks=all"),
    ("two replicas behind", [1], 2, True, True, "acks=all writes fail: NotEnoughReplicas"),
    ("min ISR unknown", [1], None, True, False, "unreadable config is not an alarm"),
]


@pytest.mark.parametrize(
    ("case", "isr", "min_isr", "under_rep", "under_min", "why"), FLAGS, ids=[f[0] for f in FLAGS]
)
def test_replication_flags(
    case: str, isr: list[int], min_isr: int | None, under_rep: bool, under_min: bool, why: str
) -> None:
    source = FakeSnapshotSource(
        BROKERS, {"t": [partition_entry(0, 1, [1, 2, 3], isr)]}, min_isr={"t": min_isr}
    )
    _, records = run(source)
    partition = next(r for r in records if r["kind"] == "partition")
    assert (partition["under_replicated"], partition["under_min_isr"]) == (under_rep, under_min), (
        why
    )


def test_unregistered_replica_holders_are_reported_not_live() -> None:
    source = FakeSnapshotSource(BROKERS[:1], {"t": [partition_entry(0, 1, [1, 7], [1])]})
    _, records = run(source)
    gone = [r for r in records if r["kind"] == "broker" and r["broker_id"] == 7]
    assert gone and gone[0]["live"] is False and gone[0]["host"] is None


# (case, config, topics kept, why)
FILTERS = [
    ("all topics", {}, ["__consumer_offsets", "orders", "payments"], "default: everything"),
    ("pattern", {"topics_regex": "orders|pay.*"}, ["orders", "payments"], "full-match regex"),
    ("no internal", {"include_internal": False}, ["orders", "payments"], "internal flag"),
]


@pytest.mark.parametrize(("case", "config", "kept", "why"), FILTERS, ids=[f[0] for f in FILTERS])
def test_topic_filters(case: str, config: dict[str, object], kept: list[str], why: str) -> None:
    one = [partition_entry(0, 1, [1], [1])]
    source = FakeSnapshotSource(
        BROKERS,
        {"__consumer_offsets": one, "orders": one, "payments": one},
        internal={"__consumer_offsets"},
    )
    _, records = run(source, **config)
    assert sorted(r["topic"] for r in records if r["kind"] == "partition") == kept, why


def test_fifty_thousand_partitions_in_bounded_pages() -> None:
    topics = {
        f"topic-{t:04d}": [partition_entry(p, 1, [1, 2, 3], [1, 2, 3]) for p in range(50)]
        for t in range(1000)
    }
    source = FakeSnapshotSource(BROKERS, topics)
    sink, records = run(source, page_partitions=2000)
    assert records[-1]["partitions"] == 50_000 and records[-1]["topics"] == 1000
    assert sink.max_unflushed <= 2000 + len(BROKERS), "at most one page waits for Kafka"
    assert len(source.config_calls) == 25, "min ISR read once per page, not per topic"
    assert max(len(call) for call in source.config_calls) == 40


def test_a_topic_split_across_pages_is_counted_once() -> None:
    topics = {"big": [partition_entry(p, 1, [1], [1]) for p in range(5)]}
    _, records = run(FakeSnapshotSource(BROKERS, topics), page_partitions=2)
    assert (records[-1]["topics"], records[-1]["partitions"]) == (1, 5)
