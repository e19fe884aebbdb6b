"""Kafka records for comparing parsers row for row: every fixture corpus as the broker-log
topic would carry it (raw lines and entries, each shipper's envelope, the hostile generator's
lines, the poison records), each with its own offset.

Both equivalence tests run at CI size by default: every parser case (every pattern's
wordings) raw and in envelopes, every poison record, every fixture log line (in the arrow
test's corpus raw and in one envelope shape, a different one line after line) and 2,000 hostile
lines; :func:`uncovered` fails them if a kind of input goes missing. Full size (every fixture
line in every shape, 20,000 hostile lines): ``KAFKA_HEALTH_PARSE_FULL=1``, or both tests'
corpora at once by ``benchmarks/parse_ab.py --check-full``. ``KAFKA_HEALTH_HOSTILE_LINES`` sets
the hostile lines either way (200,000: the whole file)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path

from kafka_health.dev.parsing_cases import ALL_CASES, case_lines
from kafka_health.parsing.hostile import hostile_lines, huge_lines

FIXTURES = Path(__file__).parents[1] / "fixtures"
SCHEMA = "key binary, value binary, topic string, partition int, offset long, timestamp timestamp"
Record = tuple[bytes | None, bytes | None]

FULL = os.environ.get("KAFKA_HEALTH_PARSE_FULL", "") not in ("", "0")
"""The equivalence tests' corpora at full size (``KAFKA_HEALTH_PARSE_FULL=1``)."""
HOSTILE_FULL, HOSTILE_CI = 20_000, 2_000
ENVELOPES = frozenset(
    {"kafka-health", "log4j-json", "filebeat", "vector", "rsyslog", "fluent-bit", "json", "raw"}
)
"""Every shape the decode names (``parsing.envelope.envelope_name``, and ``raw``)."""


def hostile_count(full: bool = FULL) -> int:
    """The hostile generator's lines the tests compare: ``KAFKA_HEALTH_HOSTILE_LINES`` when
    set, else 20,000 at full size and 2,000 at CI size."""
    given = os.environ.get("KAFKA_HEALTH_HOSTILE_LINES")
    return int(given) if given else HOSTILE_FULL if full else HOSTILE_CI


def uncovered(rows: Iterable[Mapping[str, object]]) -> list[str]:
    """Kinds of input none of ``rows`` (parsed with ``kafka-health parse``'s options, so
    ``envelope`` is kept) shows: an envelope shape of :data:`ENVELOPES`, an event type of
    some pattern (``patterns.ALL_PATTERNS``, so both families), an outcome, or a bad-input
    reason (``events.BAD_INPUT_REASONS``). Guards the CI-size corpora from losing a kind of
    input."""
    from kafka_health.parsing.events import BAD_INPUT_REASONS
    from kafka_health.parsing.patterns import ALL_PATTERNS

    seen: dict[str, set[object]] = {
        "envelope": set(),
        "type": set(),
        "outcome": set(),
        "bad_reason": set(),
    }
    for row in rows:
        for column, values in seen.items():
            values.add(row[column])
    missing = [f"envelope {e}" for e in sorted(ENVELOPES - seen["envelope"])]
    missing += [f"event {t}" for t in sorted({p.event for p in ALL_PATTERNS} - seen["type"])]
    missing += [
        f"outcome {o}" for o in sorted({"event", "malformed", "unrecognised"} - seen["outcome"])
    ]
    missing += [f"bad input {r}" for r in sorted(set(BAD_INPUT_REASONS) - seen["bad_reason"])]
    return missing


def nested_json(depth: int) -> bytes:
    return b'{"message": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}"


def envelope_records() -> Iterator[Record]:
    """The envelope fixtures (``envelopes*.jsonl``) and the shippers' samples."""
    for name in ("envelopes.jsonl", "envelopes-filebeat6.jsonl"):
        for line in (FIXTURES / "logs" / name).read_text().splitlines():
            e = json.loads(line)
            key = e.get("key")
            value = e["value"] if isinstance(e["value"], str) else json.dumps(e["value"])
            yield (None if key is None else key.encode()), value.encode()
    for path in sorted((FIXTURES / "shipper_formats").glob("*.json")):
        text = path.read_text()
        for line in [text, *text.splitlines()]:
            if line.strip():
                yield None, line.encode()


def _wrapped(text: str, i: int) -> Iterator[Record]:
    """``text`` as each envelope shape carries it."""
    yield b"1", text.encode()
    yield (
        None,
        json.dumps(
            {
                "schema": "kafka-health/log/v1",
                "broker_id": str(i % 7),
                "kind": ["server", "gc", "controller", "weird"][i % 4],
                "path": "/var/log/kafka/server.log",
                "message": text,
            }
        ).encode(),
    )
    yield (
        None,
        json.dumps(
            {
                "@metadata": {"beat": "filebeat"},
                "host": {"name": f"h{i}"},
                "log": {"file": {"path": "/logs/kafkaServer-gc.log.0"}},
                "fields": {"broker_id": i % 3},
                "message": text,
            }
        ).encode(),
    )
    yield f"kafka-{i}".encode(), json.dumps({"log": text, "path": "controller.log.1"}).encode()
    yield (
        b"2",
        json.dumps(
            {
                "beat": {"hostname": "old", "name": "x"},
                "source": "/a/gc.log",
                "message": text,
                "offset": 1.5e7,
            }
        ).encode(),
    )


