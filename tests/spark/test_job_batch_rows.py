"""What one batch's tally hands the driver (``batch.driver_rows``, the JVM's ``BatchTally``,
then ``decode_rows``): every case of the parser's table, plus plain lines, bad records and the
project's own records, gives the same counts, log streams, events and dead letters as the
parse's own rows (``parse_records`` over the records) say."""

from __future__ import annotations

import datetime
import json
from collections import Counter
from typing import Any

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.dev.parsing_cases import ALL_CASES
from kafka_health.job.batch import (
    DETECTED_TYPES,
    EVENT_COLUMNS,
    decode_rows,
    driver_rows,
    parsed_logs,
)
from kafka_health.parsing.deadletter import dead_letters, is_dead_letter
from kafka_health.parsing.udf import parse_records
from tests.support.job_support import KAFKA_COLUMNS

pytestmark = pytest.mark.spark

WRITTEN = datetime.datetime(2026, 11, 24, 10, 0, 5)
PLAIN = (
    "[2026-11-24 10:00:00,123] INFO [ReplicaManager broker=3] Created log for partition "
    "orders-{n} in /var/kafka (kafka.log.LogManager)"
)


def records(config: MonitorConfig) -> list[tuple[Any, ...]]:
    """Every table case in the shipper's envelope (broker 1, or none: the line names it),
    200 plain lines of broker 3 with no broker in the envelope, bad records, a canary outcome
    and a cluster-state record."""
    logs = config.topics.broker_logs
    values: list[tuple[str, bytes]] = []
    for i, case in enumerate(ALL_CASES):
        kind = {"gc": "gc", "kafka": "server"}.get(case.kind, "server")
        envelope: dict[str, Any] = {"kind": kind, "message": case.text}
        if i % 2 == 0:
            envelope["broker_id"] = "1"
        values.append((logs, json.dumps(envelope).encode()))
    for n in range(200):
        values.append((logs, json.dumps({"kind": "server", "message": PLAIN.format(n=n)}).encode()))
    values += [(logs, b""), (logs, b"\xff\xfe\x00 binary"), (logs, b'{"message": 1')]
    values.append((config.topics.canary_results, b'{"schema": "x", "partition": 0}'))
    values.append((config.topics.cluster_state, b'{"kind": "partition"}'))
    return [
        (None, value, topic, 0, offset, WRITTEN, 0) for offset, (topic, value) in enumerate(values)
    ]


@pytest.fixture(scope="module")
def frame(spark: Any) -> Any:
    config = MonitorConfig()
    return spark.createDataFrame(records(config), KAFKA_COLUMNS)


def whole_parse(frame: Any, config: MonitorConfig) -> list[dict[str, Any]]:
    """Every broker-log record decoded and parsed, each a row."""
    from pyspark.sql import functions as F

    logs = frame.where(F.col("topic") == config.topics.broker_logs)
    parsed = parse_records(logs, config.parsing, keep_message=False)
    dead = is_dead_letter(config.parsing.dead_letter)
    return [r.asDict() for r in parsed.withColumn("dead", dead).collect()]


def test_counts_and_events_match_the_whole_parse(spark: Any, frame: Any) -> None:
    config = MonitorConfig()
    decoded = decode_rows(driver_rows(frame, config))
    whole = whole_parse(frame, config)

    want_counts = Counter((r["outcome"], r["reason"], r["type"]) for r in whole)
    got_counts = Counter({(c.outcome, c.reason, c.type): c.entries for c in decoded.counts})
    assert got_counts == want_counts
    assert decoded.dead_letters == sum(1 for r in whole if r["dead"])
    assert decoded.dead_letters > 0

    want_streams = Counter((r["broker_id"], r["kind"]) for r in whole if r["broker_id"])
    got_streams = Counter({(s.broker_id, s.kind): s.records for s in decoded.batch.streams})
    assert got_streams == want_streams
    assert got_streams[("3", "server")] >= 200  # named by the line, not the envelope

    def event_key(e: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(tuple(e[c]) if isinstance(e[c], list) else e[c] for c in EVENT_COLUMNS)

    want_events = Counter(
        event_key(r) for r in whole if r["outcome"] == "event" and r["type"] in DETECTED_TYPES
    )
    got_events = Counter(
        (e.type, e.broker_id, e.event_ms, e.topic, e.partition, e.leader, e.leader_epoch,
         e.isr_after, e.pause_s, e.subject_broker_id, e.session_timeout_ms, e.log_dir)
        for e in decoded.batch.events
    )  # fmt: skip
    assert sum(want_events.values()) > 10
    assert got_events == want_events
    assert len(decoded.rejected) == 2  # the two own records that are not well-formed


def test_dead_letters_keep_their_source_coordinates(spark: Any, frame: Any) -> None:
    config = MonitorConfig()

    letters = dead_letters(parsed_logs(frame, config), config.parsing.dead_letter).collect()
    whole = [r for r in whole_parse(frame, config) if r["dead"]]
    assert sorted((r["source_offset"], r["reason"]) for r in letters) == sorted(
        (r["source_offset"], r["reason"]) for r in whole
    )
    assert letters and all(r["source_timestamp"] == WRITTEN for r in letters)
    assert {r["source_topic"] for r in letters} == {config.topics.broker_logs}


def test_the_log_records_newest_shipping_time_reaches_the_driver(spark: Any, frame: Any) -> None:
    """What moves the detectors' log clock (``logwindow.LOG_CLOCK``): the newest Kafka
    timestamp of the broker-log records, not of the project's own records."""
    from pyspark.sql import functions as F

    config = MonitorConfig()
    is_log = F.col("topic") == config.topics.broker_logs
    shifted = frame.withColumn(
        "timestamp",
        F.when(F.col("offset") == 7, F.col("timestamp") + F.expr("INTERVAL 2 SECONDS"))
        .when(~is_log, F.col("timestamp") + F.expr("INTERVAL 1 HOUR"))
        .otherwise(F.col("timestamp")),
    )
    decoded = decode_rows(driver_rows(shifted, config))
    written = shifted.where(is_log & (F.col("offset") == 0)).select(F.unix_millis("timestamp"))
    assert decoded.batch.log_shipped_ms == written.first()[0] + 2000
