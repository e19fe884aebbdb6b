"""The envelope's one-pass reader (``kafkahealth.parse.FlatJson``, the decode's reader of a flat
ASCII envelope) against Jackson's reading of the same text as Spark's ``from_json`` does it
(``SparkJson.fromJson``, held to Spark by the parse's equivalence tests): every text it reads
it reads the same, over the shippers' envelopes, the decode's corner records, the throughput
backlog's own envelopes, and seeded mutations of them (cuts, escapes, numbers, literals,
separators), and it reads the own shipper's envelopes (else the decode would not use it)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.parsing import patterns as P
from kafka_health.parsing.udf import load_jar
from kafka_health.parsing.udf_spec import parser_spec
from tests.spark.test_parse_reference import corner_records
from tests.spark.test_parsing_envelope import ENVELOPES

pytestmark = pytest.mark.spark

OWN = (
    '{"schema": "kafka-health/log/v1", "broker_id": "141", "host": "kafka-141", "kind": '
    '"server", "path": "/var/log/kafka/server.log", "offset": 217, "inode": 1, "message": '
    '"[2026-12-06 10:48:52,513] INFO [Partition t-1 broker=3] Shrinking ISR from 3,1 to 3 '
    '(kafka.cluster.Partition)", "shipped_at": "2026-12-06T10:48:52.513Z"}'
)
PIECES = [
    '"', "\\", "\\n", '\\"', "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t", "\\u0041", "\\ud800",
    "\\x", "\\'", "{", "}", "[", "]", ":", ",", " ", "\t", "\n", "\r", "\x0b", "\x00", "\x1f",
    "\x7f", "'", "0", "-0", "01", "1.", ".5", "1e", "1e+5", "-", "1.5e-3", "123abc", "NaN",
    "-Infinity", "+1", "true", "tru", "truex", "null", "nul", "false", "falsey", "//", "/*",
]  # fmt: skip


def mutations(base: str, rng: random.Random, count: int) -> list[str]:
    """Every cut of ``base`` (its prefixes), and ``count`` copies with a piece put in or put
    over a few characters at random places."""
    texts = [base[:i] for i in range(len(base))]
    for _ in range(count):
        at = rng.randrange(len(base) + 1)
        over = rng.choice([0, 0, 1, 2])
        texts.append(base[:at] + rng.choice(PIECES) + base[at + over :])
    return texts


def edge_envelopes() -> list[str]:
    """The own envelope with its values, keys, spacing and separators varied."""
    doc = json.loads(OWN)
    return [
        json.dumps({**doc, "message": doc["message"] + '\n\tat x.y(Z.java:1)\n"quoted" \\ /'}),
        json.dumps({**doc, "broker_id": 141}),
        json.dumps({**doc, "offset": -0.5e-3, "inode": None, "extra": True}),
        json.dumps({**doc, "extra": {"nested": [1, 2]}}),
        json.dumps({"message": OWN, "message ": "spaced key", "": "empty key"}),
        json.dumps(doc, indent=2),
        json.dumps(doc, separators=(",", ":")),
        OWN.replace('"offset": 217', '"offset": 0217'),
        OWN.replace('"inode": 1', '"inode": 1 2'),
        OWN.replace("}", ",}"),
        OWN.replace('"kind"', '"ki\\nd"'),
        OWN + " trailing",
        " \n" + OWN,
        "{}",
        "{ }",
    ]


def corpus() -> list[str]:
    rng = random.Random(59)
    texts = [e["value"] for e in ENVELOPES]
    texts += [v.decode("utf-8", "surrogatepass") for _, v in corner_records() if v]
    texts += edge_envelopes() + mutations(OWN, rng, 3000)
    for base in rng.sample([t for t in texts if t.lstrip().startswith("{")], 20):
        texts += mutations(base, rng, 200)
    return [t for t in texts if t.isascii()]


def test_every_envelope_it_reads_it_reads_as_jackson(spark: Any) -> None:
    load_jar(spark)
    jvm = spark.sparkContext._jvm
    spec = parser_spec(MonitorConfig().parsing, P.ALL_PATTERNS, "auto", False, True, "UTC")
    texts = corpus()
    own = [OWN, *edge_envelopes()[:3]]
    result = json.loads(
        jvm.kafkahealth.parse.FlatJson.differences(json.dumps(texts), json.dumps(spec["doc_keys"]))
    )
    assert result["differ"] == [], result["differ"][:5]
    assert result["read"] > 2000, (result["read"], len(texts))
    read_own = json.loads(
        jvm.kafkahealth.parse.FlatJson.differences(json.dumps(own), json.dumps(spec["doc_keys"]))
    )
    assert read_own == {"differ": [], "read": len(own) - 1}, read_own  # the number broker_id
