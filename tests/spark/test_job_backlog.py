"""A backlog batch on real Kafka and Spark: read in pieces, each a task of its own (not
coalesced), every record counted once and every event folded in once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from benchmarks.log_lines import envelope, gc_stamp, stamp

from kafka_health.job.app import BACKLOG_RECORDS, SPLIT_RECORDS, MonitorJob
from kafka_health.model import labels
from tests.spark.job_support import by_name, create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def test_a_backlog_read_in_pieces_counts_every_record_and_event_once(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path)
    create_topics(config, partitions=1)  # one range, cut by the source into pieces
    t0 = int(time.time() * 1000) - 60_000
    ordinary = BACKLOG_RECORDS + SPLIT_RECORDS // 2
    logs = [
        (b"1", envelope("1", "server", f"[{stamp(t0 + i)}] INFO [LogLoader partition=orders-"
                        f"{i % 50}, dir=/var/kafka] Loading producer state till offset {i} "
                        "with message format version 2 (kafka.log.UnifiedLog$)"), 0)
        for i in range(ordinary)
    ]  # fmt: skip

    def full_gc(at: int) -> tuple[bytes, bytes, int]:
        line = (f"[{gc_stamp(t0 + at)}][43.803s][info][gc             ] GC({at}) Pause Full "
                "(G1 Compaction Pause) 450M->280M(512M) 1200.000ms")  # fmt: skip
        return (b"1", envelope("1", "gc", line), 0)

    # A Full GC in the first piece, one in the middle of the range and one at its very end.
    logs.insert(3, full_gc(3))
    logs.insert(ordinary // 2, full_gc(ordinary // 2))
    logs.append(full_gc(ordinary))
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
