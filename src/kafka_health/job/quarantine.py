"""A batch whose parse fails: find the records that fail it, set them aside, keep the rest.

The parse runs Java (``kafkahealth.parse``) on bounded text, so no known record fails it;
this is the net under it. A record that still fails a Spark task (a regular expression that
overflows the stack, a bug of ours, a JVM limit) would fail the whole batch, the supervisor
would restart the query from the same offsets, and the same record would fail it again: one
line in a log would stop the monitor. Instead, :meth:`Quarantine.run` re-reads the batch's
offset ranges (from the query's checkpoint) from Kafka, checks that the raw records can be
read at all (a failure there is the transport's, not a record's: re-raised), and bisects the
ranges (:func:`isolate`): each part whose parse succeeds contributes its rows as usual, and
each single record that still fails becomes a dead letter with reason ``parse_failed``, its
source offset and the error's class. A batch with more failing records than
``MAX_CULPRITS`` is not a few bad records but a broken parse: re-raised.

:func:`isolate` is plain code over a callable, unit-tested without Spark.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from kafka_health.job.batch import ParseCount
    from kafka_health.kafka_config import KafkaConfig
    from kafka_health.parsing.config import DeadLetterConfig

log = logging.getLogger(__name__)

T = TypeVar("T")

PARSE_FAILED = "parse_failed"
"""Dead-letter reason of a record that failed the parse's Spark task on its own."""
MAX_CULPRITS = 64
"""More failing records than this in one batch: the parse is broken, not the records."""
EARLIEST = -2  # Spark's Kafka source: "earliest" in a per-partition offsets JSON


