"""One micro-batch of the monitor's topics -> the few rows the driver's detectors need.

Spark reads the monitor's own topics in one query (:func:`monitor_records`). Per batch, one
Spark job (:func:`driver_rows`) decodes, parses and tallies each record once, in the JVM
(``kafkahealth.parse.BatchTally``, the parser of :mod:`kafka_health.parsing.udf`), and leaves
one row per (tag, outcome, reason, type, broker, log kind): its counts, from which the driver
takes both the parse counts and the (broker, log kind) streams seen, and the records it lists
(events of the types detectors read, canary outcomes and cluster-state records as they were
written, checked on the driver); the other lines are only counted. :func:`decode_rows` turns
the rows into a :class:`~kafka_health.detectors.inputs.Batch`. A batch with dead letters is
parsed again by Spark's plan of the same parse (:func:`parsed_logs`) to write them.

The canary topic lives on the monitored cluster and is read by a second query
(:func:`probe_rows`), so a dead or hung leader there stalls only the loss verdicts.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from kafka_health.config import MonitorConfig
from kafka_health.detectors.inputs import (
    Batch,
    ClusterRecord,
    LogEvent,
    LogStream,
    Outcome,
    ProbeSeen,
)
from kafka_health.detectors.isr import ISR_EVENTS, ISR_UPDATE_FAILED
from kafka_health.detectors.kraft_quorum import KRAFT_EVENTS
from kafka_health.detectors.log_dirs import LOG_DIR_EVENTS
from kafka_health.detectors.logwindow import WINDOWED_TYPES
from kafka_health.detectors.session_timeouts import SESSION_TIMEOUT_EVENT
from kafka_health.job.own_records import SCHEMAS, check, check_event, check_probe
from kafka_health.job.schemas import PROBE_DDL, PROBE_SCHEMA_ID
from kafka_health.parsing.envelope import VALUE_KEPT_MIN_BYTES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

# Event types some detector reads; every other event is counted, then dropped in Spark.
DETECTED_TYPES = tuple(
    dict.fromkeys(
        (
            *WINDOWED_TYPES,
            *ISR_EVENTS,
            ISR_UPDATE_FAILED,
            "coordinator_load_start",
            "coordinator_load_finish",
            SESSION_TIMEOUT_EVENT,
            *LOG_DIR_EVENTS,
            *KRAFT_EVENTS,
        )
    )
)
# A canary outcome or cluster-state record is a few hundred bytes; a bigger one is not ours.
# (The parse keeps at least this much of every raw value: envelope.VALUE_KEPT_MIN_BYTES.)
OWN_RECORD_MAX_BYTES = VALUE_KEPT_MIN_BYTES
GROUP_COLUMNS = ("tag", "outcome", "reason", "type", "broker_id", "log_kind")
"""The tally's groups: a few per broker and log kind. The records the driver reads (events of
the detected types, the canary's outcomes, the cluster-state records) ride in their group as a
list (``records``), each ``[partition, offset, payload]``, so one that is rejected is
dead-lettered with its source offset: an event's payload is the JSON object of its
:data:`EVENT_COLUMNS`, an own record's the text it was written as."""
EVENT_COLUMNS = tuple(f.name for f in fields(LogEvent))
"""The parse's columns an event brings to the detectors: :class:`LogEvent`'s fields, each a
column of :func:`~kafka_health.parsing.udf.parse_records` of the same name."""


@dataclass
class ParseCount:
    """Entries and lines of one (outcome, reason, type) in a batch, and how many of them were
    dead letters."""

    outcome: str | None
    reason: str | None
    type: str | None
    entries: int
    lines: int
    dead_letters: int


LOG_REJECTIONS = ("bad_broker_id",)
"""Reasons (``bad_reason``, :mod:`kafka_health.parsing.envelope`) for which the plan rejects
a broker-log record: counted from its group's entries as rejected records too, and
dead-lettered by the parse's own dead letters (they are bad input)."""