def fixture_log_records(every_envelope: bool = FULL) -> Iterator[Record]:
    """Every line of the log fixtures (``tests/fixtures/logs/**``, held-out ones too), raw
    and in each envelope shape (``every_envelope``) or in one, a different one line after
    line; and every case of the parser's table as one entry, raw and in every envelope."""
    files = sorted(p for p in (FIXTURES / "logs").rglob("*.log"))
    i = 0
    for path in files:
        for line in path.read_text(errors="replace").splitlines():
            shapes = list(_wrapped(line, i))
            yield from shapes if every_envelope else (shapes[0], shapes[1 + i % 4])
            i += 1
    for case in ALL_CASES:
        yield from _wrapped(case.text, i)
        i += 1


def poison_records() -> Iterator[Record]:
    """The poison records of the job's tests, and keys and values at the decode's edges."""
    for line in huge_lines():
        yield b"1", line
    yield b"1", b"[2019-05-15 22:20:14,399] INFO \xc3\x28\xff Shrinking ISR"
    yield b"1", nested_json(10_000)
    yield b"1", nested_json(999)
    yield b"1", b"x" * (2 * 1_048_576)
    yield b"1", b""
    yield None, None
    yield b"1", b"[2019-05-15 22:20:14,399] INFO a\x01b"
    yield b"1", b'{"message": "x", "level": "INFO", "loggerName": "k", "timeMillis": 1e3}'
    yield (
        b"1",
        b'{"message": "x", "level": "INFO", "loggerName": "k", "timeMillis": 99999999999999}',
    )
    yield b"1", b'{"message": "m", "level": "WARN", "logger": "l", "@timestamp": "1557930014399"}'
    yield b"1", b'{"message":"Shrinking ISR from 1,2 to 1","thrown":{"name":"E","message":"m"}}'
    yield (
        b"1",
        b'{"instant":{"epochSecond":1557930014,"nanoOfSecond":399000000},"level":"info",'
        b'"loggerName":"kafka.cluster.Partition","message":"[Partition t-0 broker=1] Shrinking ISR'
        b' from 1,2 to 1","thrown":{"name":"java.io.IOException","message":"disk"}}',
    )
    yield b"1", b'{"message":"m","level":"INFO","loggerName":"k","timeMillis":9223372036854775807}'
    yield b"1", b'{"message":"m","level":"INFO","loggerName":"k","instant":{"epochSecond":9e18}}'
    yield (
        b"1",
        (
            b'{"message":"m","level":"INFO","loggerName":"k","instant":{"epochSecond":9223372036854775}}'
        ),
    )
    for key in (b"2147483648", b" 7 ", b"007", b"-1", b"\xff\xfe", b"abc", b"", b"12\n"):
        yield key, b"[2019-05-15 22:20:14,399] INFO Shrinking ISR from 3,1 to 3"
    for value in (
        '{"message": ["a"]}',
        '{"message": {"x": 1}}',
        '{"message": "[x]"}',
        '{"message": "{\\"a\\": 1}"}',
        "{'message': 'single'}",
        '{"message": "a", "message": "b"}',
        '{"broker_id": "1.0", "message": "m"}',
        '{"broker_id": 1.0, "message": "m"}',
        '{"broker_id": 2, "message": "m"}',
        '{"message": "\\u00e9\\ud83d\\ude00 INFO x"}',
        '{"log": {"file": "x"}}',
        '   {"message": "spaced"}',
        '{"message": "m"} trailing',
        '{"message": 01}',
        '{"message": "m", "host": "{\\"name\\": \\"inner\\"}"}',
    ):
        yield b"3", value.encode()


def hostile_records(lines: int, seed: int = 13) -> Iterator[Record]:
    """The hostile generator's lines, as raw records with a broker key and without."""
    for i, line in enumerate(hostile_lines(case_lines(), lines, seed)):
        yield (b"1" if i % 2 else None), line


def corpora(full: bool = FULL) -> dict[str, list[Record]]:
    """The corpora of ``test_parse_arrow_equivalence.py``, by name, at CI size or ``full``."""
    return {
        "envelopes": list(envelope_records()),
        "fixture-logs": list(fixture_log_records(every_envelope=full)),
        "poison": list(poison_records()),
        "hostile": list(hostile_records(hostile_count(full))),
    }


def as_rows(records: list[Record], topic: str = "logs", start: int = 0) -> list[tuple[object, ...]]:
    """Spark rows (:data:`SCHEMA`), each record its own offset (from ``start``)."""
    at = datetime(2026, 11, 22, 10, 0, 0)
    return [(k, v, topic, 0, start + i, at) for i, (k, v) in enumerate(records)]
