"""One micro-batch of the monitor's topics -> the few rows the driver's detectors need.

Spark reads the monitor's own topics in one query whose plan decodes and parses each record
once (Spark built-in functions only, :mod:`kafka_health.parsing`; the plan is built once, when
the query starts: :func:`parsed_stream`). Per batch, on the checkpointed parsed records, lines
that are not events are dropped and what is left is one small DataFrame of ``(kind, json)``
rows: canary outcomes, cluster-state records, events of the types detectors read, and one
tally (a single aggregation) per (outcome, reason, type, broker, log kind), from which the
driver takes both the parse counts and the (broker, log kind) streams seen. One ``collect``
brings them to the driver, where :func:`decode_rows` turns them into a
:class:`~kafka_health.detectors.inputs.Batch`.

The canary topic lives on the monitored cluster and is read by a second query
(:func:`probe_rows`), so a dead or hung leader there stalls only the loss verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kafka_health.config import MonitorConfig
from kafka_health.detectors.inputs import (
    Batch,
    ClusterRecord,
    LogEvent,
    LogStream,
    Outcome,
    ProbeSeen,
)
from kafka_health.detectors.isr import ISR_EVENTS
from kafka_health.detectors.logwindow import WINDOWED_TYPES
from kafka_health.detectors.session_timeouts import SESSION_TIMEOUT_EVENT
from kafka_health.job.schemas import (
    CLUSTER_STATE_DDL,
    CLUSTER_STATE_SCHEMA_ID,
    PROBE_DDL,
    PROBE_SCHEMA_ID,
    RESULT_DDL,
    RESULT_SCHEMA_ID,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

# Event types some detector reads; every other event is counted, then dropped in Spark.
DETECTED_TYPES = tuple(
    dict.fromkeys(
        (
            *WINDOWED_TYPES,
            *ISR_EVENTS,
            "coordinator_load_start",
            "coordinator_load_finish",
            SESSION_TIMEOUT_EVENT,
        )
    )
)
EVENT_COLUMNS = (
    "type", "broker_id", "event_ms", "topic", "partition", "leader", "leader_epoch", "isr_after",
    "pause_s", "subject_broker_id", "session_timeout_ms",
)  # fmt: skip


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


@dataclass
class Decoded:
    batch: Batch = field(default_factory=Batch)
    counts: list[ParseCount] = field(default_factory=list)

    @property
    def dead_letters(self) -> int:
        return sum(c.dead_letters for c in self.counts)


def parsed_stream(source: DataFrame, config: MonitorConfig) -> DataFrame:
    """The query's rows: every record of every topic, decoded and parsed as a broker-log
    record, narrowed to what the batch needs (the source columns, the outcome, the event
    fields). Built once when the query starts, so a batch does not rebuild the parser's large
    plan; records of the other topics come out as unparseable and are told apart by
    ``source_topic`` (their cost is negligible: a few per second)."""
    from kafka_health.parsing.deadletter import DEAD_LETTER_COLUMNS
    from kafka_health.parsing.envelope import decode_records
    from kafka_health.parsing.events import parse_entries

    parsed = parse_entries(decode_records(source, config.parsing), config.parsing)
    wanted = dict.fromkeys(
        (*[c for c in DEAD_LETTER_COLUMNS if c != "value_bytes"], "outcome", "reason", "kind",
         "n_lines", *EVENT_COLUMNS)
    )  # fmt: skip
    return parsed.select(*wanted)


def split_batch(batch: DataFrame, config: MonitorConfig) -> tuple[DataFrame, DataFrame]:
    """(records of the monitor's other topics as ``topic``/``value``/``offset``, parsed
    broker-log rows) of one batch of :func:`parsed_stream`."""
    from pyspark.sql import functions as F

    is_log = F.col("source_topic") == config.topics.broker_logs
    raw = batch.where(~is_log).select(
        F.col("source_topic").alias("topic"),
        F.col("source_value").alias("value"),
        F.col("source_offset").alias("offset"),
    )
    return raw, batch.where(is_log)


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


def driver_rows(raw: DataFrame, parsed: DataFrame, config: MonitorConfig) -> DataFrame:
    """``(kind, json)`` rows for the driver (see the module docstring)."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.deadletter import is_dead_letter

    topics = config.topics
    value = F.col("value").cast("string")

    results = raw.where(F.col("topic") == topics.canary_results).select(
        F.from_json(value, RESULT_DDL).alias("r")
    )
    outcomes = _tagged(
        "outcome",
        results.where(
            (F.col("r.schema") == RESULT_SCHEMA_ID)
            & F.col("r.partition").isNotNull() & F.col("r.seq").isNotNull()
            & F.col("r.send_ms").isNotNull()
        ),
        *[f"r.{c}" for c in ("canary_id", "partition", "seq", "acks", "send_ms", "done_ms",
                             "outcome", "latency_s", "leader", "error", "log_append_ms")],
    )  # fmt: skip
    states = raw.where(F.col("topic") == topics.cluster_state).select(
        F.from_json(value, CLUSTER_STATE_DDL).alias("s")
    )
    cluster = _tagged(
        "cluster",
        states.where(
            (F.col("s.schema") == CLUSTER_STATE_SCHEMA_ID)
            & F.col("s.kind").isin("partition", "snapshot", "broker")
        ),
        *[f"s.{c}" for c in ("kind", "snapshot_ms", "topic", "partition", "leader",
                             "leader_epoch", "replicas", "isr", "min_isr", "broker_id", "live")],
    )  # fmt: skip
    events = _tagged(
        "event",
        parsed.where((F.col("outcome") == "event") & F.col("type").isin(*DETECTED_TYPES)),
        *EVENT_COLUMNS,
    )
    tally = _tagged(
        "tally",
        parsed.groupBy("outcome", "reason", "type", "broker_id", "kind").agg(
            F.count(F.lit(1)).alias("entries"),
            F.sum(F.col("n_lines")).alias("lines"),
            F.sum(F.when(is_dead_letter(config.parsing.dead_letter), 1).otherwise(0)).alias(
                "dead_letters"
            ),
        ),
        "outcome", "reason", "type", "broker_id", "kind", "entries", "lines", "dead_letters",
    )  # fmt: skip
    return outcomes.unionByName(cluster).unionByName(events).unionByName(tally)


