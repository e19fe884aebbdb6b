"""The parse (the Java UDF, ``parsing.udf.parse_records``) against the Python reference
(``parsing.reference.classify``, the tests' oracle), row for row: each decoded entry's outcome
and event type as the reference reads the same text, over the fixture logs (held-out ones
included) as raw lines, as joined entries and inside each shipper's envelope, the envelope
fixtures, the parser's case table, the hostile lines, the poison records, and records built to
reach the corners of the decode (broken and partial JSON, repeated keys, JSON layouts, odd
keys). The rows of the decode and the fields: ``test_parsing_envelope*.py``,
``test_parsing_events.py``. CI size by default (2,000 hostile lines:
``tests/support/parse_corpora.py``); more with ``KAFKA_HEALTH_PARSE_FULL=1`` or
``KAFKA_HEALTH_HOSTILE_LINES``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kafka_health.parsing.config import EnvelopeFieldsConfig, ParsingConfig
from kafka_health.parsing.events import Kind
from tests.support.parse_corpora import hostile_count, uncovered

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).parents[1] / "fixtures"
SCHEMA = (
    "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
    "timestampType int"
)
HOSTILE_LINES = hostile_count()
Record = tuple[bytes | None, bytes | None]


def log_files() -> list[Path]:
    """Every fixture log: tests/fixtures/logs/** (held-out ones too) and the replay seeds."""
    found = [*(FIXTURES / "logs").rglob("*.log"), *(FIXTURES / "replay").rglob("*.log")]
    return sorted(found)


def entries_of(text: str) -> list[str]:
    """``text``'s lines joined into entries where a line starts none (reference.ENTRY_START)."""
    from kafka_health.parsing.reference import ENTRY_START

    entries: list[str] = []
    for line in text.split("\n"):
        if entries and not ENTRY_START.search(line):
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    return entries


def enveloped(entry: str, path: str, n: int) -> Iterator[Record]:
    """``entry`` as each supported shipper sends it."""
    kind = "gc" if "gc" in Path(path).name else "server"
    docs: list[dict[str, Any]] = [
        {"schema": "kafka-health/log/v1", "broker_id": str(n % 5), "host": "kafka-1",
         "kind": kind, "path": path, "message": entry},
        {"@timestamp": "2026-11-22T10:00:00.123Z", "@metadata": {"beat": "filebeat"},
         "log": {"offset": n, "file": {"path": path}}, "message": entry,
         "host": {"name": "kafka-2"}, "agent": {"type": "filebeat"}, "fields": {"broker_id": 2}},
        {"@timestamp": 1763805600.123, "log": entry, "path": path},
        {"beat": {"hostname": "kafka-6", "name": "x"}, "source": path, "message": entry,
         "offset": n},
        {"message": entry, "source_type": "file", "host": "kafka-4", "file": path},
        {"msg": entry, "hostname": "kafka-5", "filename": path, "programname": "kafka"},
    ]  # fmt: skip
    for doc in docs:
        yield (b"3" if n % 2 else None, json.dumps(doc).encode())


def fixture_records() -> list[Record]:
    records: list[Record] = []
    for path in log_files():
        text = path.read_bytes().decode("utf-8", errors="replace")
        keys = [b"1", None, b" 12 ", b"kafka-7"]
        records += [(keys[i % 4], line.encode()) for i, line in enumerate(text.split("\n"))]
        for n, entry in enumerate(entries_of(text)):
            records.append((b"4", entry.encode()))
            if n % 3 == 0 or "heldout" in str(path):
                records += list(enveloped(entry, str(path.relative_to(FIXTURES)), n))
    for name in ("envelopes.jsonl", "envelopes-filebeat6.jsonl"):
        for line in (FIXTURES / "logs" / name).read_text().splitlines():
            e = json.loads(line)
            key = None if e.get("key") is None else e["key"].encode()
            value = e["value"] if isinstance(e["value"], str) else json.dumps(e["value"])
            records.append((key, value.encode()))
    for path in sorted((FIXTURES / "shipper_formats").glob("*.json")):
        records.append((None, path.read_bytes().strip()))
    return records


def case_records() -> list[Record]:
    """The parser's case table (every supported wording), raw and in the shipper's envelope."""
    from kafka_health.dev.parsing_cases import ALL_CASES

    records: list[Record] = []
    for n, case in enumerate(ALL_CASES):
        records.append((b"1", case.text.encode()))
        kind = {"gc": "gc", "kafka": "server"}.get(case.kind, "other")
        doc = {"schema": "kafka-health/log/v1", "broker_id": "7", "kind": kind,
               "path": f"/logs/{case.id}.log", "message": case.text}  # fmt: skip
        records.append((None if n % 2 else b"2", json.dumps(doc).encode()))
    return records


def hostile_records(lines: int = HOSTILE_LINES) -> list[Record]:
    from kafka_health.dev.parsing_cases import case_lines
    from kafka_health.parsing.hostile import hostile_lines

    return [(b"1", line) for line in hostile_lines(case_lines(), lines, seed=13)]


def poison_records() -> list[Record]:
    """tests/spark/test_job_poison.py's and test_parsing_envelope.py's bad records."""
    from kafka_health.parsing.hostile import huge_lines
    from tests.spark.test_parsing_envelope import BAD
    from tests.spark.test_parsing_hostile import nested_json

    poison = [
        *huge_lines(),
        b"[2019-05-15 22:20:14,399] INFO \xc3\x28\xff Shrinking ISR",
        nested_json(10_000),
        nested_json(999),
        b"x" * (10 * 1_048_576),
        b"x" * (2 * 1_048_576),
        b"[2019-05-15 22:20:14,399] INFO kafka-health-test: fails the parse's Spark task",
    ]
    return [(b"1", v) for v in poison] + [(b"1", v) for _name, v, _reason in BAD]


LINE = "[2026-11-22 10:00:00,000] INFO [Partition t-1 broker=3] Shrinking ISR from 3,1 to 3 (k.P)"


def corner_records() -> list[Record]:
    """Records built for the decode's corners (each is a record value; some keys vary)."""
    m = json.dumps(LINE)
    layout = {"level": "WARN", "loggerName": "kafka.cluster.Partition", "message": LINE[26:]}
    texts = [
        # partial and broken JSON: fields read before the break are kept by from_json
        '{"message": ' + m + ', "host": tru}',
        '{"message": ' + m + ', "host": {"a": [1,}, "kind": "gc"}',
        '{"message": ' + m + ', "x": tru}',
        '{"message": ' + m + ', "fields": {"broker_id": "9"',
        '{"message": ' + m + "} trailing text",
        '{"message": ' + m + "}}",
        '  {"message": ' + m + "}",
        '\t{"message": ' + m + "}",
        '{"message": "first", "message": ' + m + "}",
        '{"message": ' + m + ', "message": null}',
        '{"message": null, "log": ' + m + "}",
        '{"message": "", "msg": ' + m + "}",
        "{'message': " + m + "}",
        '{"message": ' + m + ', "broker_id": NaN}',
        '{"message": ' + m + ', "broker_id": 7}',
        '{"message": ' + m + ', "broker_id": 7.0}',
        '{"message": ' + m + ', "broker_id": " 8 "}',
        '{"message": ' + m + ', "broker_id": "08"}',
        '{"message": ' + m + ', "broker_id": "2147483648"}',
        '{"message": ' + m + ', "broker_id": -1}',
        '{"message": ' + m + ', "broker_id": ""}',
        '{"message": ' + m + ', "fields": {"broker_id": 5, "kind": "Controller"}}',
        '{"message": ' + m + ', "kafka": {"broker_id": "6"}, "kind": "weird"}',
        '{"message": ' + m + ', "fields": {"log_kind": "STATE-CHANGE"}}',
        '{"message": ' + m + ', "fields": {"broker_id": null}, "kafka": {"broker_id": 4}}',
        '{"message": ' + m + ', "log": {"file": {"path": "/k/controller.log.2026-11-22-10"}}}',
        '{"message": ' + m + ', "path": "/k/kafka-logcleaner.log"}',
        '{"message": ' + m + ', "path": "/k/kafkaServer-gc.log.0"}',
        '{"message": ' + m + ', "path": ""}',
        '{"message": ' + m + ', "path": " [1] "}',
        '{"message": ' + m + ', "path": "[1]"}',
        '{"message": ' + m + ', "path": "{}"}',
        '{"message": {"message": "inner"}, "msg": "x"}',
        '{"message": {"message": "inner", "level": "INFO"}}',
        '{"message": [1, 2], "log": "y"}',
        '{"message": {"x": 1}}',
        '{"message": 1e5}',
        '{"message": 12.50}',
        '{"message": true}',
        '{"message": "[x] INFO a\\u0001tp\\u0002b starts at leader epoch 1 (k)"}',
        '{"message": "\\ud800 lone surrogate Shrinking ISR from 1,2 to 1"}',
        '{"message": "\\ud83d\\ude00 Shrinking ISR from 1,2 to 1"}',
        '{"message": ' + m + ', "host": {"name": "\\ud83d\\ude00"}}',
        '{"message": ' + m + ', "beat": {"hostname": "old-beat"}, "source": "/k/server.log"}',
        '{"message": ' + m + ', "beat": "x", "source": "/k/gc.log"}',
        '{"log": ' + m + ', "source_type": "x"}',
        '{"log": ' + m + "}",
        '{"log": ' + m + ', "syslog-tag": "kafka"}',
        '{"host": "kafka-1"}',
        "{}",
        "{",
        "{]",
        '{"a": ' * 1200 + "1" + "}" * 1200,
        '{"message": ' + m + ', "deep": ' + '{"a": ' * 1200 + "1" + "}" * 1200 + "}",
        json.dumps(layout),
        json.dumps({**layout, "timeMillis": 1557930014399}),
        json.dumps({**layout, "timeMillis": "1557930014399"}),
        json.dumps({**layout, "timeMillis": " 1557930014399 "}),
        json.dumps({**layout, "timeMillis": 253402300800000}),
        json.dumps({**layout, "timeMillis": -62198755200000}),
        # epochs past Spark's timestamps: no time (the built-in failed the task before)
        json.dumps({**layout, "timeMillis": 9223372036854775807}),
        json.dumps({**layout, "timeMillis": 9223372036854775}),
        json.dumps({**layout, "timeMillis": -9223372036854776}),
        json.dumps({**layout, "instant": {"epochSecond": 9223372036854775807}}),
        json.dumps(
            {**layout, "instant": {"epochSecond": 9223372036854775, "nanoOfSecond": 999999999}}
        ),
        json.dumps({**layout, "instant": {"epochSecond": 1557930014, "nanoOfSecond": 399000000}}),
        json.dumps({**layout, "instant": {"epochSecond": 1557930014, "nanoOfSecond": "x"}}),
        json.dumps({**layout, "instant": {"epochSecond": "1557930014.5"}}),
        json.dumps({**layout, "@timestamp": "2019-05-15T22:20:14.399+08:00"}),
        json.dumps({**layout, "@timestamp": "1557930014399"}),
        json.dumps({**layout, "timestamp": "1557930014399\r\n"}),
        json.dumps({**layout, "@timestamp": ""}),
        json.dumps({**layout, "level": "", "loggerName": ""}),
        json.dumps({**layout, "level": "straße"}),
        json.dumps(
            {
                **layout,
                "thrown": {
                    "name": "o.a.k.c.e.NotLeaderOrFollowerException",
                    "message": "not the leader",
                },
            }
        ),
        json.dumps({**layout, "thrown": {"name": ""}}),
        json.dumps({**layout, "error.type": "E", "error.message": None}),
        json.dumps({"message": LINE, "log.level": "info", "log.logger": "k", "@timestamp": 5}),
        json.dumps(
            {
                "message": "x",
                "level": "INFO",
                "logger_name": "k",
                "exception": {"exception_class": "C", "exception_message": "m"},
            }
        ),
        # event times: offsets, fractions, invalid dates; log4j 1.x dates
        "2019-05-15T22:20:14.123456789+08:00 INFO Shrinking ISR from 1,2 to 1 (k)",
        "2019-05-15 22:20:14,1 INFO Shrinking ISR from 1,2 to 1 (k)",
        "2019-05-15 22:20:14+0800 INFO Shrinking ISR from 1,2 to 1 (k)",
        "2019-05-15 22:20:14-25:00 INFO Shrinking ISR from 1,2 to 1 (k)",
        "2019-02-30 22:20:14 INFO Shrinking ISR from 1,2 to 1 (k)",
        "[2019-13-15 22:20:14,399] INFO Shrinking ISR from 1,2 to 1 (k)",
        "[2019-05-15 24:20:14,399] INFO Shrinking ISR from 1,2 to 1 (k)",
        "[0000-05-15 22:20:14,399] INFO Shrinking ISR from 1,2 to 1 (k)",
        "19 May 2015 16:52:48,758 ERROR Shrinking ISR from 1,2 to 1 (k)",
        "19 May 2015 16:52:48 ERROR Shrinking ISR from 1,2 to 1 (k)",
        "31 Apr 2015 16:52:48,758 ERROR Shrinking ISR from 1,2 to 1 (k)",
        "29 Feb 1500 10:00:00,000 INFO Shrinking ISR from 1,2 to 1 (k)",
        "[2026-11-22 10:00:00,000] INFO Shrinking ISR from 99999999999,1 to 1 (k)",
        "[2026-11-22 10:00:00,000] INFO [Broker id=0012] Shrinking ISR from 1 to 1 (k)\r",
        "[2026-11-22 10:00:00,000] INFO x\r\r",
        "[2026-11-22 10:00:00,000] INFO Leader t-0 starts at leader epoch 9 ISR [ ] (k)",
        "\u2028[2026-11-22 10:00:00,000] INFO Shrinking ISR from 1 to 1 (k)",
        "[2026-11-22 10:00:00,000] INFO " + "\U0001f600" * 20 + "Shrinking ISR from 1 to 1 (k)",
        "\U0001f600" * 30 + " INFO Shrinking ISR from 1 to 1 (k)",
        "Shrinking ISR from 1 to 1 " + "é" * 20000,
        "[2026-11-22 10:00:00,000] INFO x (k)\n" + "é" * 20000 + "NotLeaderForPartition",
        # the BINARY check by bytes (ASCII table), and by the regex past the BMP
        "[2026-11-22 10:00:00,000] INFO Shrinking ISR from 1 to 1 (k)\x7f",
        "[2026-11-22 10:00:00,000] INFO Shrinking ISR from 1 to 1 (k)\x1b[0m\t",
        "\U0001f600 [2026-11-22 10:00:00,000] INFO Shrinking ISR \x01 from 1 to 1 (k)",
        "\U0001f600 [2026-11-22 10:00:00,000] INFO Shrinking ISR from 1 to 1 (k)\x85",
        '{"message": ' + m + ', "x": "\U0001f600", "y": "\\u0002"}',
        # get_json_object of a dotted path on a text that is or is not an object
        '{"message": ' + m + ', "host": " \\t{\\"name\\": \\"h1\\"}"}',
        '{"message": ' + m + ', "host": "\\ufeff{\\"name\\": \\"h2\\"}"}',
        '{"message": ' + m + ', "host": "\\u000b{\\"name\\": \\"h3\\"}"}',
        '{"message": ' + m + ', "host": "[{\\"name\\": \\"h4\\"}]"}',
        # the prefilter's words count only as whole tokens beside a gated text (GateScan's
        # table: the space or end after a word is checked before the one before it)
        "[2026-11-22 10:00:00,000] INFO Loading offsets from x known (k)",
        "[2026-11-22 10:00:00,000] INFO Loading offsets from x unknown (k)",
        "loading Loading offsets from",
        "Loading offsets fromloading",
        "[2026-11-22 10:00:00,000] INFO Loading offsets from x nowhere now",
        "[2026-11-22 10:00:00,000] INFO Loading offsets from \u00e9 loading",
        # Jackson's byte parser for an all-ASCII record, its character parser otherwise
        '{"message": ' + m + ', "n": 1e400, "b": [1, {"c": null}]}',
        '{"message": ' + m + ", 'single': 'quoted'}",
        '{"message": ' + m + ', "t": "\t"  , "nan": NaN}',
        '{"message": ' + m + ', "x": "é"}',
        "    at org.apache.Foo(Foo.java:1)",
        "java.lang.IllegalStateException: boom",
        "Caused by: x",
    ]
    keys: list[bytes | None] = [b"1", None, b"\xff\xfe", b" 9 ", b"99999999999", b"host-a",
                                b"01", b"12\n", b"", b"12\xe2\x80\xa8"]  # fmt: skip
    return [(keys[i % len(keys)], t.encode("utf-8", "surrogatepass")) for i, t in enumerate(texts)]


def all_records(hostile: int = HOSTILE_LINES) -> list[Record]:
    return [*fixture_records(), *case_records(), *corner_records(), *poison_records(),
            *hostile_records(hostile)]  # fmt: skip


def frame(spark: Any, records: list[Record]) -> Any:
    at = datetime(2026, 11, 22, 10, 0, 0)
    rows = [(k, v, "logs", i % 3, i, at, 0) for i, (k, v) in enumerate(records)]
    return spark.createDataFrame(rows, SCHEMA).repartition(2)


def hint_of(kind: str | None) -> str | None:
    """The family a record's log kind hints (``Shapes.family``'s hint, as the reference
    takes it)."""
    from kafka_health.parsing.events import KAFKA_KINDS

    kind = (kind or "").lower()
    return "gc" if kind == "gc" else "kafka" if kind in KAFKA_KINDS else None


def reference_reads(row: Any, kind: Kind, scan_chars: int) -> tuple[str, str | None]:
    """What the Python reference (``parsing.reference.classify``) reads of a parsed row's
    entry: (outcome, event type, or for ``malformed`` the event it looked like)."""
    from kafka_health.parsing.reference import classify

    c = classify(row["message"] or "", kind, scan_chars=scan_chars, hint=hint_of(row["kind"]))
    return c.outcome, c.event


def differences(
    spark: Any, records: Any, config: ParsingConfig, kind: Kind = "auto", show: int = 20
) -> tuple[int, list[str]]:
    """Rows compared, and the rows whose outcome and event type (for ``malformed``: the
    event it looked like) the Java parse (``parsing.udf.parse_records``) reads otherwise than
    the Python reference does of the same decoded entry. Rows the decode rejects (a bad-input
    reason, which the reference has no decode for) and continuations are left out; with the
    default settings, also each kind of input the rows do not show
    (``parse_corpora.uncovered``)."""
    from pyspark.sql import functions as F

    from kafka_health.parsing.udf import parse_records

    parsed = parse_records(records, config, kind=kind).cache()
    problems: list[str] = []
    try:
        rows = parsed.count()
        if kind == "auto" and config == ParsingConfig():
            seen = parsed.select("envelope", "type", "outcome", "bad_reason").distinct()
            problems += [f"not covered: {m}" for m in uncovered(r.asDict() for r in seen.collect())]
        compared = parsed.where(
            F.col("bad_reason").isNull()
            & ~F.coalesce(F.col("reason") == "continuation", F.lit(False))
        ).select("source_offset", "message", "kind", "outcome", "reason", "type")
        total = 0
        for row in compared.toLocalIterator():
            got = (row["outcome"], row["reason"] if row["outcome"] == "malformed" else row["type"])
            want = reference_reads(row, kind, config.scan_chars)
            if got != want:
                total += 1
                if total <= show:
                    text = (row["message"] or "")[:200]
                    problems.append(
                        f"offset {row['source_offset']}: java {got} reference {want}: {text!r}"
                    )
        if total:
            problems.append(f"{total} rows differ")
    finally:
        parsed.unpersist()
    return rows, problems


def test_the_java_parse_reads_every_corpus_as_the_python_reference(spark: Any) -> None:
    rows, problems = differences(spark, frame(spark, all_records()), ParsingConfig())
    assert rows > HOSTILE_LINES
    assert problems == [], "\n".join(problems)


def test_the_job_keeps_the_rows_of_parse_but_the_message(spark: Any) -> None:
    """The job's options (no message; the raw value and the file only where a row may be a
    dead letter) change no outcome, reason, type, field or time."""
    from kafka_health.parsing.udf import parse_records

    records = frame(spark, [*case_records(), *corner_records(), *poison_records()])
    full = parse_records(records)
    job = parse_records(records, keep_message=False, values_for_dead_letters_only=True)
    assert "message" not in job.columns
    same = [c for c in job.columns if c not in ("source_value", "file")]
    assert job.select(*same).exceptAll(full.select(*same)).count() == 0
    assert full.select(*same).exceptAll(job.select(*same)).count() == 0


@pytest.mark.parametrize("kind", ["kafka", "gc"])
def test_a_forced_family_and_other_settings_too(spark: Any, kind: Kind) -> None:
    """``parse --kind``, a smaller scan window and entry size, other paths and record keys."""
    config = ParsingConfig(
        fields=EnvelopeFieldsConfig(message=["line", "message"], broker_id=["labels.node"]),
        record_key="host" if kind == "gc" else "broker_id",
        max_entry_bytes=4096, scan_chars=300, log_timezone="Asia/Kolkata",
    )  # fmt: skip
    sample = [*fixture_records()[::4], *case_records(), *corner_records(), *hostile_records(2000)]
    rows, problems = differences(spark, frame(spark, sample), config, kind=kind)
    assert rows == len(sample)
    assert problems == [], "\n".join(problems)
