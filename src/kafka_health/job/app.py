"""Wire the job: two queries -> detectors on the driver -> sinks.

The job is assembled from parts with one job each:

- :mod:`.queries`: the ``monitor`` query (the monitor's own topics, on the transport) and the
  ``canary`` query (the canary topic read back from the monitored cluster), their triggers;
- :mod:`.batch_handler`: each micro-batch (``foreachBatch``): collect, quarantine, dead
  letters (:mod:`.dead_letter_writer`), the fold on the fold worker (:mod:`.fold_worker`);
- :mod:`.durability`: the detectors' state file, its save schedule, the rewind of each
  query's checkpoint to the batch the state holds at a start, the catch-up after it.

:class:`MonitorJob` builds them without touching Spark or the disk; :meth:`MonitorJob.start`
resumes the state (rewinding the checkpoints), tunes Spark's streaming settings and listens
to its progress; :meth:`MonitorJob.run` supervises the queries, publishes the signals and
pings the brokers until stopped.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from kafka_health.config import MonitorConfig
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.lag import LagTable
from kafka_health.consumer_groups.observation import GroupsRound
from kafka_health.consumer_groups.poller import GroupsPoller, PollerMetrics
from kafka_health.consumer_groups.source import AdminGroupsSource
from kafka_health.job.batch import SOURCE_READS, monitor_records
from kafka_health.job.batch_handler import (
    BACKLOG_RECORDS,
    CANARY_QUERY_TASKS,
    SPLIT_RECORDS,
    BatchHandler,
    batch_tasks,
)
from kafka_health.job.board import CANARY_QUERY, MONITOR_QUERY, SignalBoard, stale_after
from kafka_health.job.codegen import CodegenCompiles, driver_compiles
from kafka_health.job.durability import Durability
from kafka_health.job.health import JobHealth, make_listener
from kafka_health.job.intervals import interval_ms
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.publisher import Publisher
from kafka_health.job.python_gc import collector_for_the_job
from kafka_health.job.queries import Queries, checkpoints
from kafka_health.job.rejected_counts import RejectedCounts
from kafka_health.job.supervisor import QueryDefinition, Supervisor
from kafka_health.model import LOGS_READ_SIGNAL, Signal
from kafka_health.reachability.pinger import BrokerPings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

QUERY = MONITOR_QUERY
__all__ = [
    "BACKLOG_RECORDS",
    "CANARY_QUERY_TASKS",
    "QUERY",
    "SPLIT_RECORDS",
    "MonitorJob",
    "SignalSink",
    "batch_tasks",
    "stop_on_signals",
    "transport_pinged",
]


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
    """The streaming health job: built without side effects, started by :meth:`start` (which
    :meth:`run` and :meth:`run_available_now` call); ``run`` blocks until ``stop`` is set."""

    def __init__(
        self,
        spark: SparkSession,
        config: MonitorConfig,
        sinks: Iterable[SignalSink] = (),
        groups_admin: Callable[[], Any] | None = None,
    ) -> None:
        """``groups_admin``: the consumer-group poller's admin client factory (default:
        kafka-python's on ``config.kafka``; a benchmark's simulated groups, ``bench
        throughput --groups``)."""
        self.spark = spark
        self.config = config
        self.groups_admin = groups_admin
        self.board = SignalBoard(
            config.job,
            stale_after=stale_after(config),
            reachability=config.reachability,
            transport=transport_pinged(config),
            canary_topic=config.topics.canary,
            consumer_groups=watched_groups(config),
        )
        self.poller_metrics: PollerMetrics | None = None
        """The consumer-group poller's series, once a registry is there (``build_sinks``)."""
        self.health = JobHealth()
        self.health.set_source_reads(QUERY, SOURCE_READS)
        self.parse_counts = ParseCounts()
        self.rejected_counts = RejectedCounts()
        self.codegen_compiles = CodegenCompiles(driver_compiles(spark))
        self.sinks = list(sinks)
        paths = checkpoints(config)
        self.checkpoint, self.canary_checkpoint = paths[QUERY], paths[CANARY_QUERY]
        self.durability = Durability(
            self.board, self.parse_counts, self.rejected_counts, paths,
            config.job.state_save_interval_s,
        )  # fmt: skip
        self.state_path = self.durability.state_path
        self._publish_lock = threading.Lock()
        self.publisher = Publisher(self.publish)
        self.batches = BatchHandler(
            spark, config, self.board, self.health, (self.parse_counts, self.rejected_counts),
            self.durability, self.publisher.soon, monitor_records,
        )  # fmt: skip
        self.queries = Queries(
            spark, config, self.batches, self._before_monitor_start,
            lambda: self.board.forget_batches(CANARY_QUERY),
        )  # fmt: skip
        self.health.add_start_hook(self.board.query_started)
        # How far the broker logs are read reaches the alert service as soon as Spark reports
        # it, not at the next tick: a restarting broker's page waits for it (maintenance).
        self.health.add_progress_hook(lambda name: self.publisher.soon() if name == QUERY else None)
        self.supervisor = Supervisor(self.query_definitions(), config.job, self.health)
        self._listener: Any = None
        self._started = False

    def start(self) -> None:
        """Resume the detectors' state (rewinding each query's checkpoint to it), set Spark's
        streaming settings and listen to its progress; once (a later call does nothing).

        Raises :class:`~kafka_health.errors.StateFormatError` for a state a newer release
        wrote, before anything else is changed."""
        if self._started:
            return
        self.durability.resume()
        conf = self.spark.conf
        conf.set("spark.sql.streaming.stopTimeout", interval_ms(self.config.job.stop_timeout_s))
        # An idle query (no new data) tells it once per interval (JobHealth.on_idle): once per
        # trigger, so that its liveness is as fresh as a busy query's.
        conf.set(
            "spark.sql.streaming.noDataProgressEventInterval",
            interval_ms(self.config.job.trigger_interval_s),
        )
        self._listener = make_listener(self.health)
        self.spark.streams.addListener(self._listener)
        self._started = True

    # ------------------------------------------------------------------ the queries

    def query_definitions(self) -> list[QueryDefinition]:
        return self.queries.definitions()

    def _before_monitor_start(self) -> None:
        """The previous run's last fold ends; a batch whose fold failed is read again."""
        self.batches.drain_folds()
        self.durability.rewind_unfolded()

    def _tasks_for(self, batch_id: int) -> int | None:
        """Tasks for the monitor query's batch ``batch_id`` (:func:`batch_tasks`)."""
        return self.batches.tasks_for(batch_id)

    def _save_pending(self) -> None:
        """Save what was folded since the last save (the queries have stopped)."""
        self.durability.save_pending()

    # ------------------------------------------------------------------ running

    def signals(self) -> list[Signal]:
        own = self.health.signals()
        read_to = self.batches.folds.read_to_cap(self.health.read_to(QUERY))
        if read_to is not None:
            own.append(Signal(LOGS_READ_SIGNAL, (), read_to, time.time()))
        return self.board.signals() + own + self.rejected_counts.signals()

    def publish(self) -> None:
        """Hand the current signals to every sink (after each batch and on each tick): as an
        update while a query reads again what a restart rewound (:mod:`.catch_up`)."""
        with self._publish_lock:
            current = self.signals()
            whole = self.durability.caught_up()
            for sink in self.sinks:
                try:
                    sink.publish(current, snapshot=whole)
                except Exception:  # a sink's failure must not fail the batch
                    log.exception("signal sink %r failed", sink)

    @collector_for_the_job()
    def run_available_now(self, timeout_s: float = 600) -> None:
        """Process what the topics hold now (``availableNow``, both queries), then stop."""
        self.start()
        self.queries.available_now = True
        try:
            queries = [
                (QUERY, self.queries.start_monitor()),
                (CANARY_QUERY, self.queries.start_canary()),
            ]
            try:
                for name, query in queries:
                    if not query.awaitTermination(timeout_s):
                        raise TimeoutError(f"query {name} ran past {timeout_s} s")
                    error = query.exception()
                    if error is not None:
                        raise RuntimeError(f"query {name} failed: {error}")
                self.batches.wait_for_folds()  # the last batch's: its failure is the run's
            finally:
                for _name, query in queries:
                    query.stop()
                self.batches.drain_folds()
                self._save_pending()
        finally:
            self.queries.available_now = False

    @collector_for_the_job()
    def run(self, stop: threading.Event) -> None:
        """Supervise the queries and publish (:class:`.Publisher`) until ``stop`` is set, every
        ``alerting.tick_s`` at least: a value that grows with time (a silent broker's seconds)
        is handed over as often as the rules look at it."""
        self.start()
        self.board.live = True  # on the wall clock: a source that stops is stale
        publishing = self.publisher.start(stop, self.config.alerting.tick_s)
        pings: list[BrokerPings | GroupsPoller] = [*self._broker_pings(), *self._groups_poller()]
        try:
            for part in pings:
                part.start()
            self.supervisor.run(stop)
        finally:
            stop.set()
            self.batches.drain_folds()  # the queries have stopped; their last batch's fold ends
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

    def _groups_poller(self) -> list[GroupsPoller]:
        """The driver's consumer-group poller (``consumer_groups``), unless turned off: every
        round goes to the board, and the alert service hears of it at once."""
        settings = watched_groups(self.config)
        if settings is None:
            return []

        def polled(round_: GroupsRound) -> None:
            self.board.groups_polled(round_)
            self.publisher.soon()

        source = AdminGroupsSource(self.config.kafka, settings, make_admin=self.groups_admin)
        return [GroupsPoller(source, LagTable(), settings, metrics=self.poller_metrics,
                             on_round=polled)]  # fmt: skip

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


def watched_groups(config: MonitorConfig) -> ConsumerGroupsConfig | None:
    """The consumer-group settings when the driver watches them (enabled, a cluster named)."""
    settings = config.consumer_groups
    return settings if settings.enabled and config.kafka.bootstrap_servers else None


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop`` (the job then stops its queries and exits)."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("%s received: stopping the queries", signal.Signals(signum).name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)
