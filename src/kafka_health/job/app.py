"""Wire the job: two queries -> detectors on the driver -> sinks.

The ``monitor`` query reads the monitor's own topics (canary results, cluster state, broker
logs; all on the transport cluster) and hands each micro-batch to
:meth:`MonitorJob.process_batch` (``foreachBatch``): Spark decodes and parses the broker logs
once, counts parse outcomes, writes dead letters and drops what is not an event; only the few
remaining rows reach the driver, where the :class:`~kafka_health.job.board.SignalBoard` folds
them into the detectors once per batch id, on the fold worker's thread while Spark commits
the batch and plans the next one (:mod:`.fold_worker`).

The ``canary`` query reads the canary topic back from the monitored cluster (the probes the
loss detector compares with the acknowledgements). It is a query of its own because that read
stalls while a leader of the canary topic is dead or hung: alone, it holds back only the loss
verdicts, not the pages of the fault itself (measured: one query over both clusters completed
no batch for 30-40 s after a broker was killed or frozen).

The detectors' state is saved with the last batch id of each query under the monitor query's
checkpoint (``<spark.checkpoint_dir>/<cluster_name>/monitor``, the canary query's own
checkpoint inside it), so a batch Spark replays after a crash is skipped and a restart resumes
the queries and the detectors together. It is written every ``job.state_save_interval_s``
(:mod:`.save_schedule`), not after every batch; a restart first rewinds each query's
checkpoint to the batch the state holds (:mod:`.rewind`), so the batches after it are read
again, not lost.
"""

from __future__ import annotations

import functools
import logging
import operator
import signal
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from kafka_health.config import MonitorConfig
from kafka_health.job.batch import (
    SOURCE_READS,
    Rejected,
    decode_rows,
    driver_rows,
    parsed_stream,
    probe_rows,
    rejected_letters,
)
from kafka_health.job.board import CANARY_QUERY, MONITOR_QUERY, SignalBoard, stale_after
from kafka_health.job.catch_up import CatchUp
from kafka_health.job.codegen import CodegenCompiles, driver_compiles
from kafka_health.job.fold_worker import FoldWorker
from kafka_health.job.health import JobHealth, classify_error, make_listener
from kafka_health.job.interruption import stop_aware
from kafka_health.job.intervals import interval, interval_ms
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.publisher import Publisher
from kafka_health.job.python_gc import collector_for_the_job
from kafka_health.job.quarantine import (
    Culprit,
    OffsetRange,
    batch_ranges,
    culprit_counts,
    culprit_letters,
    describe_failure,
    has_dead_letters,
    is_record_failure,
    isolate,
    ranges_read,
    read_ranges,
    within,
)
from kafka_health.job.rejected_counts import SOURCES, RejectedCounts
from kafka_health.job.rewind import RewindImpossible, rewind
from kafka_health.job.save_schedule import SaveSchedule
from kafka_health.job.sent_letters import SentLetters
from kafka_health.job.sources import kafka_stream
from kafka_health.job.state_file import read_state, write_state
from kafka_health.job.steps import StepTimer
from kafka_health.job.supervisor import QueryDefinition, Supervisor
from kafka_health.kafka_clients import spark_kafka_options
from kafka_health.model import LOGS_READ_SIGNAL, Signal
from kafka_health.parsing.deadletter import DEAD_LETTER_DDL
from kafka_health.reachability.pinger import BrokerPings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

QUERY = MONITOR_QUERY
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


class SignalSink(Protocol):
    """Where current signals go after each batch and on the supervisor's tick: a full
    snapshot (a series left out is gone), or, while ``snapshot`` is false, an update."""

    def publish(self, signals: list[Signal], snapshot: bool = True) -> None: ...


def transport_pinged(config: MonitorConfig) -> list[str] | None:
    """The transport's bootstrap servers, when it is a cluster of its own whose brokers the
    job pings (``reachability`` on); None otherwise."""
    if not (config.reachability.enabled and config.separate_transport):
        return None
    return list(config.transport.bootstrap_servers)


