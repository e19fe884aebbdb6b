"""100,000 random and mutated records in one batch: no exception, every line accounted for."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest

from kafka_health.dev.parsing_cases import ALL_CASES
from kafka_health.parsing.hostile import mutate
from kafka_health.parsing.udf import parse_records

pytestmark = pytest.mark.spark

COUNT = 100_000
SEED = 20261122


def corpus(rng: random.Random) -> list[bytes]:
    """Whole entries of the test table (some of several lines): as they are, mutated, random
    bytes, or random text in the characters the patterns look for."""
    real = [c.text.encode() for c in ALL_CASES]
    values = []
    for _ in range(COUNT):
        roll = rng.random()
        if roll < 0.3:
            values.append(rng.choice(real))
        elif roll < 0.85:
            values.append(mutate(rng, rng.choice(real)))
        elif roll < 0.9:
            values.append(rng.randbytes(rng.randrange(0, 300)))
        else:
            alphabet = "[]()0123456789:,.-> abcdefGCISRxyz\t\n{}\"'"
            values.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(80))).encode())
    return values


def test_fuzz_every_record_accounted_for(spark: Any) -> None:
    rng = random.Random(SEED)
    values = corpus(rng)
    at = datetime(2026, 11, 22)
    frame = spark.createDataFrame(
        [(b"1", v, "logs", 0, i, at) for i, v in enumerate(values)],
        "key binary, value binary, topic string, partition int, offset long, timestamp timestamp",
    ).repartition(2)
    parsed = parse_records(frame)
    counts = {
        (r["outcome"], r["reason"] if r["outcome"] != "event" else "event"): r["n"]
        for r in parsed.groupBy("outcome", "reason").count().withColumnRenamed("count", "n")
        .collect()
    }  # fmt: skip
    assert sum(counts.values()) == COUNT
    assert set(o for o, _ in counts) <= {"event", "malformed", "unrecognised"}
    assert counts.get(("event", "event"), 0) > COUNT * 0.2  # the unmutated real lines at least
    assert counts.get(("malformed", "isr_shrink"), 0) > 0  # truncations are noticed
    assert (
        counts.get(("unrecognised", "not_utf8"), 0) + counts.get(("unrecognised", "binary"), 0) > 0
    )