def decode_rows(rows: Iterable[Any]) -> Decoded:
    """The collected ``(kind, json)`` rows as detector inputs and parse counts."""
    out = Decoded()
    b = out.batch
    streams: dict[tuple[str, str], int] = {}
    counts: dict[tuple[str | None, str | None, str | None], list[int]] = {}
    for row in rows:
        kind, d = row[0], json.loads(row[1])
        if kind == "outcome":
            b.outcomes.append(
                Outcome(
                    d.get("canary_id") or "", int(d["partition"]), int(d["seq"]),
                    d.get("acks") or "all", int(d["send_ms"]), d.get("done_ms"),
                    d.get("outcome") == "ok", d.get("latency_s"), d.get("leader"),
                    d.get("error"), d.get("log_append_ms"),
                )
            )  # fmt: skip
        elif kind == "probe":
            b.probes.append(
                ProbeSeen(d.get("canary_id") or "", int(d["partition"]), int(d["seq"]),
                          d.get("acks") or "all", int(d["send_ms"]), int(d["offset"]))
            )  # fmt: skip
        elif kind == "cluster":
            b.cluster.append(
                ClusterRecord(
                    d["kind"], int(d.get("snapshot_ms") or 0), d.get("topic"),
                    d.get("partition"), d.get("leader"), d.get("leader_epoch"),
                    tuple(d.get("replicas") or ()), tuple(d.get("isr") or ()), d.get("min_isr"),
                    d.get("broker_id"), d.get("live"),
                )
            )  # fmt: skip
        elif kind == "event":
            isr = d.get("isr_after")
            b.events.append(
                LogEvent(
                    d["type"], d.get("broker_id"), d.get("event_ms"), d.get("topic"),
                    d.get("partition"), d.get("leader"), d.get("leader_epoch"),
                    None if isr is None else tuple(isr), d.get("pause_s"),
                    d.get("subject_broker_id"), d.get("session_timeout_ms"),
                )
            )  # fmt: skip
        elif kind == "tally":
            entries = int(d.get("entries") or 0)
            broker, log_kind = d.get("broker_id"), d.get("kind")
            if broker is not None and log_kind is not None:
                streams[(broker, log_kind)] = streams.get((broker, log_kind), 0) + entries
            key = (d.get("outcome"), d.get("reason"), d.get("type"))
            total = counts.setdefault(key, [0, 0, 0])
            total[0] += entries
            total[1] += int(d.get("lines") or 0)
            total[2] += int(d.get("dead_letters") or 0)
    b.streams.extend(LogStream(broker, kind, n) for (broker, kind), n in streams.items())
    out.counts.extend(ParseCount(*key, *totals) for key, totals in counts.items())
    return out
