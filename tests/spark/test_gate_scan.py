"""The prefilter's one-pass scan of a gate (``kafkahealth.parse.GateScan``: a skip search over
its searched and gated texts, then the automaton over every byte) against its texts searched
one by one (``Prefilter.passes``, the reference's ``FamilyPrefilter.passes``): the same answer
over log lines with the gates' texts and words put in at every kind of place (the start, the
end, overlapping, cut by one character, beside characters past ASCII, alone), seeded."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.parsing import patterns as P
from kafka_health.parsing.udf import load_jar
from kafka_health.parsing.udf_spec import parser_spec

pytestmark = pytest.mark.spark

LINES = [
    "[2026-12-06 10:48:52,513] INFO [ReplicaFetcher replicaId=9, leaderId=2, fetcherId=0] "
    "Node 2 was unable to process the fetch request (kafka.server.ReplicaFetcherThread)",
    "[2026-12-06 10:48:52,513] INFO [Log partition=t-1, dir=/var/kafka] Rolled new log "
    "segment at offset 1 in 3 ms. (kafka.log.Log)",
    "2026-12-06T10:48:52.513+0000: 12.345: [GC pause (G1 Evacuation Pause) (young), 0.01 secs]",
    "[0.512s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.1ms",
    "",
    "x",
    "\u00e9\U0001f600 \u00e9",
]


def texts(gates: dict[str, Any], rng: random.Random, count: int) -> list[str]:
    """Lines with the gates' texts and words put in, whole, cut, doubled or overlapped."""
    pieces = [t for g in gates.values() for k in ("searched", "gated", "words") for t in g[k]]
    out = list(LINES) + pieces + [p[:-1] for p in pieces] + [p[1:] for p in pieces]
    for _ in range(count):
        line = rng.choice(LINES)
        for _ in range(rng.randrange(1, 4)):
            p = rng.choice(pieces)
            overlapped = p[: len(p) // 2] + rng.choice(pieces)
            p = rng.choice([p, p[:-1], p[1:], p + p, overlapped, f" {p} ", "\u00e9" + p])
            at = rng.choice([0, len(line), rng.randrange(len(line) + 1)])
            line = line[:at] + p + line[at:]
        out.append(line)
    return out


def test_a_gates_scan_answers_as_its_texts_searched_one_by_one(spark: Any) -> None:
    load_jar(spark)
    jvm = spark.sparkContext._jvm
    spec = parser_spec(MonitorConfig().parsing, P.ALL_PATTERNS, "auto", False, True, "UTC")
    corpus = texts(spec["gates"], random.Random(59), 20_000)
    result = json.loads(
        jvm.kafkahealth.parse.Prefilter.differences(json.dumps(spec), json.dumps(corpus))
    )
    assert result["differ"] == [], result["differ"][:5]
    assert result["passed"] > len(corpus) // 4, "most texts hold a searched or gated text"
