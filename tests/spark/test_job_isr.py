"""ISR state from prober snapshots (and log events) on real Kafka and Spark, across restarts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cluster_state.records import PartitionState, SnapshotSummary
from kafka_health.job.app import MonitorJob
from kafka_health.model import labels
from tests.support.job_support import by_name, create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def partition(at: int, topic: str, n: int, leader: int, isr: list[int], epoch: int = 1,
              min_isr: int = 2) -> tuple[bytes, bytes, int]:  # fmt: skip
    state = PartitionState(at, topic, n, leader, epoch, [1, 2, 3], isr, [], min_isr)
    return (state.key, state.encode(), 0)


def done(at: int) -> tuple[bytes, bytes, int]:
    summary = SnapshotSummary(at, at + 100, 2, 4, 3, 3, 1, "test")
    return (summary.key, summary.encode(), 0)


def partitions_of(signal: Any) -> list[str]:
    return list(signal.details["partitions"])


def test_snapshots_give_exact_unhealthy_sets_also_after_a_restart(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path, isr_expire_after_s=60.0)
    create_topics(config, partitions=1)
    t0 = int(time.time() * 1000)
    first = [
        partition(t0, "orders", 0, 1, [1, 2, 3]),
        partition(t0, "orders", 1, 2, [2]),  # under-replicated and under min ISR
        partition(t0, "orders", 2, 3, [3, 1]),  # under-replicated only
        partition(t0, "gone", 0, 1, [1]),  # a topic about to be deleted
        done(t0),
    ]
    second = [
        partition(t0 + 10_000, "orders", 0, 1, [1, 2, 3]),
        partition(t0 + 10_000, "orders", 1, 2, [2], epoch=2),  # re-elected: an election
        partition(t0 + 10_000, "orders", 2, 3, [3, 1, 2]),  # healthy again
        done(t0 + 10_000),
    ]
    third = [  # 'gone' missing from the snapshots for 60 s: its topic was deleted
        partition(t0 + 70_000, "orders", 0, 1, [1, 2, 3]),
        partition(t0 + 70_000, "orders", 1, 2, [2], epoch=2),
        partition(t0 + 70_000, "orders", 2, 3, [3, 1, 2]),
        done(t0 + 70_000),
    ]
    produce(config, config.topics.cluster_state, first + second + third)

    job = MonitorJob(spark, config)
    job.run_available_now()
    signals = job.board.signals()
    urp = by_name(signals, "under_replicated_partitions")
    assert partitions_of(urp[labels()]) == ["orders-1"]
    assert urp[labels(broker_id=2)].value == 1
    assert labels(broker_id=3) not in urp, "orders-2 recovered"
    under_min = by_name(signals, "under_min_isr_partitions")
    assert partitions_of(under_min[labels()]) == ["orders-1"]
    assert by_name(signals, "offline_partitions")[labels()].value == 0
    elections = by_name(signals, "leader_elections_per_minute")
    assert elections[labels(broker_id=2)].value == 1

    # Restart from the checkpoint: one new snapshot describes only orders-0, yet the state of
    # orders-1 saved with the detectors still counts; nothing is counted twice.
    produce(config, config.topics.cluster_state, [partition(t0 + 80_000, "orders", 0, 1, [1])])
    restarted = MonitorJob(spark, config)
    restarted.run_available_now()
    signals = restarted.board.signals()
    urp = by_name(signals, "under_replicated_partitions")
    assert partitions_of(urp[labels()]) == ["orders-0", "orders-1"]
    assert urp[labels(broker_id=1)].value == 1 and urp[labels(broker_id=2)].value == 1
    under_min = by_name(signals, "under_min_isr_partitions")
    assert partitions_of(under_min[labels()]) == ["orders-0", "orders-1"]