@dataclass(frozen=True, order=True)
class OffsetRange:
    """Records ``start`` (inclusive) to ``end`` (exclusive) of one topic partition."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start

    def halves(self) -> tuple[OffsetRange, OffsetRange]:
        middle = self.start + self.size // 2
        return (
            OffsetRange(self.topic, self.partition, self.start, middle),
            OffsetRange(self.topic, self.partition, middle, self.end),
        )


@dataclass(frozen=True)
class Culprit:
    """One record that fails the parse on its own."""

    topic: str
    partition: int
    offset: int
    error: str  # the exception's class


@dataclass
class Isolated(Generic[T]):
    """What :func:`isolate` found: the results of the parts that ran, the records that fail."""

    results: list[T] = field(default_factory=list)
    culprits: list[Culprit] = field(default_factory=list)
    attempts: int = 0


class TooManyCulprits(RuntimeError):
    """More records fail than :data:`MAX_CULPRITS`: not bad records, a broken parse."""


def isolate(
    ranges: Sequence[OffsetRange],
    attempt: Callable[[list[OffsetRange]], T],
    describe: Callable[[Exception], str] = lambda e: type(e).__name__,
    max_culprits: int = MAX_CULPRITS,
) -> Isolated[T]:
    """Run ``attempt`` over all of ``ranges``; where it raises, split (first by partition,
    then each range in halves) and run the parts, down to single records, which are the
    culprits. Every record is in exactly one part that ran or in the culprits."""
    out: Isolated[T] = Isolated()
    todo: list[list[OffsetRange]] = [[r for r in ranges if r.size > 0]]
    while todo:
        part = todo.pop()
        if not part:
            continue
        out.attempts += 1
        try:
            out.results.append(attempt(part))
            continue
        except Exception as exc:
            if len(part) == 1 and part[0].size == 1:
                only = part[0]
                out.culprits.append(Culprit(only.topic, only.partition, only.start, describe(exc)))
                if len(out.culprits) > max_culprits:
                    raise TooManyCulprits(
                        f"more than {max_culprits} records fail the parse on their own"
                    ) from exc
                continue
        todo.extend(reversed(_split(part)))
    out.culprits.sort(key=lambda c: (c.topic, c.partition, c.offset))
    return out


def _split(part: list[OffsetRange]) -> list[list[OffsetRange]]:
    """Two smaller parts: the ranges in two groups, or a single range in halves."""
    if len(part) > 1:
        middle = len(part) // 2
        return [part[:middle], part[middle:]]
    first, second = part[0].halves()
    return [[first], [second]]


def batch_ranges(checkpoint: Path, batch_id: int, topics: Sequence[str]) -> list[OffsetRange]:
    """The offset ranges of ``topics`` that batch ``batch_id`` of the query whose checkpoint
    is ``checkpoint`` reads: from the end offsets of the batch before it (or the source's
    initial offsets) to its own, as Spark's offset log records them (written before the batch
    runs). A partition new in this batch starts at the earliest offset."""
    end = _source_offsets(checkpoint / "offsets" / str(batch_id))
    if batch_id > 0:
        start = _source_offsets(checkpoint / "offsets" / str(batch_id - 1))
    else:
        start = _source_offsets(checkpoint / "sources" / "0" / "0")
    ranges = []
    for topic in topics:
        for partition, last in sorted(end.get(topic, {}).items(), key=lambda kv: int(kv[0])):
            first = start.get(topic, {}).get(partition, EARLIEST)
            if first == EARLIEST or int(last) > int(first):
                ranges.append(OffsetRange(topic, int(partition), int(first), int(last)))
    return ranges


def _source_offsets(path: Path) -> dict[str, dict[str, int]]:
    """The Kafka source's offsets JSON (``{topic: {partition: offset}}``) in an offset-log or
    initial-offsets file: the last line that is a JSON object of topics (the job's first
    query source; a file starts with a version line, and an offset-log file's second line is
    the batch's metadata)."""
    text = path.read_text(encoding="utf-8", errors="replace").replace("\x00", "")
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        document = json.loads(line)
        # the metadata line holds numbers beside its "conf" object; the offsets, only objects
        if isinstance(document, dict) and all(isinstance(v, dict) for v in document.values()):
            return {t: {p: int(o) for p, o in parts.items()} for t, parts in document.items()}
    raise ValueError(f"no Kafka source offsets in {path}")


def starting_offsets_json(ranges: Sequence[OffsetRange]) -> tuple[str, str, str]:
    """``assign``, ``startingOffsets`` and ``endingOffsets`` options of a Spark batch read of
    exactly ``ranges`` (one range per partition)."""
    assign: dict[str, list[int]] = {}
    starts: dict[str, dict[str, int]] = {}
    ends: dict[str, dict[str, int]] = {}
    for r in ranges:
        assign.setdefault(r.topic, []).append(r.partition)
        starts.setdefault(r.topic, {})[str(r.partition)] = r.start
        ends.setdefault(r.topic, {})[str(r.partition)] = r.end
    return json.dumps(assign), json.dumps(starts), json.dumps(ends)


# ---------------------------------------------------------------- Spark side


def is_record_failure(error: BaseException) -> bool:
    """Whether a failed batch may be a record's doing: not Kafka's (the transport is down:
    :func:`~kafka_health.job.health.classify_error` says None) and not a stop (a cancelled
    job, an interrupt)."""
    from kafka_health.job.health import classify_error

    if classify_error(error) is None:
        return False
    text = str(error)
    return not any(word in text for word in ("cancelled", "InterruptedException", "stopped"))


def describe_failure(error: Exception) -> str:
    """The class of the JVM exception that failed the attempt (bounded vocabulary)."""
    from kafka_health.job.health import classify_error

    return classify_error(error) or type(error).__name__


def read_ranges(
    spark: SparkSession, kafka: KafkaConfig, ranges: Sequence[OffsetRange]
) -> DataFrame:
    """A batch read of exactly ``ranges`` from ``kafka`` (the Kafka source's columns)."""
    from kafka_health.kafka_clients import spark_kafka_options

    assign, starts, ends = starting_offsets_json(ranges)
    return (
        spark.read.format("kafka")
        .options(**spark_kafka_options(kafka))
        .option("assign", assign)
        .option("startingOffsets", starts)
        .option("endingOffsets", ends)
        .option("failOnDataLoss", "false")
        .load()
    )


def ranges_read(raw: DataFrame) -> list[OffsetRange]:
    """The offset ranges that ``raw`` really holds (first to last offset read per partition):
    a cheap read with no parse, so a failure here is the transport's, not a record's."""
    from pyspark.sql import functions as F

    bounds = raw.groupBy("topic", "partition").agg(
        F.min("offset").alias("first"), F.max("offset").alias("last")
    )
    return sorted(
        OffsetRange(r["topic"], int(r["partition"]), int(r["first"]), int(r["last"]) + 1)
        for r in bounds.collect()
    )


def within(raw: DataFrame, part: Sequence[OffsetRange]) -> DataFrame:
    """The records of ``raw`` in ``part``."""
    from functools import reduce

    from pyspark.sql import functions as F

    conditions = [
        (F.col("topic") == r.topic)
        & (F.col("partition") == r.partition)
        & F.col("offset").between(r.start, r.end - 1)
        for r in part
    ]
    return raw.where(reduce(lambda a, b: a | b, conditions))


def has_dead_letters(rows: Sequence[Any]) -> bool:
    """Whether collected ``driver_rows`` count a dead letter."""
    return any(row.dead_letters for row in rows)


def culprit_letters(
    raw: DataFrame, culprits: Sequence[Culprit], config: DeadLetterConfig
) -> DataFrame:
    """Dead-letter rows (:data:`~kafka_health.parsing.deadletter.DEAD_LETTER_COLUMNS`) of the
    culprits, read raw (no parse), reason ``parse_failed``, value cut to the limit."""
    from pyspark.sql import functions as F

    errors = {(c.topic, c.partition, c.offset): c.error for c in culprits}
    picked = within(
        raw, [OffsetRange(c.topic, c.partition, c.offset, c.offset + 1) for c in culprits]
    )
    error_of = F.create_map(
        *[
            x
            for (topic, partition, offset), error in errors.items()
            for x in (F.lit(f"{topic}\x00{partition}\x00{offset}"), F.lit(error))
        ]
    )
    key = F.concat_ws(
        "\x00", "topic", F.col("partition").cast("string"), F.col("offset").cast("string")
    )
    return picked.select(
        F.col("topic").alias("source_topic"),
        F.col("partition").alias("source_partition"),
        F.col("offset").alias("source_offset"),
        F.col("timestamp").alias("source_timestamp"),
        F.lit("unrecognised").alias("outcome"),
        F.lit(PARSE_FAILED).alias("reason"),
        F.lit(None).cast("string").alias("broker_id"),
        F.concat(F.lit("error: "), error_of[key]).alias("file"),
        F.octet_length("value").alias("value_bytes"),
        F.col("key").alias("source_key"),
        F.substring("value", 1, config.max_value_bytes).alias("source_value"),
    )


def culprit_counts(culprits: Sequence[Culprit]) -> list[ParseCount]:
    """The culprits as parse counts: ``unrecognised`` / ``parse_failed``, dead letters all."""
    from kafka_health.job.batch import ParseCount

    if not culprits:
        return []
    n = len(culprits)
    return [ParseCount("unrecognised", PARSE_FAILED, None, n, n, n)]
