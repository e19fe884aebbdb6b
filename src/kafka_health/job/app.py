"""Wire the job: sources → signal queries → the driver's SignalBoard → sinks; supervise.

Each query reads its own Kafka source and keeps its own checkpoint under
``<spark.checkpoint_dir>/<cluster_name>/<query>``, so a restart resumes each one exactly where
it committed. ``foreachBatch`` runs on the driver and hands the (small, aggregated) rows to the
board; sinks (the alert service, the exporter) read signals from the board.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from kafka_health.config import MonitorConfig
from kafka_health.job.board import CANARY_PARTITION, SignalBoard, stale_after
from kafka_health.job.canary import canary_outcomes, write_path_windows
from kafka_health.job.deadlines import log_deadline_requests
from kafka_health.job.health import JobHealth, make_listener
from kafka_health.job.intervals import interval, interval_ms
from kafka_health.job.logs import log_event_windows
from kafka_health.job.loss import probe_observations, write_anomalies
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.sources import kafka_stream
from kafka_health.job.supervisor import QueryDefinition, Supervisor
from kafka_health.kafka_clients import spark_kafka_options
from kafka_health.model import Signal
from kafka_health.parsing.envelope import decode_records
from kafka_health.parsing.events import events_only, outcome_counts, parse_entries

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)


class SignalSink(Protocol):
    """Where current signals go after each batch and on the supervisor's tick."""

    def publish(self, signals: list[Signal]) -> None: ...


