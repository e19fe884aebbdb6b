"""The job's two streaming queries: how each is started and triggered.

The ``monitor`` query reads the monitor's own topics (canary results, cluster state, broker
logs; all on the transport cluster). The ``canary`` query reads the canary topic back from the
monitored cluster (the probes the loss detector compares with the acknowledgements). It is a
query of its own because that read stalls while a leader of the canary topic is dead or hung:
alone, it holds back only the loss verdicts, not the pages of the fault itself (measured: one
query over both clusters completed no batch for 30-40 s after a broker was killed or frozen).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_health.config import MonitorConfig
from kafka_health.job.batch import probe_rows
from kafka_health.job.batch_handler import SPLIT_RECORDS, BatchHandler
from kafka_health.job.board import CANARY_QUERY, MONITOR_QUERY
from kafka_health.job.interruption import stop_aware
from kafka_health.job.intervals import interval
from kafka_health.job.sources import kafka_stream
from kafka_health.job.supervisor import QueryDefinition

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def checkpoints(config: MonitorConfig) -> dict[str, Path]:
    """Each query's checkpoint: ``<spark.checkpoint_dir>/<cluster_name>/monitor``, the canary
    query's inside it."""
    monitor = Path(config.spark.checkpoint_dir).expanduser() / config.cluster_name / MONITOR_QUERY
    return {MONITOR_QUERY: monitor, CANARY_QUERY: monitor / "canary-query"}


class Queries:
    """Starts the monitor and canary queries, their batches handed to ``handler``."""

    def __init__(
        self,
        spark: SparkSession,
        config: MonitorConfig,
        handler: BatchHandler,
        before_monitor_start: Callable[[], None],
        forget_canary_batches: Callable[[], None],
    ) -> None:
        """``before_monitor_start``: run before each start of the monitor query (the previous
        run's folds end, a batch whose fold failed is rewound); ``forget_canary_batches``:
        run when the canary query starts on a new checkpoint (it counts from batch 0)."""
        self.spark = spark
        self.config = config
        self.handler = handler
        self.checkpoints = checkpoints(config)
        self._before_monitor_start = before_monitor_start
        self._forget_canary_batches = forget_canary_batches
        self.available_now = False  # process what is there, then stop (tests, backfills)

    def definitions(self) -> list[QueryDefinition]:
        """What the supervisor starts, and starts again after a failure."""
        return [
            QueryDefinition(MONITOR_QUERY, self.start_monitor),
            QueryDefinition(CANARY_QUERY, self.start_canary),
        ]

    def source(self) -> DataFrame:
        """The raw records of the monitor's own topics (on the transport)."""
        return kafka_stream(self.spark, self.config, self.handler.topics, SPLIT_RECORDS)

    def start_monitor(self) -> Any:
        """Start the monitor query (its batches: :meth:`BatchHandler.process_batch`)."""
        self._before_monitor_start()
        writer = (
            self.handler.records(self.source(), self.config)
            .writeStream.queryName(MONITOR_QUERY)
            .option("checkpointLocation", str(self.checkpoints[MONITOR_QUERY]))
            .foreachBatch(stop_aware(self.handler.process_batch))
        )
        return self._triggered(writer)

    def start_canary(self) -> Any:
        """Start the canary query (its batches: :meth:`BatchHandler.process_canary_batch`)."""
        checkpoint = self.checkpoints[CANARY_QUERY]
        if not (checkpoint / "offsets").exists():
            self._forget_canary_batches()  # a new checkpoint counts from batch 0
        source = kafka_stream(self.spark, self.config, [self.config.topics.canary])
        writer = (
            probe_rows(source)
            .writeStream.queryName(CANARY_QUERY)
            .option("checkpointLocation", str(checkpoint))
            .foreachBatch(stop_aware(self.handler.process_canary_batch))
        )
        return self._triggered(writer, self.config.job.canary_trigger_interval_s)

    def _triggered(self, writer: Any, every_s: float | None = None) -> Any:
        if self.available_now:
            return writer.trigger(availableNow=True).start()
        seconds = self.config.job.trigger_interval_s if every_s is None else every_s
        return writer.trigger(processingTime=interval(seconds)).start()
