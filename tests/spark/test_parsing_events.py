"""Every case of the pattern table through Spark: outcome, type and converted fields."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_health.dev.parsing_cases import ALL_CASES, Case
from kafka_health.parsing.events import EVENT_FIELDS
from kafka_health.parsing.udf import parse_entries

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


@pytest.mark.parametrize(
    ("head", "ts", "level"),
    [
        # Kafka's default layout: read at their places (patterns.default_layout_stamp)
        ("[2026-11-26 10:15:57,357] INFO", "2026-11-26T10:15:57.357", "INFO"),
        ("[2026-11-26 10:15:57,357] ERROR", "2026-11-26T10:15:57.357", "ERROR"),
        # other shapes: the TIMESTAMP and LEVEL regexes
        ("[2026-11-26 10:15:57,357+0100] WARN", "2026-11-26T10:15:57.357+01:00", "WARN"),
        ("[2026-11-26T10:15:57.357] INFO", "2026-11-26T10:15:57.357", "INFO"),
        ("[WARN-11-26 10:15:57,357] INFO", None, "WARN"),
        ("2026-11-26 10:15:57,357 DEBUG", "2026-11-26T10:15:57.357", "DEBUG"),
    ],
)
def test_an_events_time_and_level_by_layout(
    spark: Any, head: str, ts: str | None, level: str
) -> None:
    """An event line's time and level: at their places in Kafka's default layout, by the
    regexes in any other shape, and the same either way where both apply."""
    frame = spark.createDataFrame(
        [(f"{head} zookeeper state changed (Expired) (x)",)], "message string"
    )
    row = parse_entries(frame).collect()[0]
    assert (row["type"], row["ts"], row["level"]) == ("zk_session_expired", ts, level)


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


def test_a_line_in_kafkas_default_layout_is_a_kafka_line_even_when_it_looks_like_gc(
    spark: Any,
) -> None:
    """The family is decided by Kafka's default layout first (plain compares, most lines), then
    by the GC line regex: a crafted line that both opens as Kafka writes a line and matches
    ``GC_LINE`` is a Kafka line, so a GC pattern does not read it, in Spark as in the twin."""
    from kafka_health.parsing import patterns as P
    from kafka_health.parsing.reference import GC_LINE, classify

    line = "[gc aaaaaaaaaaaaaaaaaaaaa INFO x] GC(5) Pause Full (System.gc()) 100M->50M(1024M) 12ms"
    assert P.is_default_layout(line) and GC_LINE.search(line)
    gc_only = line[line.index("GC(5)") :]
    frame = spark.createDataFrame([(line, "gc"), ("[0.05s][info][gc] " + gc_only, "gc")],
                                  "message string, kind string")  # fmt: skip
    spark_reads = [(r["outcome"], r["type"]) for r in parse_entries(frame).collect()]
    twin = classify(line, hint="gc")
    assert spark_reads == [(twin.outcome, twin.event), ("event", "full_gc")]
    assert spark_reads[0] == ("unrecognised", None)


JAVA_READS_DIFFERENTLY = [
    # Found by the 1,000,000-record fuzz of the job (benchmarks/fuzz_job.py): mutated lines
    # Python's re (Unicode \w \s \b) did not read as events and Spark's Java regexes did.
    "org\u07da.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current "
    "ISR Set(2) is insufficient to satisfy the min.isr requirement of 2 for partition "
    "__consumer_offsets-5",
    "[2019-05-15 22:20:14,399] INFO Initiating client connection, connectString=192.168.x.x:2181,"
    "192\x1f\x16.168.x.x:2181 sessionTimeout=6000 watcher=org.I0Itec.zkclient.ZkClient@50a638b5 "
    "(org.apache.zookeeper.ZooKeeper)",
    "[2017-10-12 17:10:01,205] INFO Finished loading offsets from [__consu\x03\ufffd\x1dy\ufffdmer"
    "_offsets,27] in 1205 milliseconds. (kafka.coordinator.GroupMetadataManager)",
    "[2019-05-15 22:20:13,881] INFO Updated PartitionLeaderEpoch. New: {epoch:78, offset:"
    "1070147099}, Current: {epoch:77, offset1041132585} for Partition: zto_scan\x05u\x1e_rec-11. "
    "Cache now contains 1 entries. ",
    # Crafted: a line separator inside and at the end of an entry.
    "[2022-03-12 18:10:07,139] INFO zookeeper state changed (Expired)\u2028",
    "[2022-03-12 18:10:07,139] INFO [Partition t-0 broker=1] Shrinking ISR from 1,2,3 to 1,2\u2028",
]


def test_the_python_twin_reads_every_line_as_spark_does(spark: Any) -> None:
    """The twin (``parsing.reference``, the fuzz's filter and the tests' oracle) compiles the
    table with Java's semantics: it gives Spark's outcome and event type on lines where
    Python's and Java's regexes differ."""
    from kafka_health.parsing.reference import classify

    frame = spark.createDataFrame([(t,) for t in JAVA_READS_DIFFERENTLY], "message string")
    spark_reads = [(r["outcome"], r["type"]) for r in parse_entries(frame).collect()]
    twin_reads = [(c.outcome, c.event) for c in map(classify, JAVA_READS_DIFFERENTLY)]
    assert twin_reads == spark_reads
    assert spark_reads[:4] == [
        ("event", "min_isr_violation"),
        ("event", "session_timeout"),
        ("event", "coordinator_load_finish"),
        ("event", "leader_change"),
    ]
