"""A backlog batch on real Kafka and Spark: read in pieces, each a task of its own (not
coalesced), every record counted once and every event folded in once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from kafka_health.dev.log_lines import stamp
from kafka_health.job.app import BACKLOG_RECORDS, SPLIT_RECORDS, MonitorJob
from kafka_health.model import labels
from tests.spark.test_job_log_signals import entry
from tests.spark.test_job_poison import gc_line
from tests.support.job_support import by_name, create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def test_a_backlog_read_in_pieces_counts_every_record_and_event_once(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path)
    create_topics(config, partitions=1)  # one range, cut by the source into pieces
    t0 = int(time.time() * 1000) - 60_000
    ordinary = BACKLOG_RECORDS + SPLIT_RECORDS // 2
    logs = [
        entry(1, "server", f"[{stamp(t0 + i)}] INFO [LogLoader partition=orders-{i % 50}, "
              f"dir=/var/kafka] Loading producer state till offset {i} with message format "
              "version 2 (kafka.log.UnifiedLog$)")
        for i in range(ordinary)
    ]  # fmt: skip
    # A Full GC in the first piece, one in the middle of the range and one at its very end.
    logs.insert(3, gc_line(t0 + 3, 3))
    logs.insert(ordinary // 2, gc_line(t0 + ordinary // 2, ordinary // 2))
    logs.append(gc_line(t0 + ordinary, ordinary))
    produce(config, config.topics.broker_logs, logs)

    job = MonitorJob(spark, config)
    job.run_available_now()

    assert job._tasks_for(0) is None, "the batch was a backlog: a task per piece"
    counts = job.parse_counts.totals()
    assert sum(counts.values()) == len(logs), "every record counted once"
    events = {key: n for key, n in counts.items() if key[0] == "event"}
    assert sum(events.values()) == 3, events
    signals = job.board.signals()
    assert by_name(signals, "full_gc_count")[labels(broker_id=1)].value == 3
