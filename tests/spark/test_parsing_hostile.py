"""Input built to break the parser: no record fails a Spark task, every one is accounted for."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cli import main
from kafka_health.dev.parsing_cases import case_lines
from kafka_health.parsing.deadletter import dead_letters
from kafka_health.parsing.hostile import huge_lines, write_hostile_file
from kafka_health.parsing.udf import parse_records

pytestmark = pytest.mark.spark

LINES = 3000  # the ~1 MB lines of the generator are among them


def test_hostile_file_summary_counts_every_line(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Random bytes, NULs, mutated lines and ~1 MB recursion bait: exit 0, every line counted."""
    path = tmp_path / "hostile.log"
    assert write_hostile_file(path, case_lines(), LINES, seed=13) == LINES
    code = main(["parse", "--summary", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err[-2000:]
    summary = json.loads(out)
    assert summary["lines"] == LINES
    assert sum(summary["lines_by_outcome"].values()) == LINES
    assert summary["unrecognised_lines"] == sum(summary["unrecognised_by_reason"].values())
    assert summary["unrecognised_by_reason"]["not_utf8"] > 0


def nested_json(depth: int) -> bytes:
    return b'{"message": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}"


def test_poison_records_become_dead_letters(spark: Any) -> None:
    """The job's path (decode + parse + dead letters) over the ~1 MB lines, invalid UTF-8, a
    JSON envelope nested 10 000 deep and an oversize record: one batch, no failed task."""
    good = b"[2019-05-15 22:20:14,399] INFO Shrinking ISR from 3,1,4 to 3 (kafka.cluster.Partition)"
    poison = [
        *huge_lines(),
        b"[2019-05-15 22:20:14,399] INFO \xc3\x28\xff Shrinking ISR",
        nested_json(10_000),
        b"x" * (2 * 1_048_576),  # over parsing.max_entry_bytes
    ]
    values = [good, *poison, good]
    at = datetime(2026, 11, 22)
    frame = spark.createDataFrame(
        [(b"1", v, "logs", 0, i, at) for i, v in enumerate(values)],
        "key binary, value binary, topic string, partition int, offset long, timestamp timestamp",
    )
    parsed = parse_records(frame).cache()
    try:
        rows = {r["source_offset"]: r for r in parsed.select(
            "source_offset", "outcome", "reason", "type").collect()}  # fmt: skip
        letters = {
            r["source_offset"]: r["reason"]
            for r in dead_letters(parsed).select("source_offset", "reason").collect()
        }
    finally:
        parsed.unpersist()
    assert len(rows) == len(values)
    assert rows[0]["type"] == rows[len(values) - 1]["type"] == "isr_shrink"
    last = len(values) - 2
    assert letters[last] == "oversize"
    assert letters[last - 1] == "bad_json"
    assert letters[last - 2] == "not_utf8"
