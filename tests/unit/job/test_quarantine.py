"""Bisecting a failed batch down to the records that fail it, without Spark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_health.job.quarantine import (
    EARLIEST,
    Culprit,
    OffsetRange,
    TooManyCulprits,
    batch_ranges,
    isolate,
    starting_offsets_json,
)


def failing_on(bad: set[tuple[str, int, int]]):  # type: ignore[no-untyped-def]
    """An attempt that raises when its part holds a bad record, else returns its offsets."""
    calls: list[list[OffsetRange]] = []

    def attempt(part: list[OffsetRange]) -> list[tuple[str, int, int]]:
        calls.append(part)
        records = [(r.topic, r.partition, o) for r in part for o in range(r.start, r.end)]
        if any(record in bad for record in records):
            raise RuntimeError("java.lang.StackOverflowError")
        return records

    return attempt, calls


def test_a_batch_that_parses_runs_once() -> None:
    attempt, calls = failing_on(set())
    found = isolate([OffsetRange("logs", 0, 10, 20), OffsetRange("logs", 1, 0, 5)], attempt)
    assert found.culprits == [] and found.attempts == 1 and len(calls) == 1
    assert sorted(r for part in found.results for r in part) == sorted(
        [("logs", 0, o) for o in range(10, 20)] + [("logs", 1, o) for o in range(5)]
    )


def test_one_bad_record_is_isolated_and_every_other_record_is_kept() -> None:
    ranges = [OffsetRange("logs", 0, 0, 1000), OffsetRange("logs", 1, 0, 7)]
    attempt, _calls = failing_on({("logs", 0, 613)})
    found = isolate(ranges, attempt, describe=lambda e: str(e))
    assert found.culprits == [Culprit("logs", 0, 613, "java.lang.StackOverflowError")]
    kept = sorted(r for part in found.results for r in part)
    expected = [("logs", 0, o) for o in range(1000) if o != 613] + [
        ("logs", 1, o) for o in range(7)
    ]
    assert kept == sorted(expected), "every other record once, none twice"
    assert found.attempts <= 2 * 11 + 1, "a bisection, not a record at a time"


def test_several_bad_records_in_several_partitions() -> None:
    bad = {("logs", 0, 0), ("logs", 0, 1), ("state", 2, 99), ("logs", 3, 50)}
    ranges = [
        OffsetRange("logs", 0, 0, 64),
        OffsetRange("logs", 3, 40, 60),
        OffsetRange("state", 2, 90, 100),
    ]
    attempt, _ = failing_on(bad)
    found = isolate(ranges, attempt)
    assert {(c.topic, c.partition, c.offset) for c in found.culprits} == bad
    keys = [(c.topic, c.partition, c.offset) for c in found.culprits]
    assert keys == sorted(keys), "reported in offset order"
    kept = [r for part in found.results for r in part]
    assert len(kept) == len(set(kept)) == 64 + 20 + 10 - len(bad)


def test_a_broken_parse_is_not_blamed_on_records() -> None:
    """Every record fails: past the limit it is re-raised, not a batch of dead letters."""

    def attempt(part: list[OffsetRange]) -> None:
        raise RuntimeError("org.apache.spark.SparkException: the parser is broken")

    with pytest.raises(TooManyCulprits):
        isolate([OffsetRange("logs", 0, 0, 500)], attempt, max_culprits=8)


def test_empty_ranges_run_nothing() -> None:
    attempt, calls = failing_on(set())
    found = isolate([OffsetRange("logs", 0, 5, 5)], attempt)
    assert found.results == [] and calls == [] and found.attempts == 0


def offsets_file(path: Path, offsets: dict[str, dict[str, int]], metadata: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["v1"]
    if metadata:
        lines.append(json.dumps({"batchWatermarkMs": 0, "conf": {"a": "b"}}))
    lines.append(json.dumps(offsets))
    path.write_text("\n".join(lines))


def test_batch_ranges_from_the_checkpoints_offset_log(tmp_path: Path) -> None:
    """As Spark 4 writes them: offsets/N (version, metadata, the source's offsets) and, for
    batch 0, sources/0/0 (a NUL, the version, the initial offsets)."""
    offsets_file(tmp_path / "offsets" / "6", {"logs": {"0": 100, "1": 7}, "state": {"0": 4}})
    offsets_file(
        tmp_path / "offsets" / "7",
        {"logs": {"0": 130, "1": 7, "2": 3}, "state": {"0": 5}, "results": {"0": 9}},
    )
    assert batch_ranges(tmp_path, 7, ["results", "state", "logs"]) == [
        OffsetRange("results", 0, EARLIEST, 9),  # a topic new in this batch: from the earliest
        OffsetRange("state", 0, 4, 5),
        OffsetRange("logs", 0, 100, 130),
        OffsetRange("logs", 2, EARLIEST, 3),
    ]
    initial = tmp_path / "sources" / "0" / "0"
    initial.parent.mkdir(parents=True)
    initial.write_text("\x00v1\n" + json.dumps({"logs": {"0": 0, "1": 0}}))
    offsets_file(tmp_path / "offsets" / "0", {"logs": {"0": 12, "1": 0}})
    assert batch_ranges(tmp_path, 0, ["logs"]) == [OffsetRange("logs", 0, 0, 12)]


def test_the_batch_read_options_name_exactly_the_ranges() -> None:
    assign, starts, ends = starting_offsets_json(
        [OffsetRange("logs", 0, 100, 130), OffsetRange("logs", 2, EARLIEST, 3)]
    )
    assert json.loads(assign) == {"logs": [0, 2]}
    assert json.loads(starts) == {"logs": {"0": 100, "2": -2}}
    assert json.loads(ends) == {"logs": {"0": 130, "2": 3}}
