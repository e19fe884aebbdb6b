"""Signals from broker logs on real Kafka and Spark: elections counted once, GC pauses against
the session timeout the broker's own log states, ISR news between snapshots, bad records
dead-lettered and counted."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer

from kafka_health.cluster_state.records import PartitionState, SnapshotSummary
from kafka_health.dev.log_lines import envelope, gc_stamp, stamp
from kafka_health.job.app import MonitorJob
from kafka_health.kafka_clients import python_client_options
from kafka_health.model import labels
from tests.support.job_support import by_name, create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]

FIXTURES = Path(__file__).parents[1] / "fixtures" / "logs"


def kafka_config_dump(at: str) -> str:
    """The real 330-line KafkaConfig dump of a 3.9.1 ZooKeeper-mode broker (6 s session),
    stamped ``at``: one entry, as the shipper joins it."""
    text = (FIXTURES / "server-3.9.1-zookeeper-startup.log").read_text()
    start = text.index("[2026-11-23 22:34:27,379] INFO KafkaConfig values:")
    dump = text[start : text.index("\n[", start)]
    return dump.replace("[2026-11-23 22:34:27,379]", f"[{at}]", 1)


def entry(broker: int, kind: str, message: str) -> tuple[bytes, bytes, int]:
    return (str(broker).encode(), envelope(str(broker), kind, message), 0)


def test_log_events_become_exact_signals(kafka_cluster: Any, spark: Any, tmp_path: Path) -> None:
    config = job_config(kafka_cluster, tmp_path)  # session_timeout_ms: the default 18 s
    create_topics(config, partitions=1)
    t0 = int(time.time() * 1000) - 5000
    logs = [
        # One election of orders-0 (epoch 5, new leader 2), reported in three logs.
        entry(1, "controller", f"[{stamp(t0)}] INFO [Controller id=1] Partition orders-0 "
              "completed preferred replica leader election. New leader is 2 "
              "(kafka.controller.KafkaController)"),
        entry(2, "state-change", f"[{stamp(t0 + 10)}] INFO [Broker id=2] Leader orders-0 with "
              "topic id Some(uXCu8FIGQSS-JDdGwfYZ6g) starts at leader epoch 5 from offset 18 with "
              "partition epoch 5, high watermark 18, ISR [2,3], adding replicas [] and removing "
              "replicas [] . Previous leader Some(1) and previous leader epoch was 4. "
              "(state.change.logger)"),
        entry(3, "state-change", f"[{stamp(t0 + 20)}] INFO [Broker id=3] Follower orders-0 starts "
              "at leader epoch 5 from offset 18 with partition epoch 5 and high watermark 18. "
              "Current leader is 2. Previous leader Some(1) and previous leader epoch was 4. "
              "(state.change.logger)"),
        # Broker 1's start-up dump: zookeeper.session.timeout.ms = 6000 (the config says 18 s).
        entry(1, "server", kafka_config_dump(stamp(t0 - 60_000))),
        # Full GC of 10.39 s on broker 1, longer than its 6 s session timeout; one of 0.2 s.
        entry(1, "gc", f"[{gc_stamp(t0 + 100)}][43.803s][info][gc             ] GC(19) Pause "
              "Full (G1 Compaction Pause) 450M->280M(512M) 10390.000ms"),
        entry(1, "gc", f"[{gc_stamp(t0 + 200)}][53.803s][info][gc             ] GC(20) Pause "
              "Full (System.gc()) 300M->100M(512M) 200.000ms"),
        # ISR news after the snapshot: orders-1 shrinks then expands; orders-2 only shrinks.
        entry(1, "server", f"[{stamp(t0 + 1000)}] INFO [Partition orders-1 broker=1] Shrinking "
              "ISR from 1,2,3 to 1 (kafka.cluster.Partition)"),
        entry(1, "server", f"[{stamp(t0 + 2000)}] INFO [Partition orders-1 broker=1] Expanding "
              "ISR from 1 to 1,2,3 (kafka.cluster.Partition)"),
        entry(3, "server", f"[{stamp(t0 + 1500)}] INFO [Partition orders-2 broker=3] Shrinking "
              "ISR from 3,1,2 to 3 (kafka.cluster.Partition)"),
        # Garbage: dead-lettered with its offset, counted by reason.
        (b"1", b"\x00\x01\xff\xfe binary garbage", 0),
    ]  # fmt: skip
    snapshot = [
        (s.key, s.encode(), 0)
        for s in (
            PartitionState(t0, "orders", 1, 1, 1, [1, 2, 3], [1, 2, 3], [], 2),
            PartitionState(t0, "orders", 2, 3, 1, [1, 2, 3], [3, 1, 2], [], 2),
        )
    ] + [(SnapshotSummary.key, SnapshotSummary(t0, t0 + 5, 1, 2, 3, 3, 1, "x").encode(), 0)]
    produce(config, config.topics.broker_logs, logs)
    produce(config, config.topics.cluster_state, snapshot)

    job = MonitorJob(spark, config)
    job.run_available_now()
    signals = job.board.signals()

    elections = by_name(signals, "leader_elections_per_minute")
    assert elections[labels()].value == 1, "one election, however many logs report it"
    assert elections[labels(broker_id=2)].value == 1
    assert labels(broker_id=3) not in elections and labels(broker_id=1) not in elections

    assert by_name(signals, "full_gc_count")[labels(broker_id=1)].value == 2
    assert by_name(signals, "full_gc_pause_seconds_max")[labels(broker_id=1)].value == (
        pytest.approx(10.39)
    )
    over = by_name(signals, "full_gc_over_session_timeout")[labels(broker_id=1)]
    assert over.value == 1 and over.details["session_timeout_s"] == 6.0
    assert over.details["session_timeout_source"] == "log"

    urp = by_name(signals, "under_replicated_partitions")
    assert urp[labels()].details["partitions"] == ["orders-2"]
    assert by_name(signals, "under_min_isr_partitions")[labels()].details["partitions"] == [
        "orders-2"
    ]

    counts = job.parse_counts.totals()
    assert sum(n for (outcome, _r, _t), n in counts.items() if outcome == "event") == 9
    bad = {reason: n for (outcome, reason, _t), n in counts.items() if outcome == "unrecognised"}
    assert bad == {"binary": 1} or bad == {"not_utf8": 1}, bad

    consumer = KafkaConsumer(
        config.topics.dead_letter, auto_offset_reset="earliest", consumer_timeout_ms=10_000,
        **python_client_options(config.kafka),
    )  # fmt: skip
    letters = [json.loads(m.value) for m in consumer]
    consumer.close()
    assert len(letters) == 1
    assert letters[0]["source_topic"] == config.topics.broker_logs
    assert letters[0]["source_offset"] == len(logs) - 1
    assert letters[0]["reason"] in ("binary", "not_utf8")