@dataclass(frozen=True)
class Rejected:
    """A canary outcome or cluster-state record the detectors cannot trust
    (:mod:`kafka_health.job.own_records`), with its source coordinates and value."""

    tag: str  # "outcome" (canary results), "cluster" (cluster state), "event" (broker logs),
    # "probe" (the canary topic's, counted only: that topic is the monitored cluster's)
    reason: str
    partition: int | None
    offset: int | None
    payload: str


def rejected_letters(
    rejected: Iterable[Rejected], topics: dict[str, str], max_value_bytes: int
) -> list[tuple[Any, ...]]:
    """Dead-letter rows (``DEAD_LETTER_DDL``) of rejected records: outcome ``rejected``, the
    reason, the topic of their ``tag`` in ``topics``, value cut to ``max_value_bytes``."""
    rows = []
    for r in rejected:
        value = r.payload.encode("utf-8", "replace")
        rows.append(
            (topics[r.tag], r.partition, r.offset, None, "rejected", r.reason, None, None,
             len(value), None, value[:max_value_bytes])
        )  # fmt: skip
    return rows


@dataclass
class Decoded:
    batch: Batch = field(default_factory=Batch)
    counts: list[ParseCount] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    log_rejected: dict[str, int] = field(default_factory=dict)
    """Broker-log records the plan rejected (:data:`LOG_REJECTIONS`), by reason: counted in
    Spark, dead-lettered there with the parse's dead letters."""

    @property
    def invalid(self) -> int:
        """Records of the canary-results or cluster-state topic rejected in this batch."""
        return len(self.rejected)

    @property
    def dead_letters(self) -> int:
        return sum(c.dead_letters for c in self.counts)


SOURCE_READS = 1
"""Reads of each source record per batch (Spark's ``numInputRows`` counts each read: two
branches of one source, a union, read it twice: more CPU at idle, 0.56 cores against 0.48,
BENCHMARKS.md)."""
SOURCE_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp")
"""The Kafka source's columns the batch reads (``BatchTally.COLUMNS``, in its order)."""


def monitor_records(source: DataFrame, config: MonitorConfig) -> DataFrame:
    """The monitor query's rows: the source's records as they are (:data:`SOURCE_COLUMNS`);
    :func:`driver_rows` decodes, parses and tallies a batch of them in one JVM pass."""
    del config  # the job's records are the same for every configuration
    return source.select(*SOURCE_COLUMNS)


class DriverRow(NamedTuple):
    """One group of a batch's tally (:func:`driver_rows`)."""

    tag: str | None
    outcome: str | None
    reason: str | None
    type: str | None
    broker_id: str | None
    log_kind: str | None
    entries: int
    lines: int
    dead_letters: int
    records: list[list[Any]]
    shipped_ms: int | None


def driver_rows(records: DataFrame, config: MonitorConfig) -> list[DriverRow]:
    """The rows one batch of :func:`monitor_records` gives the driver, collected: one Spark
    job whose every task decodes, parses and tallies its records in the JVM
    (``kafkahealth.parse.BatchTally``: the parse of :mod:`kafka_health.parsing.udf`, then a
    hash map by :data:`GROUP_COLUMNS`), the tasks' tallies merged on the driver in partition
    order. Each row: the group's ``tag``, ``outcome``, ``reason``, ``type``, ``broker_id``
    and ``log_kind``; its ``entries``, ``lines`` and ``dead_letters``; the ``records`` it
    lists; the newest broker-log record's Kafka timestamp (``shipped_ms``: it moves the
    detectors' log clock, ``logwindow.LOG_CLOCK``).

    In Spark's own terms (a projection of the group columns, then an object hash aggregation
    for the lists) the same rows took 30-50 % more executor CPU, 80 % more on the storm's mix
    (BENCHMARKS.md P8)."""
    from kafka_health.parsing.udf import record_spec_text

    spark = records.sparkSession
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    spec = record_spec_text(spark, config.parsing, keep_message=False, letters_only=True)
    handle, name = tempfile.mkstemp(prefix="kafka-health-tally-", suffix=".json")
    os.close(handle)
    try:
        jvm.kafkahealth.parse.BatchTally.tally(records._jdf, spec, tally_settings(config), name)
        rows = orjson.loads(Path(name).read_bytes())
    finally:
        os.unlink(name)
    return [DriverRow(*row) for row in rows]