class MonitorJob:
    """The streaming health job; ``run`` blocks until ``stop`` is set."""

    def __init__(
        self,
        spark: SparkSession,
        config: MonitorConfig,
        sinks: Iterable[SignalSink] = (),
        only: Iterable[str] | None = None,
    ) -> None:
        self.spark = spark
        self.config = config
        self.board = SignalBoard(config.job, stale_after=stale_after(config))
        self.health = JobHealth()
        self.parse_counts = ParseCounts()
        self.sinks = list(sinks)
        self._checkpoints = Path(config.spark.checkpoint_dir).expanduser() / config.cluster_name
        self._publish_lock = threading.Lock()
        self.available_now = False  # process what is there, then stop (tests, backfills)
        spark.conf.set("spark.sql.streaming.stopTimeout", interval_ms(config.job.stop_timeout_s))
        self._listener = make_listener(self.health)
        spark.streams.addListener(self._listener)
        wanted = None if only is None else set(only)
        definitions = [d for d in self.query_definitions() if wanted is None or d.name in wanted]
        self.supervisor = Supervisor(definitions, config.job, self.health)

    # ------------------------------------------------------------------ queries

    def query_definitions(self) -> list[QueryDefinition]:
        topics = self.config.topics
        return [
            self._definition(
                "write_path",
                lambda: write_path_windows(
                    canary_outcomes(kafka_stream(self.spark, self.config, [topics.canary_results]),
                                    topics.canary_results),
                    self.config.job,
                ),
                "update",
                self.board.on_write_path,
            ),
            self._definition(
                "write_loss",
                lambda: write_anomalies(
                    probe_observations(
                        kafka_stream(
                            self.spark, self.config, [topics.canary, topics.canary_results]
                        ),
                        topics.canary,
                        topics.canary_results,
                    ),
                    self.config.job,
                ),
                "append",
                self.board.on_write_anomalies,
            ),
            self._definition("isr", self._isr, "update", self.board.on_isr),
            self._definition(
                "broker_logs",
                lambda: log_event_windows(events_only(self._parsed_logs()), self.config.job),
                "update",
                self.board.on_log_windows,
            ),
            self._definition(
                "parse_quality", self._parsed_logs, "append", self._on_parsed, collect=False
            ),
            self._definition(
                "deadlines",
                lambda: self._deadlines(),
                "update",
                self.board.on_deadlines,
                needs_processing_time=True,
            ),
        ]  # fmt: skip

    def _parsed_logs(self) -> DataFrame:
        """Broker log records, from a source of their own, decoded and parsed (every row, with
        its outcome)."""
        records = kafka_stream(self.spark, self.config, [self.config.topics.broker_logs])
        return parse_entries(decode_records(records, self.config.parsing), self.config.parsing)

    def _isr(self) -> DataFrame:
        from kafka_health.job.isr import log_updates, snapshot_updates, track_isr

        topics = self.config.topics
        snapshots = kafka_stream(self.spark, self.config, [topics.cluster_state])
        updates = snapshot_updates(snapshots, topics.cluster_state).unionByName(
            log_updates(events_only(self._parsed_logs()))
        )
        return track_isr(updates, self.config.job.isr_expire_after_s)

    def _on_parsed(self, batch: DataFrame) -> None:
        """Count outcomes by reason; send dead letters (with source offsets) to their topic."""
        from kafka_health.parsing.deadletter import dead_letter_records, dead_letters

        batch.persist()
        try:
            self.parse_counts.add(outcome_counts(batch).collect())
            letters = dead_letter_records(dead_letters(batch, self.config.parsing.dead_letter))
            (
                letters.write.format("kafka")
                .options(**spark_kafka_options(self.config.transport_kafka()))
                .option("topic", self.config.topics.dead_letter)
                .save()
            )
        finally:
            batch.unpersist()

    def _deadlines(self) -> DataFrame:
        from pyspark.sql import functions as F

        from kafka_health.job.deadlines import track_deadlines

        topics = self.config.topics
        results = kafka_stream(self.spark, self.config, [topics.canary_results])
        outcomes = canary_outcomes(results, topics.canary_results)
        canary = outcomes.where(F.col("acks") == "all").select(
            F.lit(CANARY_PARTITION).alias("scope"),
            F.col("partition").cast("string").alias("id"),
            F.lit("touch").alias("action"),
            F.col("done_ms").alias("at_ms"),
            F.lit(int(self.config.job.canary_silence_s * 1000)).cast("bigint").alias("deadline_ms"),
            F.col("leader").cast("string").alias("attr"),
        )
        logs = log_deadline_requests(self._parsed_logs(), self.config.job)
        return track_deadlines(canary.unionByName(logs))

    def _definition(
        self,
        name: str,
        build: Callable[[], DataFrame],
        output_mode: str,
        on_rows: Callable[[Any], None],
        needs_processing_time: bool = False,
        collect: bool = True,
    ) -> QueryDefinition:
        def start() -> Any:
            def each_batch(batch: DataFrame, batch_id: int) -> None:
                on_rows(batch.collect() if collect else batch)
                self.publish()

            writer = (
                build()
                .writeStream.queryName(name)
                .outputMode(output_mode)
                .option("checkpointLocation", str(self._checkpoints / name))
                .foreachBatch(each_batch)
            )
            if self.available_now:
                return writer.trigger(availableNow=True).start()
            return writer.trigger(
                processingTime=interval(self.config.job.trigger_interval_s)
            ).start()

        return QueryDefinition(name, start, needs_processing_time)

    # ------------------------------------------------------------------ running

    def signals(self) -> list[Signal]:
        return self.board.signals() + self.health.signals()

    def publish(self) -> None:
        """Hand the current signals to every sink (after each batch and on each tick)."""
        with self._publish_lock:
            current = self.signals()
            for sink in self.sinks:
                try:
                    sink.publish(current)
                except Exception:  # a sink's failure must not fail the batch
                    log.exception("signal sink %r failed", sink)

    def run_available_now(self, names: Iterable[str] | None = None, timeout_s: float = 600) -> None:
        """Run the named queries over what their topics hold now, one by one (default: all
        but those whose timers run on the wall clock)."""
        wanted = set(names) if names is not None else None
        self.available_now = True
        try:
            for definition in self.query_definitions():
                if wanted is not None and definition.name not in wanted:
                    continue
                if wanted is None and definition.needs_processing_time:
                    continue
                query = definition.start()
                try:
                    if not query.awaitTermination(timeout_s):
                        raise TimeoutError(f"query {definition.name} ran past {timeout_s} s")
                    error = query.exception()
                    if error is not None:
                        raise RuntimeError(f"query {definition.name} failed: {error}")
                finally:
                    query.stop()
        finally:
            self.available_now = False

    def run(self, stop: threading.Event, tick_s: float = 1.0) -> None:
        """Supervise the queries and publish on every tick until ``stop`` is set."""
        self.board.live = True  # on the wall clock: a source that stops is stale
        ticker = threading.Thread(target=self._tick, args=(stop, tick_s), daemon=True)
        ticker.start()
        try:
            self.supervisor.run(stop)
        finally:
            stop.set()
            ticker.join(timeout=5)
            self.spark.streams.removeListener(self._listener)

    def _tick(self, stop: threading.Event, tick_s: float) -> None:
        while not stop.wait(tick_s):
            self.publish()


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop`` (the job then stops its queries and exits)."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("%s received: stopping the queries", signal.Signals(signum).name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)
