"""Every case of the pattern table through Spark: outcome, type and converted fields."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_health.parsing.events import EVENT_FIELDS, parse_entries
from tests.parsing_cases import ALL_CASES, Case

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def parsed(spark: Any) -> dict[str, dict[str, Any]]:
    """All cases parsed in one Spark batch, by case id."""
    rows = [(c.id, c.text, c.kind) for c in ALL_CASES]
    frame = spark.createDataFrame(rows, "id string, message string, family string")
    out = parse_entries(frame).collect()
    return {r["id"]: r.asDict() for r in out}


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_case_through_spark(parsed: dict[str, dict[str, Any]], case: Case) -> None:
    """Spark's Java regexes and conversions agree with the table (reason: case.source)."""
    row = parsed[case.id]
    if case.expect in ("malformed", "unrecognised"):
        assert row["outcome"] == case.expect, case.source
        assert row["type"] is None
    else:
        assert row["outcome"] == "event", case.source
        assert row["type"] == case.expect, case.source
    for name, want in case.fields.items():
        got = row[name]
        if isinstance(want, float):
            assert got == pytest.approx(want, abs=1e-6), (name, case.source)
        else:
            assert got == want, (name, case.source)


def test_seed_full_gc_pauses_match_the_write_up(parsed: dict[str, dict[str, Any]]) -> None:
    """The incident's G1 Full GCs: 10.39 s and 10.23 s (the write-up quotes real=)."""
    assert parsed["g1_full_10_39"]["pause_s"] == pytest.approx(10.39, abs=0.01)
    assert parsed["g1_full_10_23"]["pause_s"] == pytest.approx(10.23, abs=0.01)


def test_event_columns_exist(parsed: dict[str, dict[str, Any]]) -> None:
    """The output carries every field of the contract, plus event_ms for the job."""
    row = next(iter(parsed.values()))
    assert set(EVENT_FIELDS) <= set(row)
    assert {"outcome", "reason", "type", "event_ms"} <= set(row)


def test_event_ms(spark: Any) -> None:
    """Offset-less log4j times are read in the configured zone; offsets are honoured."""
    from kafka_health.config import ParsingConfig

    frame = spark.createDataFrame(
        [
            ("[2022-03-12 18:10:07,139] INFO zookeeper state changed (Expired) (x)",),
            ("2019-05-15T22:25:59.422+0800: 1.0: [Full GC (Allocation Failure)  8M->4M(8M), "
             "1.0 secs]",),
        ],
        "message string",
    )  # fmt: skip
    utc = [r["event_ms"] for r in parse_entries(frame).collect()]
    assert utc == [1647108607139, 1557930359422]
    shifted = parse_entries(frame, ParsingConfig(log_timezone="Asia/Shanghai")).collect()
    assert shifted[0]["event_ms"] == 1647108607139 - 8 * 3600 * 1000
    assert shifted[1]["event_ms"] == 1557930359422


def test_family_from_content_kind_only_a_hint(spark: Any) -> None:
    """An envelope's kind (or file name) is a hint: a log4j line is a Kafka entry and a GC
    line a GC entry whatever the kind says; a line showing neither shape follows the kind."""
    frame = spark.createDataFrame(
        [("[2019-05-15 22:20:14,399] INFO zookeeper state changed (Expired) (x)", "gc"),
         ("[0.052s][info][gc] GC(1) Pause Full (Ergonomics) 60M->30M(61M) 12.120ms", "server"),
         ("zookeeper state changed (Expired)", "gc"),
         ("zookeeper state changed (Expired)", "server")],
        "message string, kind string",
    )  # fmt: skip
    got = [(r["outcome"], r["type"]) for r in parse_entries(frame).collect()]
    assert got == [
        ("event", "zk_session_expired"),
        ("event", "full_gc"),
        ("unrecognised", None),
        ("event", "zk_session_expired"),
    ]
