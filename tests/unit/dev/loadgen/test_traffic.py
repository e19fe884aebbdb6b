"""The load generator: deterministic, its mix as documented, every line what it claims to be."""

from __future__ import annotations

import json
from collections import Counter

from kafka_health.cluster_state.records import decode as decode_state
from kafka_health.config import TopicsConfig
from kafka_health.dev.loadgen.traffic import STEADY, STORM, ClusterShape, Traffic
from kafka_health.parsing.reference import classify

NOW_MS = 1_795_000_000_000
KIND_OF = {"isr_shrink": "isr_shrink", "isr_expand": "isr_expand",
           "leader_change": "leader_change", "not_leader": "not_leader",
           "young_gc": "young_gc", "full_gc": "full_gc"}  # fmt: skip


def test_the_same_seed_gives_the_same_records() -> None:
    a = Traffic(ClusterShape(brokers=5, partitions=50, topics=5), TopicsConfig(), seed=7)
    b = Traffic(ClusterShape(brokers=5, partitions=50, topics=5), TopicsConfig(), seed=7)
    assert a.log_records(NOW_MS, 500) == b.log_records(NOW_MS, 500)
    assert a.log_records(NOW_MS, 10) != Traffic(a.shape, TopicsConfig(), seed=8).log_records(
        NOW_MS, 10
    )


def outcomes(storm: bool, count: int = 20_000) -> Counter[str]:
    traffic = Traffic(ClusterShape(brokers=20, partitions=2000, topics=10), TopicsConfig(), 3)
    found: Counter[str] = Counter()
    for _topic, key, value in traffic.log_records(NOW_MS, count, storm=storm):
        envelope = json.loads(value)
        assert key == envelope["broker_id"].encode()
        c = classify(envelope["message"])
        kind = c.event if c.outcome == "event" else c.outcome
        assert kind is not None
        found[kind] += 1
    return found


def test_each_line_of_the_mix_is_the_event_it_stands_for() -> None:
    """Ordinary lines are no event; each event line parses as its event, in its share."""
    for storm, mix in ((False, STEADY), (True, STORM)):
        found = outcomes(storm)
        assert found["malformed"] == 0, found
        total = sum(found.values())
        for kind, share in mix.items():
            seen = found["unrecognised"] if kind == "info" else found[KIND_OF[kind]]
            expected = total * share / 1000
            assert abs(seen - expected) <= max(25, 0.15 * expected), (kind, seen, expected)


def test_a_snapshot_holds_every_partition_and_broker_then_its_summary() -> None:
    shape = ClusterShape(brokers=7, partitions=300, topics=3)
    records = list(Traffic(shape, TopicsConfig(), 1).cluster_snapshot(NOW_MS))
    kinds = Counter(decode_state(value)["kind"] for _t, _k, value in records)
    assert kinds == {"partition": 300, "broker": 7, "snapshot": 1}
    assert decode_state(records[-1][2])["kind"] == "snapshot"
    replicas = [decode_state(v)["replicas"] for _t, _k, v in records[:300]]
    assert all(len(set(r)) == 3 and all(1 <= b <= 7 for b in r) for r in replicas)


def test_one_canary_outcome_per_broker_each_round() -> None:
    traffic = Traffic(ClusterShape(brokers=4, partitions=40, topics=2), TopicsConfig(), 1)
    first = traffic.canary_results(NOW_MS)
    second = traffic.canary_results(NOW_MS + 1000)
    assert [json.loads(v)["partition"] for _t, _k, v in first] == [0, 1, 2, 3]
    assert {json.loads(v)["seq"] for _t, _k, v in second} == {2}


def test_a_canary_round_writes_each_acknowledged_probe_to_the_canary_topic() -> None:
    """What the job's loss check reads back: every outcome's probe, the same key fields."""
    from kafka_health.canary.records import Probe

    topics = TopicsConfig()
    traffic = Traffic(ClusterShape(brokers=3, partitions=30, topics=2), topics, 1)
    records = traffic.canary_round(NOW_MS)
    results = [json.loads(v) for t, _k, v in records if t == topics.canary_results]
    probes = [Probe.decode(v) for t, _k, v in records if t == topics.canary]
    assert len(results) == len(probes) == 3
    keys = ("canary_id", "partition", "seq", "acks", "send_ms")
    assert {tuple(r[k] for k in keys) for r in results} == {
        tuple(getattr(p, k) for k in keys) for p in probes
    }


def test_the_plain_python_monitor_finds_what_the_load_holds() -> None:
    """The throughput benchmark's yardstick does the detections, not just the reading."""
    from kafka_health.dev.loadgen.plain_monitor import PlainMonitor

    traffic = Traffic(ClusterShape(brokers=20, partitions=2000, topics=10), TopicsConfig(), 5)
    monitor = PlainMonitor()
    records = traffic.log_records(NOW_MS, 5000, storm=True)
    for _topic, _key, value in records:
        monitor.broker_log(value)
    expected = Counter(
        c.event for c in (classify(json.loads(v)["message"]) for _t, _k, v in records)
        if c.outcome == "event"
    )  # fmt: skip
    found: Counter[str] = Counter()
    for (name, _broker), n in monitor.events.items():
        found[name] += n
    assert found == expected
    for _topic, _key, value in traffic.cluster_snapshot(NOW_MS):
        monitor.cluster_state(value)
    for _topic, _key, value in traffic.canary_results(NOW_MS):
        monitor.canary_result(value)
    assert not monitor.bad and len(monitor.canary) == 20


def test_rotated_topics_vanish_from_the_next_snapshot_under_their_old_names() -> None:
    shape = ClusterShape(brokers=3, partitions=40, topics=4)
    traffic = Traffic(shape, TopicsConfig(), 1)

    def topics() -> set[str]:
        return {
            decode_state(v)["topic"]
            for _t, _k, v in traffic.cluster_snapshot(NOW_MS)
            if decode_state(v)["kind"] == "partition"
        }

    before = topics()
    deleted = traffic.rotate_topics(2)
    after = topics()
    assert deleted == ["load-0000-g000", "load-0001-g000"] and set(deleted) <= before
    assert not set(deleted) & after and len(after) == 4
    assert {"load-0000-g001", "load-0001-g001"} <= after
    assert len({len(name) for name in before | after}) == 1, "a recreated topic's name is no longer"