class MonitorJob:
    """The streaming health job; ``run`` blocks until ``stop`` is set."""

    def __init__(
        self, spark: SparkSession, config: MonitorConfig, sinks: Iterable[SignalSink] = ()
    ) -> None:
        self.spark = spark
        self.config = config
        self.board = SignalBoard(
            config.job,
            stale_after=stale_after(config),
            reachability=config.reachability,
            transport=transport_pinged(config),
            canary_topic=config.topics.canary,
        )
        self.health = JobHealth()
        self.health.set_source_reads(QUERY, SOURCE_READS)
        self.parse_counts = ParseCounts()
        self.rejected_counts = RejectedCounts()
        self.codegen_compiles = CodegenCompiles(driver_compiles(spark))
        self.sinks = list(sinks)
        checkpoints = Path(config.spark.checkpoint_dir).expanduser() / config.cluster_name
        self.checkpoint = checkpoints / QUERY
        self.canary_checkpoint = self.checkpoint / "canary-query"
        self.state_path = self.checkpoint / "detectors" / "state.json"
        self._sent_letters = SentLetters(self.checkpoint / "detectors" / "dead_letters_sent.json")
        # Task slots: the canary query reads the monitored cluster in one task, which can
        # block 30 s on a dead or hung leader ("position ... could not be determined"); the
        # monitor query reads the transport with the other slots, so that block never starves
        # it (seen: two brokers down, the canary query's tasks held both slots of local[2] and
        # the monitor query completed no batch for 30 s: MonitorStalled). At idle a batch holds
        # a few dozen records over every partition of the transport's topics, and a task per
        # partition costs ~0.1 s: one task per remaining core reads it.
        slots = max(1, int(spark.sparkContext.defaultParallelism))
        self._parallelism = max(1, slots - CANARY_QUERY_TASKS)
        # A backlog (a storm's burst, a restart's catch-up) is read and parsed by every core:
        # the source splits an offset range of more than SPLIT_RECORDS into pieces and
        # such a batch is not coalesced (measured: one task held the whole 323,402-record
        # backlog of `bench throughput` on one of the two cores): batch_tasks.
        self._publish_lock = threading.Lock()
        self.publisher = Publisher(self.publish)
        self._state_lock = threading.Lock()
        self._save_schedule = SaveSchedule(config.job.state_save_interval_s)
        self._folds = FoldWorker("kafka-health-fold")
        self._unfolded = False  # a batch Spark committed was not folded: rewind at the restart
        self._catch_up = CatchUp()  # the queries reading again what a restart rewound
        self.available_now = False  # process what is there, then stop (tests, backfills)
        self._resume()
        spark.conf.set("spark.sql.streaming.stopTimeout", interval_ms(config.job.stop_timeout_s))
        # An idle query (no new data) tells it once per interval (JobHealth.on_idle): once per
        # trigger, so that its liveness is as fresh as a busy query's.
        spark.conf.set(
            "spark.sql.streaming.noDataProgressEventInterval",
            interval_ms(config.job.trigger_interval_s),
        )
        self.health.add_start_hook(self.board.query_started)
        # How far the broker logs are read reaches the alert service as soon as Spark reports
        # it, not at the next tick: a restarting broker's page waits for it (maintenance).
        self.health.add_progress_hook(lambda name: self.publisher.soon() if name == QUERY else None)
        self._listener = make_listener(self.health)
        spark.streams.addListener(self._listener)
        self.supervisor = Supervisor(self.query_definitions(), config.job, self.health)

    # ------------------------------------------------------------------ the query

    def query_definitions(self) -> list[QueryDefinition]:
        return [
            QueryDefinition(QUERY, self._start),
            QueryDefinition(CANARY_QUERY, self._start_canary),
        ]

    def own_topics(self) -> list[str]:
        """The monitor query's topics (on the transport): canary results, cluster state and
        broker logs."""
        topics = self.config.topics
        return [topics.canary_results, topics.cluster_state, topics.broker_logs]

    def source(self) -> DataFrame:
        """The raw records of the monitor's own topics (on the transport)."""
        return kafka_stream(self.spark, self.config, self.own_topics(), SPLIT_RECORDS)

    def _start(self) -> Any:
        self._drain_folds()
        if self._unfolded:  # read again the batch whose fold failed (and any after it)
            self._rewind(QUERY, self.checkpoint)
            self._unfolded = False
        writer = (
            parsed_stream(self.source(), self.config)
            .writeStream.queryName(QUERY)
            .option("checkpointLocation", str(self.checkpoint))
            .foreachBatch(stop_aware(self.process_batch))
        )
        return self._triggered(writer)

    def _start_canary(self) -> Any:
        if not (self.canary_checkpoint / "offsets").exists():
            self.board.forget_batches(CANARY_QUERY)  # a new checkpoint counts from batch 0
        source = kafka_stream(self.spark, self.config, [self.config.topics.canary])
        writer = (
            probe_rows(source)
            .writeStream.queryName(CANARY_QUERY)
            .option("checkpointLocation", str(self.canary_checkpoint))
            .foreachBatch(stop_aware(self.process_canary_batch))
        )
        return self._triggered(writer, self.config.job.canary_trigger_interval_s)

    def _triggered(self, writer: Any, every_s: float | None = None) -> Any:
        if self.available_now:
            return writer.trigger(availableNow=True).start()
        seconds = self.config.job.trigger_interval_s if every_s is None else every_s
        return writer.trigger(processingTime=interval(seconds)).start()

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
                self._save_if_due(CANARY_QUERY)
            with timer.step("publish"):
                self.publisher.soon()
        self.health.on_steps(CANARY_QUERY, timer.seconds)

    def process_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Collect a parsed batch's rows and write its dead letters; its decode, fold and save
        run on the fold worker (:mod:`.fold_worker`) while Spark commits it and plans the next
        batch. Once per batch id: a batch folded before a restart is skipped."""
        timer = StepTimer()
        with timer.step("wait"):
            self._wait_for_folds()  # the previous batch's: its failure fails the query here
        if batch_id <= self.board.batch_id:
            log.info("batch %d was folded in before the restart: skipped", batch_id)
            return
        # One aggregation, one Spark job: ``batch`` is already planned (Spark hands
        # foreachBatch the executed RDD of the query's plan), so this plans in milliseconds
        # and reads and parses the batch once; dead letters (rare) read it again.
        with timer.step("plan"):
            tasks = self._tasks_for(batch_id)
            rows = driver_rows(batch if tasks is None else batch.coalesce(tasks))
        culprits: list[Culprit] = []
        with timer.step("collect"):
            try:
                collected = rows.collect()
                lettered = [batch] if has_dead_letters(collected) else []
            except Exception as exc:
                if not is_record_failure(exc):
                    raise
                with timer.step("quarantine"):
                    collected, lettered, culprits = self._quarantine(batch_id, exc)
        if lettered:
            with timer.step("dead_letters"):  # the batch, or its parts that hold some
                self._write_dead_letters(lettered, batch_id)
        self._folds.submit(
            # Its Spark calls (the rejected records' dead letters) stopped by a stop: raised
            # at the next batch in the few words Spark takes for its stop (.interruption).
            stop_aware(lambda: self._fold_batch(batch_id, collected, culprits, timer)),
            self.health.read_to(QUERY),
        )

    def _fold_batch(
        self, batch_id: int, collected: list[Any], culprits: list[Culprit], timer: StepTimer
    ) -> None:
        """The fold worker's part of a monitor batch: decode its rows, dead-letter the records
        rejected, fold the rest into the detectors, save when due, publish soon."""
        with timer.step("decode"):
            decoded = decode_rows(collected, self._now_ms())
            decoded.counts.extend(culprit_counts(culprits))
        if decoded.rejected:
            with timer.step("rejected"):
                self._reject(batch_id, decoded.rejected)
        with timer.step("fold"), self._state_lock:  # counts and batch id move together
            self.board.fold(batch_id, decoded.batch)
            self.parse_counts.add(decoded.counts)
            self.rejected_counts.add(decoded.rejected, decoded.log_rejected)
        with timer.step("save"):
            self._save_if_due(QUERY)
        with timer.step("publish"):
            self.publisher.soon()
        self.health.on_steps(QUERY, timer.seconds)

    def _wait_for_folds(self) -> None:
        """Wait for the pending batch's fold. Its failure is raised, and marks the query for a
        rewind when it starts again: Spark committed that batch, the detectors do not hold it."""
        try:
            self._folds.wait()
        except BaseException:
            self._unfolded = True
            raise

    def _drain_folds(self) -> None:
        """:meth:`_wait_for_folds`, a failure logged (the query stops or starts again)."""
        try:
            self._wait_for_folds()
        except Exception:
            log.exception("a batch's fold failed: the query is rewound to the detectors' "
                          "batch %d when it starts again", self.board.batch_id)  # fmt: skip

    def _tasks_for(self, batch_id: int) -> int | None:
        """Tasks for batch ``batch_id``: one per core less the canary query's at idle, a task
        per source piece (on every core) for a backlog of at least BACKLOG_RECORDS (its size
        from the offset log)."""
        ranges = self._batch_ranges(batch_id)
        if ranges is None:  # no offset log to read (a test's batch): the default
            return self._parallelism
        return batch_tasks(ranges, self._parallelism)

    def _batch_ranges(self, batch_id: int) -> list[OffsetRange] | None:
        """The offset ranges batch ``batch_id`` reads, from the offset log; None without one."""
        try:
            return batch_ranges(self.checkpoint, batch_id, self.own_topics())
        except (OSError, ValueError):
            return None

    def _save_if_due(self, query: str) -> None:
        """A batch of ``query`` was folded: save the state when its schedule says so; a
        failed write raises (the query fails, and the job reports the disk)."""
        with self._state_lock:
            self._save_schedule.folded(query)
            if self._save_schedule.due():
                self._save_locked()

    def _save_pending(self) -> None:
        """Save what was folded since the last save (the queries have stopped)."""
        with self._state_lock:
            if self._save_schedule.pending:
                self._save_locked()

    def _save_locked(self) -> None:
        """Save the detectors' state with each query's last batch id (``_state_lock`` held)."""
        document = {
            "board": self.board.state(),
            "parse_counts": self.parse_counts.state(),
            "rejected_counts": self.rejected_counts.state(),
        }
        try:
            write_state(self.state_path, document)
        except BaseException:
            self._save_schedule.failed()
            raise
        self._save_schedule.written()

    def _write_dead_letters(self, parts: list[DataFrame], batch_id: int) -> None:
        """Send the dead letters (with their source offsets) of a batch's parsed ``parts`` (the
        batch, or its parts the quarantine ran) to the dead-letter topic, in one write: the
        send log takes a batch's letters of a kind as sent at once."""
        from pyspark.sql import functions as F

        from kafka_health.parsing.deadletter import dead_letters

        is_log = F.col("source_topic") == self.config.topics.broker_logs
        letters = [dead_letters(p.where(is_log), self.config.parsing.dead_letter) for p in parts]
        union = functools.reduce(lambda a, b: a.unionByName(b), letters)
        self._send_dead_letters(union, "parse", batch_id)

    def _send_dead_letters(self, letters: DataFrame, kind: str, batch_id: int) -> None:
        """Rows of ``DEAD_LETTER_COLUMNS`` to the dead-letter topic (on the transport), but
        those a batch read again after a crash sent before (:mod:`.sent_letters`)."""
        from pyspark.sql import functions as F

        from kafka_health.parsing.deadletter import dead_letter_records

        sent = self._sent_letters.unsent_below(kind, batch_id)
        if sent:
            already = [
                (F.col("source_topic") == topic)
                & (F.col("source_partition") == partition)
                & (F.col("source_offset") < end)
                for (topic, partition), end in sorted(sent.items())
            ]
            letters = letters.where(~functools.reduce(operator.or_, already))
        (
            dead_letter_records(letters)
            .write.format("kafka")
            .options(**spark_kafka_options(self.config.transport_kafka()))
            .option("topic", self.config.topics.dead_letter)
            .save()
        )
        ranges = self._batch_ranges(batch_id)
        if ranges is not None:
            self._sent_letters.sent(kind, batch_id, ranges)

    def _quarantine(
        self, batch_id: int, error: Exception
    ) -> tuple[list[Any], list[DataFrame], list[Culprit]]:
        """The batch's rows without the records that fail its parse (:mod:`.quarantine`): the
        collected rows of every part that ran, the parts holding dead letters, the culprits."""
        log.error(
            "batch %d failed in a Spark task (%s): re-reading its records to set aside the "
            "ones that fail the parse", batch_id, classify_error(error) or type(error).__name__,
        )  # fmt: skip
        ranges = batch_ranges(self.checkpoint, batch_id, self.own_topics())
        raw = read_ranges(self.spark, self.config.transport_kafka(), ranges).cache()
        try:
            concrete = ranges_read(raw)  # a failure here is the transport's: raised as it is

            def attempt(part: list[OffsetRange]) -> tuple[list[Any], DataFrame]:
                parsed = parsed_stream(within(raw, part), self.config)
                return driver_rows(parsed.coalesce(self._parallelism)).collect(), parsed

            found = isolate(concrete, attempt, describe=describe_failure)
            self.health.on_quarantine(QUERY, len(found.culprits))
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
                self._write_culprits(raw, found.culprits, batch_id)
            return rows, with_letters, found.culprits
        finally:
            raw.unpersist()

    def _now_ms(self) -> int | None:
        """The wall clock records' timestamps are checked against, while the job runs live
        (a backfill of what the topics hold reads old records on purpose)."""
        return int(time.time() * 1000) if self.board.live else None

    def _reject(self, batch_id: int, rejected: list[Rejected]) -> None:
        """Log and dead-letter the canary outcomes and cluster-state records rejected."""
        by_reason: dict[tuple[str, str], int] = {}
        for r in rejected:
            key = (SOURCES[r.tag], r.reason)
            by_reason[key] = by_reason.get(key, 0) + 1
        log.warning(
            "batch %d: rejected %s (dead-lettered; an event from the future can be a wrong "
            "parsing.log_timezone)",
            batch_id, ", ".join(f"{n} on {src} ({why})" for (src, why), n in by_reason.items()),
        )  # fmt: skip
        topics = {"outcome": self.config.topics.canary_results,
                  "cluster": self.config.topics.cluster_state,
                  "event": self.config.topics.broker_logs}  # fmt: skip
        letters = self.spark.createDataFrame(
            rejected_letters(rejected, topics, self.config.parsing.dead_letter.max_value_bytes),
            DEAD_LETTER_DDL,
        )
        self._send_dead_letters(letters, "rejected", batch_id)

    def _write_culprits(self, raw: DataFrame, culprits: list[Culprit], batch_id: int) -> None:
        """The records that fail the parse, as dead letters with reason ``parse_failed``."""
        letters = culprit_letters(raw, culprits, self.config.parsing.dead_letter)
        self._send_dead_letters(letters, "culprit", batch_id)

    def _resume(self) -> None:
        """Restore the saved state and rewind each query's checkpoint to the batch it holds."""
        saved = read_state(self.state_path)
        if saved is None:
            return
        self.board.restore(saved.get("board", {}))
        self.parse_counts.restore(saved.get("parse_counts", {}))
        self.rejected_counts.restore(saved.get("rejected_counts", {}))
        log.info("detector state resumed at batches %s", self.board.batch_ids)
        for query, checkpoint in ((QUERY, self.checkpoint), (CANARY_QUERY, self.canary_checkpoint)):
            self._rewind(query, checkpoint)

    def _rewind(self, query: str, checkpoint: Path) -> None:
        """Take ``query``'s checkpoint back to the last batch of it the state holds."""
        held = self.board.last_batch(query)
        try:
            rewound = rewind(checkpoint, held)
        except RewindImpossible as exc:
            log.warning(
                "query %s: the detector state (batch %d) is older than its checkpoint keeps "
                "(%s): the batches between are not read again", query, held, exc,
            )  # fmt: skip
            return
        if rewound is not None:
            self._catch_up.rewound(query, rewound.last)
            log.warning(
                "query %s: batches %d-%d were committed by Spark but are not in the detectors' "
                "state (the job stopped without saving, or a batch's fold failed): they are "
                "read again",
                query, rewound.first, rewound.last,
            )  # fmt: skip

    # ------------------------------------------------------------------ running

    def signals(self) -> list[Signal]:
        own = self.health.signals()
        read_to = self._folds.read_to_cap(self.health.read_to(QUERY))
        if read_to is not None:
            own.append(Signal(LOGS_READ_SIGNAL, (), read_to, time.time()))
        return self.board.signals() + own + self.rejected_counts.signals()

    def publish(self) -> None:
        """Hand the current signals to every sink (after each batch and on each tick): as an
        update while a query reads again what a restart rewound (:mod:`.catch_up`)."""
        with self._publish_lock:
            current = self.signals()
            whole = self._catch_up.caught_up(self.board.last_batch)
            for sink in self.sinks:
                try:
                    sink.publish(current, snapshot=whole)
                except Exception:  # a sink's failure must not fail the batch
                    log.exception("signal sink %r failed", sink)

    @collector_for_the_job()
    def run_available_now(self, timeout_s: float = 600) -> None:
        """Process what the topics hold now (``availableNow``, both queries), then stop."""
        self.available_now = True
        try:
            queries = [(QUERY, self._start()), (CANARY_QUERY, self._start_canary())]
            try:
                for name, query in queries:
                    if not query.awaitTermination(timeout_s):
                        raise TimeoutError(f"query {name} ran past {timeout_s} s")
                    error = query.exception()
                    if error is not None:
                        raise RuntimeError(f"query {name} failed: {error}")
                self._wait_for_folds()  # the last batch's: its failure is the run's
            finally:
                for _name, query in queries:
                    query.stop()
                self._drain_folds()
                self._save_pending()
        finally:
            self.available_now = False

    @collector_for_the_job()
    def run(self, stop: threading.Event, tick_s: float = 1.0) -> None:
        """Supervise the queries and publish (:class:`.Publisher`) until ``stop`` is set."""
        self.board.live = True  # on the wall clock: a source that stops is stale
        publishing = self.publisher.start(stop, tick_s)
        pings = self._broker_pings()
        try:
            for part in pings:
                part.start()
            self.supervisor.run(stop)
        finally:
            stop.set()
            self._drain_folds()  # the queries have stopped; their last batch's fold ends
            try:
                self._save_pending()  # the queries have stopped: nothing is read again
            except OSError:
                log.exception("the detector state could not be saved at the stop: the next "
                              "start reads again the batches since the last save")  # fmt: skip
            for part in pings:
                part.stop()
            self.publisher.finish(publishing)
            from py4j.protocol import Py4JError

            try:
                self.spark.streams.removeListener(self._listener)
            except (Py4JError, OSError) as exc:
                # A service manager's stop signals the whole process group: Spark's JVM may
                # be gone before the driver gets here, and its listener with it.
                log.info("Spark's JVM stopped first: its progress listener went with it (%s)",
                         type(exc).__name__)  # fmt: skip

    def _broker_pings(self) -> list[BrokerPings]:
        """The driver's pings of every broker (``reachability``), unless turned off: the
        monitored cluster's, and a separate transport's."""
        if not (self.config.reachability.enabled and self.config.kafka.bootstrap_servers):
            return []
        pings = [BrokerPings(self.config, self.board, on_evidence=self.publisher.soon)]
        if self.board.transport is not None:
            roster = self.board.transport_roster()
            transport = self.config.transport_kafka()
            pings.append(BrokerPings(self.config, roster, cluster=transport))
        return pings


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop`` (the job then stops its queries and exits)."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("%s received: stopping the queries", signal.Signals(signum).name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)
