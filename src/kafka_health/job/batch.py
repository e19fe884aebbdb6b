"""One micro-batch of the monitor's topics -> the few rows the driver's detectors need.

Spark reads the monitor's own topics in one query whose plan decodes and parses each record
once (Spark built-in functions only, :mod:`kafka_health.parsing`; the plan is built once, when
the query starts: :func:`parsed_stream`, with the group columns of
:func:`with_driver_columns`). Per batch, one aggregation (:func:`driver_rows`) leaves one
row per (tag, outcome, reason, type, broker, log kind): its counts, from which the driver takes
both the parse counts and the (broker, log kind) streams seen, and the records it lists (events
of the types detectors read, canary outcomes and cluster-state records as they were written,
checked on the driver); the other lines are only counted. One ``collect``
brings them to the driver, where :func:`decode_rows` turns them into a
:class:`~kafka_health.detectors.inputs.Batch`.

The canary topic lives on the monitored cluster and is read by a second query
(:func:`probe_rows`), so a dead or hung leader there stalls only the loss verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

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
    from pyspark.sql import Column, DataFrame

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
list (``records``), each with its source partition and offset, so one that is rejected is
dead-lettered with its source offset. A group per record made an election storm's every event
a key of the hash aggregation, shuffled and collected as a row of its own: 11 % of an event's
cost in Spark, and a Python ``Row`` apiece on the driver (BENCHMARKS.md)."""
RECORD_SEPARATOR = "\x01"
"""Between a listed record's partition, offset and payload (``partition\x01offset\x01payload``;
the two numbers hold no separator, so the payload may)."""
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
"""Reads of each source record per batch in :func:`parsed_stream`'s plan: Spark's
``numInputRows`` counts each read (two branches of one source, a union, read it twice: more
CPU at idle, 0.56 cores against 0.48, BENCHMARKS.md)."""


