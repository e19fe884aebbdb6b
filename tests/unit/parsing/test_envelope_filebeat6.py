"""Filebeat 5.x and 6.x records (before ECS): what the decode reads of them, and the Kafka lines
they carry as the reference parser classifies them. The Spark decode of the same records is
``tests/spark/test_parsing_envelope_filebeat6.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kafka_health.parsing.config import EnvelopeFieldsConfig
from kafka_health.parsing.envelope import ENVELOPE_MARKERS, PRE_ECS_BEATS, doc_keys
from kafka_health.parsing.reference import classify

FIXTURES = Path(__file__).parents[2] / "fixtures"
SAMPLES = FIXTURES / "shipper_formats"
ENVELOPES = [
    json.loads(line)
    for line in (FIXTURES / "logs" / "envelopes-filebeat6.jsonl").read_text().splitlines()
]


@pytest.mark.parametrize("sample", ["filebeat-6.json", "filebeat-5.json"])
def test_real_pre_ecs_records_have_what_the_decode_reads(sample: str) -> None:
    """The public records: a top-level ``beat`` (what marks them Filebeat's), the file in
    ``source``, the host in ``beat.hostname``, the line in ``message``; no ECS field."""
    doc = json.loads((SAMPLES / sample).read_text())
    assert isinstance(doc["beat"], dict) and doc["beat"]["hostname"]
    assert doc["source"].endswith(".log") and isinstance(doc["message"], str)
    assert not {"agent", "ecs", "log"} & doc.keys()


def test_the_decode_reads_the_pre_ecs_keys_whatever_the_configured_paths() -> None:
    """``beat`` tells the shipper, ``source`` and ``beat.hostname`` give the file and host:
    they are among the keys parsed from every record, even with paths configured elsewhere."""
    assert "beat" in ENVELOPE_MARKERS
    assert PRE_ECS_BEATS == {"file": "source", "host": "beat.hostname"}
    for fields in (EnvelopeFieldsConfig(), EnvelopeFieldsConfig(file=[], host=["hostname"])):
        assert {"beat", "source", "message"} <= set(doc_keys(fields))


@pytest.mark.parametrize("envelope", ENVELOPES, ids=[e["name"] for e in ENVELOPES])
def test_the_line_an_envelope_carries(envelope: dict[str, Any]) -> None:
    """The reference parser's reading of each record's line (its ``message``, or Fluentd's
    ``log``): the event and its raw groups, or nothing for a stack trace's entry."""
    value = envelope["value"]
    result = classify(value.get("message") or value["log"])
    expect = envelope["expect"]
    if "type" in expect:
        assert (result.outcome, result.event) == ("event", expect["type"])
        assert result.groups == envelope["groups"]
    else:
        assert result.outcome == expect["outcome"]