def tally_settings(config: MonitorConfig) -> str:
    """What ``BatchTally`` needs past the parse's table, as JSON: the topics, the event types
    it lists (:data:`DETECTED_TYPES`, as :data:`EVENT_COLUMNS`), which outcomes are dead
    letters, and the size past which a canary outcome or cluster-state record is not ours."""
    from kafka_health.parsing.deadletter import dead_letter_reasons

    letters = config.parsing.dead_letter
    topics = config.topics
    return orjson.dumps({
        "logs_topic": topics.broker_logs,
        "own_topics": {topics.canary_results: "outcome", topics.cluster_state: "cluster"},
        "own_max_bytes": OWN_RECORD_MAX_BYTES,
        "detected_types": list(DETECTED_TYPES),
        "letter_reasons": dead_letter_reasons(letters),
        "letter_malformed": letters.include_malformed,
        "event_columns": list(EVENT_COLUMNS),
    }).decode()  # fmt: skip


def parsed_logs(records: DataFrame, config: MonitorConfig) -> DataFrame:
    """The broker-log records of ``records`` (:func:`monitor_records`) decoded and parsed
    (the parser's Java UDF, one call per record: :mod:`kafka_health.parsing.udf`), for their
    dead letters: the source columns (``source_*``), the outcome and the event fields."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.udf import parse_records

    logs = records.where(F.col("topic") == config.topics.broker_logs)
    return parse_records(
        logs, config.parsing, keep_message=False, values_for_dead_letters_only=True
    )


def _tagged(kind: str, df: DataFrame, *columns: Any) -> DataFrame:
    from pyspark.sql import functions as F

    return df.select(F.lit(kind).alias("kind"), F.to_json(F.struct(*columns)).alias("json"))


def probe_rows(source: DataFrame) -> DataFrame:
    """``(kind, json)`` rows of the canary query: each well-formed probe in the canary topic
    with its offset (the loss detector's input), from Spark's Kafka source columns."""
    from pyspark.sql import functions as F

    probes = source.select(
        F.from_json(F.col("value").cast("string"), PROBE_DDL).alias("p"), F.col("offset")
    )
    return _tagged(
        "probe",
        probes.where(
            (F.col("p.schema") == PROBE_SCHEMA_ID)
            & F.col("p.partition").isNotNull()
            & F.col("p.seq").isNotNull()
            & F.col("p.send_ms").isNotNull()
        ),
        *[f"p.{c}" for c in ("canary_id", "partition", "seq", "acks", "send_ms")],
        F.col("offset"),
    )


def decode_rows(rows: Iterable[Any], now_ms: int | None = None) -> Decoded:
    """Collected rows (:func:`driver_rows`, or the canary query's ``(tag, payload)`` rows) as
    detector inputs and parse counts; canary outcomes and cluster-state records are checked
    (:func:`kafka_health.job.own_records.check`, timestamps against ``now_ms`` when given)
    and the ones rejected listed with their reason. The broker-log records' newest shipping
    time is kept, no later than ``now_ms`` (a shipper's clock ahead must not move the log
    clock past the present)."""
    out = Decoded()
    streams: dict[tuple[str, str], int] = {}
    counts: dict[tuple[str | None, str | None, str | None], list[int]] = {}
    shipped: list[int] = []
    for row in rows:
        if len(row) == 2:  # the canary query's (tag, payload)
            _take(out, row[0], row[1], None, None, now_ms)
            continue
        tag, outcome, reason, type_, broker, log_kind, entries, lines, dead, records = row[:10]
        if tag in (None, "event"):  # a broker-log group: counted
            if len(row) > 10 and row[10] is not None:
                shipped.append(int(row[10]))
            copies = int(entries or 0)
            if broker is not None and log_kind is not None:
                streams[(broker, log_kind)] = streams.get((broker, log_kind), 0) + copies
            if tag is None and outcome == "unrecognised" and reason in LOG_REJECTIONS:
                out.log_rejected[reason] = out.log_rejected.get(reason, 0) + copies
            total = counts.setdefault((outcome, reason, type_), [0, 0, 0])
            total[0] += copies
            total[1] += int(lines or 0)
            total[2] += int(dead or 0)
        if tag is None:
            continue
        for partition, offset, payload in records or ():
            _take(out, tag, payload, partition, offset, now_ms)
    out.batch.streams.extend(LogStream(broker, kind, n) for (broker, kind), n in streams.items())
    if shipped:
        newest = max(shipped)
        out.batch.log_shipped_ms = newest if now_ms is None else min(newest, now_ms)
    out.counts.extend(ParseCount(*key, *totals) for key, totals in counts.items())
    return out


def _take(
    out: Decoded,
    tag: str | None,
    payload: str | dict[str, Any] | None,
    partition: int | None,
    offset: int | None,
    now_ms: int | None,
) -> None:
    """One record of kind ``tag`` into ``out``: checked, then a detector input or rejected.
    ``payload``: a canary outcome or cluster-state record as it was written, or the JSON of
    an event or probe as the job wrote it (a text, or already read: an event's object)."""
    if tag is None or payload is None:
        return
    if tag in SCHEMAS:
        record, why = check(tag, str(payload), now_ms)
        if record is None:
            out.rejected.append(Rejected(tag, why, partition, offset, str(payload)))
            return
    else:
        if isinstance(payload, dict):
            record = payload
        else:
            try:
                record = orjson.loads(payload)
            except orjson.JSONDecodeError:  # the job wrote it; a batch must not fail anyway
                out.rejected.append(Rejected(tag, "not_json", partition, offset, payload))
                return
        why = (
            check_event(record, now_ms) if tag == "event"
            else check_probe(record) if tag == "probe"
            else ""
        )  # fmt: skip
        if why:
            text = payload if isinstance(payload, str) else orjson.dumps(payload).decode()
            out.rejected.append(Rejected(tag, why, partition, offset, text))
            return
    _append(out.batch, tag, record)


def _append(b: Batch, tag: str, d: dict[str, Any]) -> None:
    """One decoded record of kind ``tag`` into the batch's detector inputs."""
    if tag == "outcome":
        b.outcomes.append(
            Outcome(
                d.get("canary_id") or "", int(d["partition"]), int(d["seq"]),
                d.get("acks") or "all", int(d["send_ms"]), d.get("done_ms"),
                d.get("outcome") == "ok", d.get("latency_s"), d.get("leader"),
                d.get("error"), d.get("log_append_ms"),
            )
        )  # fmt: skip
    elif tag == "probe":
        b.probes.append(
            ProbeSeen(d.get("canary_id") or "", int(d["partition"]), int(d["seq"]),
                      d.get("acks") or "all", int(d["send_ms"]), int(d["offset"]))
        )  # fmt: skip
    elif tag == "cluster":
        b.cluster.append(
            ClusterRecord(
                d["kind"], int(d.get("snapshot_ms") or 0), d.get("topic"),
                d.get("partition"), d.get("leader"), d.get("leader_epoch"),
                tuple(d.get("replicas") or ()), tuple(d.get("isr") or ()), d.get("min_isr"),
                d.get("broker_id"), d.get("live"), d.get("brokers"),
            )
        )  # fmt: skip
    elif tag == "event":
        b.events.append(LogEvent.from_record(d))