def parsed_stream(source: DataFrame, config: MonitorConfig) -> DataFrame:
    """The query's rows: every record of every topic, decoded and parsed as a broker-log
    record, narrowed to what the batch needs (the source columns, the outcome, the event
    fields). Built once when the query starts, so a batch does not rebuild the parser's large
    plan.

    The canary's outcomes and the prober's records (told apart by ``source_topic``) reach the
    decode and parse empty, their value set aside (``own_value``) and put back after: every
    expression of the parse's stages meets a null or an empty text and stops at once. The
    prober's snapshots (a record per partition, 10,000 at a time on a 10,000-partition
    cluster) took 0.9 s of such a batch when they were decoded and parsed as log lines
    (BENCHMARKS.md)."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.envelope import kept_value

    is_log = F.col("topic") == config.topics.broker_logs
    own_size = F.coalesce(F.octet_length("value"), F.lit(0))
    records = source.select(
        *[c for c in source.columns if c != "value"],
        F.when(is_log, F.col("value")).alias("value"),
        F.when(~is_log, kept_value(F.col("value"), own_size, config.parsing)).alias("own_value"),
        F.when(~is_log, own_size).alias("own_value_bytes"),
    )
    parsed = parsed_logs(records, config, carried=("own_value", "own_value_bytes"))
    own = F.col("own_value_bytes").isNotNull()
    restored = parsed.withColumns({
        "source_value": F.when(own, F.col("own_value")).otherwise(F.col("source_value")),
        "source_value_bytes": F.when(own, F.col("own_value_bytes"))
        .otherwise(F.col("source_value_bytes")),
    }).drop("own_value", "own_value_bytes")  # fmt: skip
    return with_driver_columns(restored, config)


def parsed_logs(
    records: DataFrame, config: MonitorConfig, carried: tuple[str, ...] = ()
) -> DataFrame:
    """Broker-log records decoded and parsed (the parser's Java UDF, one call per record:
    :mod:`kafka_health.parsing.udf`): the source columns, the outcome and the event fields,
    and the ``carried`` columns of ``records``."""
    from kafka_health.parsing.deadletter import DEAD_LETTER_COLUMNS
    from kafka_health.parsing.udf import parse_records

    parsed = parse_records(
        records, config.parsing, keep_message=False, values_for_dead_letters_only=True
    )
    wanted = dict.fromkeys(
        (*[c for c in DEAD_LETTER_COLUMNS if c != "value_bytes"], "outcome", "reason", "kind",
         "n_lines", "source_value_bytes", *EVENT_COLUMNS, *carried)
    )  # fmt: skip
    return parsed.select(*wanted)


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


def with_driver_columns(parsed: DataFrame, config: MonitorConfig) -> DataFrame:
    """``parsed`` with the columns :func:`driver_rows` groups by, prefixed ``g_``: ``tag``
    (``outcome``, ``cluster``, ``event`` or null), ``payload`` (the record as JSON, null for a
    log line that is not a detected event), the parse outcome, reason, event type, broker id
    and log kind of broker-log rows, their line count, whether each is a dead letter, and
    whether it is a log record. Part of the query's plan, built once: a batch then plans only
    the aggregation (measured: building these per batch took 0.3 s of each batch).

    The canary's outcomes and the prober's records (the project's own JSON, a few per second)
    go to the driver as they are, and :func:`decode_rows` keeps those that match their schema:
    Spark's ``from_json`` has no generated code, so parsing them here would take a projection
    over every log record out of whole-stage codegen."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.deadletter import is_dead_letter
    from kafka_health.parsing.events import source_time_ms

    topics = config.topics
    topic = F.col("source_topic")
    is_log = topic == topics.broker_logs
    size = (
        F.col("source_value_bytes")
        if "source_value_bytes" in parsed.columns
        else F.octet_length("source_value")
    )
    own = topic.isin(topics.canary_results, topics.cluster_state) & (size <= OWN_RECORD_MAX_BYTES)
    is_event = is_log & (F.col("outcome") == "event") & F.col("type").isin(*DETECTED_TYPES)
    shipped_ms = source_time_ms(parsed)
    event_json = F.when(is_event, F.to_json(F.struct(*EVENT_COLUMNS)))
    return parsed.select(
        "*",
        F.when(is_event, "event")
        .when(own & (topic == topics.canary_results), "outcome")
        .when(own, "cluster")
        .alias("g_tag"),
        *[
            F.when(is_log, F.col(c)).alias(f"g_{c}")
            for c in ("outcome", "reason", "type", "broker_id")
        ],
        F.when(is_log, F.col("kind")).alias("g_log_kind"),
        F.when(is_log, F.col("n_lines")).alias("g_lines"),
        F.when(is_event | own, _listed_record(event_json, F.col("source_value"))).alias("g_record"),
        F.when(is_log & is_dead_letter(config.parsing.dead_letter), 1).otherwise(0).alias("g_dead"),
        F.when(is_log, shipped_ms).alias("g_shipped_ms"),
        is_log.alias("g_is_log"),
    )


def _listed_record(event: Column, own_value: Column) -> Column:
    """``partition\x01offset\x01payload`` (:data:`RECORD_SEPARATOR`), the payload ``event`` or
    else ``own_value`` as text; null without either (an own topic's record with no value),
    which the group's list leaves out."""
    from pyspark.sql import functions as F

    numbers = [F.coalesce(F.col(c).cast("string"), F.lit("")) for c in
               ("source_partition", "source_offset")]  # fmt: skip
    payload = F.coalesce(event, own_value.cast("string"))
    return F.concat(numbers[0], F.lit(RECORD_SEPARATOR), numbers[1], F.lit(RECORD_SEPARATOR),
                    payload)  # fmt: skip


def driver_rows(batch: DataFrame) -> DataFrame:
    """The rows of one batch of :func:`parsed_stream` the driver needs, in one aggregation
    (one Spark job, one scan of the batch; see the module docstring) over the columns of
    :func:`with_driver_columns`: ``tag``, ``outcome``, ``reason``, ``type``, ``broker_id``,
    ``log_kind``, and per group the number of ``entries``, their ``lines``, ``dead_letters``,
    the ``records`` it lists (:data:`GROUP_COLUMNS`) and the newest broker-log record's Kafka
    timestamp (``shipped_ms``: it moves the detectors' log clock, ``logwindow.LOG_CLOCK``)."""
    from pyspark.sql import functions as F

    return (
        batch.where(F.col("g_is_log") | F.col("g_tag").isNotNull())
        .groupBy(*[F.col(f"g_{c}").alias(c) for c in GROUP_COLUMNS])
        .agg(
            F.count(F.lit(1)).alias("entries"),
            F.sum("g_lines").alias("lines"),
            F.sum("g_dead").alias("dead_letters"),
            F.collect_list("g_record").alias("records"),
            F.max("g_shipped_ms").alias("shipped_ms"),
        )
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
        for listed in records or ():
            partition, offset, payload = listed.split(RECORD_SEPARATOR, 2)
            _take(out, tag, payload, _number(partition), _number(offset), now_ms)
    out.batch.streams.extend(LogStream(broker, kind, n) for (broker, kind), n in streams.items())
    if shipped:
        newest = max(shipped)
        out.batch.log_shipped_ms = newest if now_ms is None else min(newest, now_ms)
    out.counts.extend(ParseCount(*key, *totals) for key, totals in counts.items())
    return out


def _number(text: str) -> int | None:
    return int(text) if text else None


def _take(
    out: Decoded,
    tag: str | None,
    payload: str | None,
    partition: int | None,
    offset: int | None,
    now_ms: int | None,
) -> None:
    """One record of kind ``tag`` into ``out``: checked, then a detector input or rejected."""
    if tag is None or payload is None:
        return
    if tag in SCHEMAS:
        record, why = check(tag, payload, now_ms)
        if record is None:
            out.rejected.append(Rejected(tag, why, partition, offset, payload))
            return
    else:
        try:
            record = orjson.loads(payload)
        except orjson.JSONDecodeError:  # Spark wrote it; a batch must not fail on one anyway
            out.rejected.append(Rejected(tag, "not_json", partition, offset, payload))
            return
        why = (
            check_event(record, now_ms) if tag == "event"
            else check_probe(record) if tag == "probe"
            else ""
        )  # fmt: skip
        if why:
            out.rejected.append(Rejected(tag, why, partition, offset, payload))
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
