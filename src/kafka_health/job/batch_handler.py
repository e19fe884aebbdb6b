"""What the job does with each micro-batch (``foreachBatch``) of its two queries.

A monitor batch is collected on Spark's stream thread: each task decodes, parses and tallies
its records in the JVM (:func:`~.batch.driver_rows`); only the tallies, and the few records
the detectors read, reach the driver. A batch whose parse fails a Spark task is read again
part by part to set the failing records aside (:mod:`.quarantine`). Its dead letters are written
(:mod:`.dead_letter_writer`); its decode, fold and save run on the fold worker
(:mod:`.fold_worker`) while Spark commits the batch and plans the next one. A canary batch
(the probes read back from the monitored cluster) is folded where it is collected.

Each batch is folded once per batch id: one folded before a restart is skipped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_health.config import MonitorConfig
from kafka_health.job.batch import decode_rows, driver_rows, parsed_logs
from kafka_health.job.board import CANARY_QUERY, MONITOR_QUERY, SignalBoard
from kafka_health.job.dead_letter_writer import DeadLetterWriter
from kafka_health.job.durability import Durability
from kafka_health.job.fold_worker import FoldWorker
from kafka_health.job.health import JobHealth, classify_error
from kafka_health.job.interruption import stop_aware
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.quarantine import (
    Culprit,
    OffsetRange,
    batch_ranges,
    culprit_counts,
    describe_failure,
    has_dead_letters,
    is_record_failure,
    isolate,
    ranges_read,
    read_ranges,
    within,
)
from kafka_health.job.rejected_counts import RejectedCounts
from kafka_health.job.sent_letters import SentLetters
from kafka_health.job.step_timings import StepTimer

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

Records = Callable[["DataFrame", MonitorConfig], "DataFrame"]
"""The Kafka source's records of the monitor's topics -> the rows a batch tallies (the job's:
:func:`~.batch.monitor_records`)."""

SPLIT_RECORDS = 5_000
"""The monitor query's source reads an offset range of more records in equal pieces of at most
this many (Spark's ``maxRecordsPerPartition``). A backlog's pieces are its tasks, each started
on whichever slot is free, so the slots finish within about one piece of each other (a quarter
of a second of one core). Each piece costs 10-20 ms more of a core (its reader, its copy of
the generated stages); pieces of 2,500, a task each, were no faster (BENCHMARKS.md)."""
BACKLOG_RECORDS = 20_000
"""A batch of at least this many records runs on every core (about 1 s of one core's work).
Lower (2,000, ranges in pieces of 1,000) did not shorten the sustained benchmark's batches at
1,000 log records/s: the other core is busy then too (p50 1.86 s against 1.64 s)."""
CANARY_QUERY_TASKS = 1
"""Task slots the canary query's read may hold (blocked on a dead leader) at a time."""


def batch_tasks(ranges: Iterable[OffsetRange], idle_tasks: int) -> int | None:
    """Tasks for a batch reading ``ranges``: ``idle_tasks`` for a small one; None (a task per
    piece of the source, on every slot) for one of BACKLOG_RECORDS or more, or one reading a
    new partition from its start (its size unknown).

    A backlog is not coalesced: Spark's ``coalesce`` groups the pieces by their position, not
    their size, and gave one of two slots 30,000 records of a 42,441-record storm batch, the
    other 12,441 (the other slot then idle for 0.8 s of the 1.4 s collect, BENCHMARKS.md)."""
    records, unknown = 0, False
    for r in ranges:
        unknown = unknown or r.start < 0
        records += r.size if r.start >= 0 else 0
    return None if unknown or records >= BACKLOG_RECORDS else idle_tasks


def monitor_parallelism(spark: SparkSession) -> int:
    """Task slots the monitor query's small batches use: every core but the canary query's.

    The canary query reads the monitored cluster in one task, which can block 30 s on a dead
    or hung leader ("position ... could not be determined"); the monitor query reads the
    transport with the other slots, so that block never starves it (seen: two brokers down,
    the canary query's tasks held both slots of local[2] and the monitor query completed no
    batch for 30 s: MonitorStalled). At idle a batch holds a few dozen records over every
    partition of the transport's topics, and a task per partition costs ~0.1 s: one task per
    remaining core reads it. A backlog (a storm's burst, a restart's catch-up) is read by
    every core (:func:`batch_tasks`)."""
    slots = max(1, int(spark.sparkContext.defaultParallelism))
    return max(1, slots - CANARY_QUERY_TASKS)


class BatchHandler:
    """Collects, quarantines, dead-letters and folds the queries' micro-batches."""

    def __init__(
        self,
        spark: SparkSession,
        config: MonitorConfig,
        board: SignalBoard,
        health: JobHealth,
        counts: tuple[ParseCounts, RejectedCounts],
        durability: Durability,
        publish_soon: Callable[[], None],
        records: Records,
    ) -> None:
        """``records``: the monitor query's rows of the source's records (the job's is
        :func:`~.batch.monitor_records`), run by the query and again by the quarantine."""
        self.spark = spark
        self.config = config
        self.board = board
        self.health = health
        self.parse_counts, self.rejected_counts = counts
        self.durability = durability
        self.checkpoint: Path = durability.checkpoints[MONITOR_QUERY]
        self.topics = [
            config.topics.canary_results, config.topics.cluster_state, config.topics.broker_logs
        ]  # fmt: skip
        """The monitor query's topics (on the transport)."""
        self._publish_soon = publish_soon
        self.records = records
        self.parallelism = monitor_parallelism(spark)
        self.folds = FoldWorker("kafka-health-fold")
        sent = SentLetters(self.checkpoint / "detectors" / "dead_letters_sent.json")
        self.dead_letters = DeadLetterWriter(spark, config, sent, self.batch_ranges)

    # ------------------------------------------------------------------ the canary query

    def process_canary_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Fold the probes read back from the canary topic into the loss detector, once per id."""
        if batch_id <= self.board.last_batch(CANARY_QUERY):
            log.info("canary batch %d was folded in before the restart: skipped", batch_id)
            return
        timer = StepTimer()
        with timer.step("collect"):
            decoded = decode_rows(batch.coalesce(CANARY_QUERY_TASKS).collect())
        with timer.step("fold"):
            folded = self.board.fold(batch_id, decoded.batch, query=CANARY_QUERY)
        if folded:
            self.rejected_counts.add(decoded.rejected)  # probes: counted, left in their topic
            with timer.step("save"):
                self.durability.save_if_due(CANARY_QUERY)
            with timer.step("publish"):
                self._publish_soon()
        self.health.on_steps(CANARY_QUERY, timer.seconds)

    # ------------------------------------------------------------------ the monitor query

    def process_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Collect a parsed batch's rows and write its dead letters; its decode, fold and save
        run on the fold worker (:mod:`.fold_worker`) while Spark commits it and plans the next
        batch. Once per batch id: a batch folded before a restart is skipped."""
        timer = StepTimer()
        with timer.step("wait"):
            self.wait_for_folds()  # the previous batch's: its failure fails the query here
        if batch_id <= self.board.batch_id:
            log.info("batch %d was folded in before the restart: skipped", batch_id)
            return
        # One Spark job reads, parses and tallies the batch once (``batch`` is already planned:
        # Spark hands foreachBatch the executed RDD of the query's plan); dead letters (rare)
        # read it again, parsed by Spark's plan of the same parse.
        with timer.step("plan"):
            tasks = self.tasks_for(batch_id)
            tallied = batch if tasks is None else batch.coalesce(tasks)
        culprits: list[Culprit] = []
        with timer.step("collect"):
            try:
                collected = driver_rows(tallied, self.config)
                lettered = [batch] if has_dead_letters(collected) else []
            except Exception as exc:
                if not is_record_failure(exc):
                    raise
                with timer.step("quarantine"):
                    collected, lettered, culprits = self.quarantine(batch_id, exc)
        if lettered:
            with timer.step("dead_letters"):  # the batch, or its parts that hold some
                parsed = [parsed_logs(part, self.config) for part in lettered]
                self.dead_letters.write_parsed(parsed, batch_id)
        self.folds.submit(
            # Its Spark calls (the rejected records' dead letters) stopped by a stop: raised
            # at the next batch in the few words Spark takes for its stop (.interruption).
            stop_aware(lambda: self.fold_batch(batch_id, collected, culprits, timer)),
            self.health.read_to(MONITOR_QUERY),
        )

    def fold_batch(
        self, batch_id: int, collected: list[Any], culprits: list[Culprit], timer: StepTimer
    ) -> None:
        """The fold worker's part of a monitor batch: decode its rows, dead-letter the records
        rejected, fold the rest into the detectors, save when due, publish soon."""
        with timer.step("decode"):
            decoded = decode_rows(collected, self._now_ms())
            decoded.counts.extend(culprit_counts(culprits))
        if decoded.rejected:
            with timer.step("rejected"):
                self.dead_letters.reject(batch_id, decoded.rejected)
        with timer.step("fold"), self.durability.lock:  # counts and batch id move together
            self.board.fold(batch_id, decoded.batch)
            self.parse_counts.add(decoded.counts)
            self.rejected_counts.add(decoded.rejected, decoded.log_rejected)
        with timer.step("save"):
            self.durability.save_if_due(MONITOR_QUERY)
        with timer.step("publish"):
            self._publish_soon()
        self.health.on_steps(MONITOR_QUERY, timer.seconds)

    def wait_for_folds(self) -> None:
        """Wait for the pending batch's fold. Its failure is raised, and marks the query for a
        rewind when it starts again: Spark committed that batch, the detectors do not hold it."""
        try:
            self.folds.wait()
        except BaseException:
            self.durability.mark_unfolded()
            raise

    def drain_folds(self) -> None:
        """:meth:`wait_for_folds`, a failure logged (the query stops or starts again)."""
        try:
            self.wait_for_folds()
        except Exception:
            log.exception("a batch's fold failed: the query is rewound to the detectors' "
                          "batch %d when it starts again", self.board.batch_id)  # fmt: skip

    def tasks_for(self, batch_id: int) -> int | None:
        """Tasks for batch ``batch_id``: one per core less the canary query's at idle, a task
        per source piece (on every core) for a backlog of at least BACKLOG_RECORDS (its size
        from the offset log)."""
        ranges = self.batch_ranges(batch_id)
        if ranges is None:  # no offset log to read (a test's batch): the default
            return self.parallelism
        return batch_tasks(ranges, self.parallelism)

    def batch_ranges(self, batch_id: int) -> list[OffsetRange] | None:
        """The offset ranges batch ``batch_id`` reads, from the offset log; None without one."""
        try:
            return batch_ranges(self.checkpoint, batch_id, self.topics)
        except (OSError, ValueError):
            return None

    def quarantine(
        self, batch_id: int, error: Exception
    ) -> tuple[list[Any], list[DataFrame], list[Culprit]]:
        """The batch's rows without the records that fail its parse (:mod:`.quarantine`): the
        collected rows of every part that ran, the parts holding dead letters, the culprits."""
        log.error(
            "batch %d failed in a Spark task (%s): re-reading its records to set aside the "
            "ones that fail the parse", batch_id, classify_error(error) or type(error).__name__,
        )  # fmt: skip
        ranges = batch_ranges(self.checkpoint, batch_id, self.topics)
        raw = read_ranges(self.spark, self.config.transport_kafka(), ranges).cache()
        try:
            concrete = ranges_read(raw)  # a failure here is the transport's: raised as it is

            def attempt(part: list[OffsetRange]) -> tuple[list[Any], DataFrame]:
                records = self.records(within(raw, part), self.config)
                return driver_rows(records.coalesce(self.parallelism), self.config), records

            found = isolate(concrete, attempt, describe=describe_failure)
            self.health.on_quarantine(MONITOR_QUERY, len(found.culprits))
            log.error(
                "batch %d: %d record(s) fail the parse and go to the dead letters (%s); the "
                "other records of the batch were parsed in %d attempts",
                batch_id, len(found.culprits),
                ", ".join(f"{c.topic}-{c.partition}@{c.offset}: {c.error}"
                          for c in found.culprits[:10]),
                found.attempts,
            )  # fmt: skip
            rows = [row for part_rows, _ in found.results for row in part_rows]
            with_letters = [p for part_rows, p in found.results if has_dead_letters(part_rows)]
            if found.culprits:
                self.dead_letters.write_culprits(raw, found.culprits, batch_id)
            return rows, with_letters, found.culprits
        finally:
            raw.unpersist()

    def _now_ms(self) -> int | None:
        """The wall clock records' timestamps are checked against, while the job runs live
        (a backfill of what the topics hold reads old records on purpose)."""
        return int(time.time() * 1000) if self.board.live else None
