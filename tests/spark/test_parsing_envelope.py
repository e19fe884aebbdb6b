"""Kafka records -> entries -> events: shippers' envelopes, raw lines, bad input, dead letters."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kafka_health.config import DeadLetterConfig, EnvelopeFieldsConfig, ParsingConfig
from kafka_health.parsing.deadletter import dead_letter_records, dead_letters
from kafka_health.parsing.envelope import BINARY, BINARY_CHARACTERS
from kafka_health.parsing.udf import parse_records

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).parents[1] / "fixtures" / "logs"
SCHEMA = "key binary, value binary, topic string, partition int, offset long, timestamp timestamp"
SHRINK = (
    "[2022-03-12 18:10:07,139] INFO [Partition t-1 broker=3] Shrinking ISR from 3,1 to 3 "
    "(kafka.cluster.Partition)"
)


def records(spark: Any, values: Sequence[tuple[bytes | None, bytes | None]]) -> Any:
    at = datetime(2026, 11, 22, 10, 0, 0)
    rows = [(k, v, "logs", 0, i, at) for i, (k, v) in enumerate(values)]
    return spark.createDataFrame(rows, SCHEMA)


ENVELOPES = [json.loads(line) for line in (FIXTURES / "envelopes.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def envelope_rows(spark: Any) -> dict[int, dict[str, Any]]:
    values = [
        (None if e["key"] is None else e["key"].encode(), e["value"].encode()) for e in ENVELOPES
    ]
    parsed = parse_records(records(spark, values)).collect()
    return {r["source_offset"]: r.asDict() for r in parsed}


@pytest.mark.parametrize("index", range(len(ENVELOPES)), ids=[e["name"] for e in ENVELOPES])
def test_envelope(envelope_rows: dict[int, dict[str, Any]], index: int) -> None:
    """Each shipper's record gives the entry's broker, host, file, kind and the event."""
    row = envelope_rows[index]
    for name, want in ENVELOPES[index]["expect"].items():
        assert row[name] == want, name


def test_configured_paths(spark: Any) -> None:
    """Where a shipper keeps the broker id is configurable."""
    value = json.dumps({"line": SHRINK, "labels": {"node": "9"}}).encode()
    config = ParsingConfig(fields=EnvelopeFieldsConfig(message=["line"], broker_id=["labels.node"]))
    row = parse_records(records(spark, [(None, value)]), config).first()
    assert row is not None
    assert (row["type"], row["broker_id"]) == ("isr_shrink", "9")


def test_message_text_and_structured_values(spark: Any) -> None:
    """A log line that opens with "[" (every Kafka line does) is the message, even when it
    also ends with "]"; an object or array is not a message; of a repeated key, the last."""
    line = "[2026-11-22 10:00:00,000] INFO done [a]"
    values = [
        json.dumps({"message": line}),
        json.dumps({"message": ["a", "b"]}),
        json.dumps({"message": {"x": 1}}),
        '{"message": "first", "message": ' + json.dumps(line) + "}",
    ]
    rows = parse_records(records(spark, [(None, v.encode()) for v in values])).collect()
    got = {r["source_offset"]: (r["message"], r["bad_reason"]) for r in rows}
    assert got == {
        0: (line, None),
        1: (None, "no_message"),
        2: (None, "no_message"),
        3: (line, None),
    }


def test_a_path_gives_its_first_non_empty_scalar_nested_or_not(spark: Any) -> None:
    """Of the paths in order, the first that holds a non-empty scalar: an empty string, an
    object or an array (top level or nested) gives way to the next path; a string is a scalar
    even when it is bracketed JSON text padded with spaces (only an object or array is not)."""
    line = "[2026-11-22 10:00:00,000] INFO done [a]"
    values = [
        {"message": "", "log": line, "path": ""},
        {"message": line, "path": {"a": 1}, "log": {"file": {"path": "/var/log/kafka/server.log"}}},
        {"message": line, "path": ["x"], "log": {"file": {"path": []}}, "file": "/k/gc.log"},
        {"message": line, "path": " [1] "},
    ]
    frame = records(spark, [(None, json.dumps(v).encode()) for v in values])
    rows = parse_records(frame).orderBy("source_offset").collect()
    got = [(r["message"], r["file"]) for r in rows]
    assert got == [
        (line, None),
        (line, "/var/log/kafka/server.log"),
        (line, "/k/gc.log"),
        (line, " [1] "),
    ]


BAD = [
    ("empty", b"", "empty"),
    ("null value", None, "empty"),
    ("latin-1 bytes", "[2022-03-12 18:10:07,139] INFO café".encode("latin-1"), "not_utf8"),
    ("binary", bytes(range(256)) * 4, "not_utf8"),
    ("nul bytes", b"\x00\x01\x02abc", "binary"),
    ("10 MB line", b"x" * 10_485_760, "oversize"),
    ("broken json", b'{"message": "unterminated', "bad_json"),
    ("json without message", b'{"host": "kafka-1"}', "no_message"),
    ("unknown text", b"hello world, not a log line", "unknown_format"),
]


def test_bad_input_is_counted_and_dead_lettered(spark: Any) -> None:
    """Bad records never stop the parser: each is unrecognised with its reason and offset."""
    frame = records(spark, [(b"1", value) for _, value, _ in BAD] + [(b"1", SHRINK.encode())])
    parsed = parse_records(frame).cache()
    rows = {r["source_offset"]: r for r in parsed.collect()}
    for offset, (name, _, reason) in enumerate(BAD):
        assert (rows[offset]["outcome"], rows[offset]["reason"]) == ("unrecognised", reason), name
    assert rows[len(BAD)]["type"] == "isr_shrink"
    letters = dead_letters(parsed, DeadLetterConfig(max_value_bytes=1024)).collect()
    assert sorted(r["source_offset"] for r in letters) == list(range(len(BAD)))
    big = next(r for r in letters if r["reason"] == "oversize")
    assert (big["value_bytes"], len(big["source_value"])) == (10_485_760, 1024)
    assert all(r["source_topic"] == "logs" and r["source_partition"] == 0 for r in letters)
    kafka_rows = dead_letter_records(dead_letters(parsed)).collect()
    assert json.loads(kafka_rows[0]["value"])["reason"] == "empty"
    parsed.unpersist()


def test_the_binary_regex_matches_exactly_the_control_characters_it_names(spark: Any) -> None:
    """Java's regex, over every character of the Basic Multilingual Plane (surrogates aside):
    ``BINARY`` matches those of ``BINARY_CHARACTERS`` and no other."""
    from pyspark.sql import functions as F

    points = [p for p in range(0x10000) if not 0xD800 <= p <= 0xDFFF]
    frame = spark.createDataFrame([(p, chr(p)) for p in points], "point int, text string")
    matched = {r["point"] for r in frame.where(F.col("text").rlike(BINARY)).collect()}
    assert matched == {ord(c) for c in BINARY_CHARACTERS}
    assert {0x00, 0x08, 0x0B, 0x0C, 0x0E, 0x1A, 0x1C, 0x1F, 0x7F} <= matched
    assert not matched & {0x09, 0x0A, 0x0D, 0x1B, 0x20, 0x80, 0x85, 0xA0}


def test_the_decode_finds_a_binary_character_at_any_place_in_a_record(spark: Any) -> None:
    """The check by bytes (``ByteClass``, eight bytes at a time and the rest one by one) finds
    each ASCII character of ``BINARY_CHARACTERS``, and no other, at every place of a record,
    beside non-ASCII text and past the Basic Multilingual Plane (where the regex decides)."""
    values, want = [], []
    for tail in ("", "\u00e9", "\U0001f600"):
        for point in range(128):
            for at in range(18):
                text = "x" * at + chr(point) + "y" * (17 - at) + tail
                values.append((None, text.encode()))
                want.append(chr(point) in BINARY_CHARACTERS)
    rows = parse_records(records(spark, values)).select("source_offset", "bad_reason").collect()
    got = {r["source_offset"]: r["bad_reason"] == "binary" for r in rows}
    assert [got[i] for i in range(len(values))] == want


def test_malformed_is_dead_lettered_unless_configured(spark: Any) -> None:
    """A truncated event line is malformed, and set aside with its offset."""
    truncated = b"[2022-03-12 18:10:07,139] INFO [Partition x-1 broker=3] Shrinking ISR from 3,1 to"
    parsed = parse_records(records(spark, [(b"3", truncated)]))
    first = parsed.first()
    assert first is not None
    assert first["outcome"] == "malformed"
    assert dead_letters(parsed).count() == 1
    assert dead_letters(parsed, DeadLetterConfig(include_malformed=False)).count() == 0


def test_the_jobs_parse_keeps_the_raw_value_of_every_dead_letter_and_no_ordinary_line(
    spark: Any,
) -> None:
    """values_for_dead_letters_only (the streaming job): the same dead letters, values and
    file names and all; an ordinary line (one no trigger matched) no longer carries its raw
    record or its file name, nor does an event (a line a pattern matched, never a dead
    letter) past the match."""
    ordinary = (
        b"[2022-03-12 18:10:07,139] INFO Rolled new log segment at offset 5 (kafka.log.LocalLog)"
    )
    truncated = b"[2022-03-12 18:10:07,139] INFO [Partition x-1 broker=3] Shrinking ISR from 3,1 to"

    def shipped(line: bytes) -> bytes:
        return json.dumps({"broker_id": "1", "path": "/var/log/kafka/server.log",
                           "message": line.decode()}).encode()  # fmt: skip

    values = [v for _, v, _ in BAD] + [shipped(ordinary), shipped(truncated), SHRINK.encode()]
    frame = records(spark, [(b"1", v) for v in values])

    def letters(parsed: Any) -> list[tuple[Any, ...]]:
        rows = dead_letters(parsed).collect()
        return sorted((r["source_offset"], r["reason"], r["source_value"], r["file"]) for r in rows)

    slim = parse_records(frame, keep_message=False,
                         values_for_dead_letters_only=True)  # fmt: skip
    assert letters(slim) == letters(parse_records(frame))
    assert len(letters(slim)) == len(BAD) + 1
    assert letters(slim)[-1][3] == "/var/log/kafka/server.log"  # the truncated line's
    kept = {r["source_offset"]: (r["source_value"], r["file"]) for r in slim.collect()}
    assert kept[len(BAD)] == (None, None)
    assert kept[len(BAD) + 2] == (None, None)  # the event's
    assert [r["type"] for r in slim.collect() if r["outcome"] == "event"] == ["isr_shrink"]


def test_unjoined_continuation_records_are_not_events(spark: Any) -> None:
    """A shipper that sends one line per record: frames and exception lines add no event."""
    lines = [
        "[2017-10-12 16:52:38,141] ERROR Processor got uncaught exception. (kafka.network.Processor)",  # noqa: E501 (a real line, kept whole)
        "java.lang.ArrayIndexOutOfBoundsException: 18",
        "        at org.apache.kafka.common.protocol.ApiKeys.forId(ApiKeys.java:68)",
        "org.apache.kafka.common.errors.NotLeaderForPartitionException: This server is not the "
        "leader for that topic-partition.",
    ]  # fmt: skip
    parsed = parse_records(records(spark, [(b"1", x.encode()) for x in lines]))
    got = [
        (r["outcome"], r["type"] or r["reason"]) for r in parsed.orderBy("source_offset").collect()
    ]
    assert got == [
        ("event", "processor_uncaught_exception"),
        ("unrecognised", "continuation"),
        ("unrecognised", "continuation"),
        ("unrecognised", "continuation"),
    ]


def test_broker_ids_are_kafkas_node_ids_and_kinds_the_shippers(spark: Any) -> None:
    """A broker id from the key or the envelope is an int32 of at least 0 written as Kafka
    writes it, else the record is rejected (bad_broker_id, a dead letter: no stream, no group
    of its own); a kind the shipper does not know is the file's, else ``other``; a line's own
    broker beyond int32 is none."""
    line = "[2022-03-12 18:10:07,139] INFO [Partition t-1 broker=3] Shrinking ISR from 3,1 to 3 (kafka.cluster.Partition)"  # noqa: E501
    huge = line.replace("broker=3", "broker=99999999999")

    def env(broker: Any, kind: str | None = None, path: str | None = None) -> bytes:
        doc: dict[str, Any] = {"message": line, "broker_id": broker}
        if kind is not None:
            doc["kind"] = kind
        if path is not None:
            doc["path"] = path
        return json.dumps(doc).encode()

    cases: list[tuple[bytes | None, bytes, str | None, str | None]] = [
        (b"1", line.encode(), "1", None),
        (b" 2147483647 ", line.encode(), "2147483647", None),
        (b"2147483648", line.encode(), None, "bad_broker_id"),
        (b"-1", line.encode(), None, None),  # record_key auto: not digits, a host name
        (b"007", line.encode(), None, "bad_broker_id"),
        (b"kafka-1", line.encode(), None, None),  # auto: a host name, not an id
        (None, env(5), "5", None),
        (None, env("1.0"), None, "bad_broker_id"),
        (None, env("+4"), None, "bad_broker_id"),
        (None, env("9" * 5000), None, "bad_broker_id"),
        (None, env("<!channel>"), None, "bad_broker_id"),
        (None, env(""), None, None),
        (None, env(None), None, None),
    ]
    rows = parse_records(records(spark, [(k, v) for k, v, _, _ in cases])).collect()
    got = {r["source_offset"]: (r["broker_id"], r["bad_reason"]) for r in rows}
    # The event's broker: the record's, else the one its line names (broker=3).
    assert got == {i: (want or "3", bad) for i, (_, _, want, bad) in enumerate(cases)}
    parsed = parse_records(records(spark, [(b"2147483648", line.encode())]))
    row = parsed.first()
    assert row is not None
    assert (row["outcome"], row["reason"], row["type"]) == ("unrecognised", "bad_broker_id", None)
    letters = dead_letters(parsed).collect()
    assert [(r["reason"], r["source_value"]) for r in letters] == [("bad_broker_id", line.encode())]

    kinds = [
        (env(1, "Server"), "server"), (env(1, "gc"), "gc"), (env(1, "other"), "other"),
        (env(1, "x" * 1000), "other"), (env(1, "weird", "/var/log/kafka/controller.log"),
        "controller"), (env(1, None, "/var/log/kafka/state-change.log"), "state-change"),
        (env(1), None),
    ]  # fmt: skip
    rows = parse_records(records(spark, [(None, v) for v, _ in kinds])).collect()
    assert {r["source_offset"]: r["kind"] for r in rows} == {i: k for i, (_, k) in enumerate(kinds)}

    events = parse_records(records(spark, [(None, huge.encode())])).collect()
    assert [(e["type"], e["broker_id"]) for e in events] == [("isr_shrink", None)]
