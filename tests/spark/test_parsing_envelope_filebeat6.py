"""Filebeat 5.x and 6.x records (before ECS) through Spark's decode and parse: the shipper, the
file (``source``), the host (``beat.hostname`` where no ``host`` is), the broker id and kind
(``fields.*`` or, with ``fields_under_root``, top-level), and the Kafka 2.0 event. The records
are ``tests/fixtures/shipper_formats/filebeat-{5,6}.json`` (public samples) and
``tests/fixtures/logs/envelopes-filebeat6.jsonl`` (Kafka lines in those shapes)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kafka_health.config import EnvelopeFieldsConfig, ParsingConfig
from kafka_health.parsing.udf import parse_records

pytestmark = pytest.mark.spark

FIXTURES = Path(__file__).parents[1] / "fixtures"
SCHEMA = "key binary, value binary, topic string, partition int, offset long, timestamp timestamp"
ENVELOPES = [
    json.loads(line)
    for line in (FIXTURES / "logs" / "envelopes-filebeat6.jsonl").read_text().splitlines()
]


def records(spark: Any, values: list[bytes]) -> Any:
    at = datetime(2026, 11, 22, 10, 0, 0)
    rows = [(None, v, "logs", 0, i, at) for i, v in enumerate(values)]
    return spark.createDataFrame(rows, SCHEMA)


@pytest.fixture(scope="module")
def envelope_rows(spark: Any) -> dict[int, dict[str, Any]]:
    values = [json.dumps(e["value"]).encode() for e in ENVELOPES]
    parsed = parse_records(records(spark, values)).collect()
    return {r["source_offset"]: r.asDict() for r in parsed}


@pytest.mark.parametrize("index", range(len(ENVELOPES)), ids=[e["name"] for e in ENVELOPES])
def test_kafka_lines_in_pre_ecs_filebeat_records(
    envelope_rows: dict[int, dict[str, Any]], index: int
) -> None:
    row = envelope_rows[index]
    for name, want in ENVELOPES[index]["expect"].items():
        assert row[name] == want, name


@pytest.mark.parametrize(
    ("sample", "host"),
    [("filebeat-6.json", "test-0"), ("filebeat-5.json", "ip-166-61"),
     ("filebeat.json", "053dd9dc5419")],
)  # fmt: skip
def test_the_public_filebeat_records_decode(spark: Any, sample: str, host: str) -> None:
    """Filebeat 6.4.0 (``@metadata``, ``host.name``), 5.5.2 (no ``@metadata``: only ``beat``
    says it is Filebeat's; its host is ``beat.hostname``) and 7.17.9 (ECS) as they wrote them.
    The 6.4.0 record's line is itself a JSON object's text, which the decode takes for a
    structured value, not a log line (``json_path``): no message, and said so."""
    text = (FIXTURES / "shipper_formats" / sample).read_text().strip()
    doc = json.loads(text)
    row = parse_records(records(spark, [text.encode()])).first()
    assert row is not None
    assert (row["envelope"], row["host"]) == ("filebeat", host)
    assert row["file"] == (doc["source"] if "source" in doc else doc["log"]["file"]["path"])
    if doc["message"].startswith("{"):
        assert (row["message"], row["bad_reason"]) == (None, "no_message")
    else:
        assert (row["message"], row["bad_reason"]) == (doc["message"], None)


def test_configured_paths_come_first_and_the_pre_ecs_ones_only_fill_in(spark: Any) -> None:
    """A configured file or host path that holds a value wins over ``source`` and
    ``beat.hostname``; with no file path configured, ``source`` still gives the file."""
    doc = dict(ENVELOPES[0]["value"], path="/elsewhere/server.log", hostname="kafka-1.internal")
    del doc["host"]
    value = json.dumps(doc).encode()
    default = parse_records(records(spark, [value])).first()
    assert default is not None
    assert (default["file"], default["host"]) == ("/elsewhere/server.log", "kafka-1.internal")
    config = ParsingConfig(fields=EnvelopeFieldsConfig(file=[], host=["nowhere"]))
    bare = parse_records(records(spark, [value]), config).first()
    assert bare is not None
    assert (bare["file"], bare["host"]) == ("/var/log/kafka/server.log", "kafka-1")
