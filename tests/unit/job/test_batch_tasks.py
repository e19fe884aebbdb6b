"""How many tasks a monitor batch gets: one core is left to the canary query's read (which can
block on a dead leader) unless the batch is big enough for both."""

from __future__ import annotations

from kafka_health.job.app import BACKLOG_RECORDS, batch_tasks
from kafka_health.job.quarantine import OffsetRange

LOGS = "__kafka_health_broker_logs"


def test_a_small_batch_leaves_the_canary_its_slot() -> None:
    ranges = [OffsetRange(LOGS, 0, 100, 160), OffsetRange(LOGS, 1, 5, 5)]
    assert batch_tasks(ranges, idle_tasks=1) == 1
    assert batch_tasks([], idle_tasks=1) == 1


def test_a_batch_of_the_backlog_size_summed_over_partitions_is_not_coalesced() -> None:
    half = BACKLOG_RECORDS // 2
    ranges = [OffsetRange(LOGS, 0, 0, half), OffsetRange(LOGS, 1, 10, 10 + half)]
    assert batch_tasks(ranges, idle_tasks=3) is None  # a task per source piece, every slot
    assert batch_tasks(ranges[:1], idle_tasks=3) == 3


def test_a_new_partition_read_from_its_start_counts_as_a_backlog() -> None:
    ranges = [OffsetRange(LOGS, 0, 0, 3), OffsetRange(LOGS, 7, -2, 40)]
    assert batch_tasks(ranges, idle_tasks=1) is None
