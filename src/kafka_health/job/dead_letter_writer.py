"""The job's dead letters: what a batch could not use goes to the dead-letter topic, once.

Three kinds, each logged in :mod:`.sent_letters` by the batch that sent it, so a batch read
again after a crash or a rewind does not send its letters twice: ``parse`` (broker log lines
the parser rejects, with their reason), ``rejected`` (canary outcomes and cluster-state
records the driver rejects) and ``culprit`` (records whose parse fails a Spark task,
:mod:`.quarantine`).
"""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

from kafka_health.config import MonitorConfig
from kafka_health.job.batch import Rejected, rejected_letters
from kafka_health.job.quarantine import Culprit, OffsetRange, culprit_letters
from kafka_health.job.rejected_counts import SOURCES
from kafka_health.job.sent_letters import SentLetters
from kafka_health.kafka_clients import spark_kafka_options
from kafka_health.parsing.deadletter import DEAD_LETTER_DDL

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)


class DeadLetterWriter:
    """Sends a batch's dead letters to the dead-letter topic (on the transport)."""

    def __init__(
        self,
        spark: SparkSession,
        config: MonitorConfig,
        sent_letters: SentLetters,
        ranges_of: Callable[[int], list[OffsetRange] | None],
    ) -> None:
        """``ranges_of``: the offset ranges a batch id read (None: unknown), which the send
        log records as sent."""
        self.spark = spark
        self.config = config
        self._sent_letters = sent_letters
        self._ranges_of = ranges_of

    def write_parsed(self, parts: list[DataFrame], batch_id: int) -> None:
        """Send the dead letters (with their source offsets) of a batch's parsed ``parts`` (the
        batch, or its parts the quarantine ran) to the dead-letter topic, in one write: the
        send log takes a batch's letters of a kind as sent at once."""
        from pyspark.sql import functions as F

        from kafka_health.parsing.deadletter import dead_letters

        is_log = F.col("source_topic") == self.config.topics.broker_logs
        letters = [dead_letters(p.where(is_log), self.config.parsing.dead_letter) for p in parts]
        union = functools.reduce(lambda a, b: a.unionByName(b), letters)
        self.send(union, "parse", batch_id)

    def reject(self, batch_id: int, rejected: list[Rejected]) -> None:
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
        self.send(letters, "rejected", batch_id)

    def write_culprits(self, raw: DataFrame, culprits: list[Culprit], batch_id: int) -> None:
        """The records that fail the parse, as dead letters with reason ``parse_failed``."""
        letters = culprit_letters(raw, culprits, self.config.parsing.dead_letter)
        self.send(letters, "culprit", batch_id)

    def send(self, letters: DataFrame, kind: str, batch_id: int) -> None:
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
        ranges = self._ranges_of(batch_id)
        if ranges is not None:
            self._sent_letters.sent(kind, batch_id, ranges)
