"""The driver's side of a batch: collected rows -> detector inputs and counts."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from typing import Any

from kafka_health.detectors.inputs import LogEvent, LogStream
from kafka_health.job.batch import EVENT_COLUMNS, ParseCount, decode_rows
from kafka_health.job.schemas import CLUSTER_STATE_SCHEMA_ID, RESULT_SCHEMA_ID
from kafka_health.parsing.events import EVENT_FIELDS


def log_row(outcome: str, reason: str | None, type_: str | None, broker: str | None,
            kind: str | None, entries: int, lines: int, dead: int = 0,
            event: dict[str, object] | None = None) -> tuple[object, ...]:  # fmt: skip
    """A group of driver_rows for broker-log lines (listing ``entries`` copies of ``event``)."""
    tag, records = ("event", [listed(0, 0, event)] * entries) if event else (None, [])
    return (tag, outcome, reason, type_, broker, kind, entries, lines, dead, records)


def listed(partition: int | None, offset: int | None, payload: object) -> list[object]:
    """A record as driver_rows lists it in its group: an event's payload is its object, an own
    record's the text it was written as."""
    return [partition, offset, payload]


def record_row(tag: str, entries: int = 1, offset: int = 0, **fields: object) -> tuple[object, ...]:
    """A group of canary outcomes or cluster-state records as driver_rows lists them: ``entries``
    copies of one record at ``offset``."""
    return own_row(tag, [listed(0, offset, json.dumps(fields))] * entries)


def own_row(tag: str, records: list[list[object]]) -> tuple[object, ...]:
    return (tag, None, None, None, None, None, len(records), None, 0, records)


def test_the_groups_give_both_the_parse_counts_and_the_streams_seen() -> None:
    gc = {"type": "full_gc", "broker_id": "1", "event_ms": 5, "pause_s": 12.0}
    rows = [
        log_row("event", None, "full_gc", "1", "gc", 2, 2, event=gc),
        log_row("unrecognized", "no_event", None, "1", "gc", 40, 41),
        log_row("unrecognized", "no_event", None, "2", "server", 10, 10),
        log_row("malformed", "bad_envelope", None, None, None, 3, 3, dead=3),
    ]
    decoded = decode_rows(rows)
    assert sorted(decoded.batch.streams, key=lambda s: s.broker_id) == [
        LogStream("1", "gc", 42),
        LogStream("2", "server", 10),
    ]
    assert sorted(decoded.counts, key=lambda c: str(c.outcome)) == [
        ParseCount("event", None, "full_gc", 2, 2, 0),
        ParseCount("malformed", "bad_envelope", None, 3, 3, 3),
        ParseCount("unrecognized", "no_event", None, 50, 51, 0),
    ]
    assert decoded.dead_letters == 3
    assert [(e.type, e.pause_s) for e in decoded.batch.events] == [("full_gc", 12.0)] * 2


def test_identical_records_stay_as_many_as_they_were_and_are_not_counted_as_log_lines() -> None:
    outcome: dict[str, Any] = {"schema": RESULT_SCHEMA_ID, "canary_id": "c", "partition": 0,
                               "seq": 4, "acks": "all", "send_ms": 1, "done_ms": 2,
                               "outcome": "ok", "latency_s": 0.001}  # fmt: skip
    decoded = decode_rows([record_row("outcome", entries=2, **outcome)])
    assert [(o.partition, o.seq) for o in decoded.batch.outcomes] == [(0, 4), (0, 4)]
    assert decoded.counts == [] and decoded.batch.streams == []


def test_probes_and_events_become_detector_inputs() -> None:
    rows = [
        ("probe", json.dumps({"canary_id": "c", "partition": 1, "seq": 7, "acks": "all",
                              "send_ms": 5, "offset": 11})),
        log_row("event", None, "broker_failure", "1", "controller", 1, 1,
                event={"type": "broker_failure", "broker_id": "1", "event_ms": 9,
                       "subject_broker_id": 3}),
    ]  # fmt: skip
    batch = decode_rows(rows).batch
    assert [(p.partition, p.seq, p.offset) for p in batch.probes] == [(1, 7, 11)]
    assert [(e.type, e.subject_broker_id) for e in batch.events] == [("broker_failure", 3)]


def test_records_of_the_own_topics_that_are_not_ours_are_counted_and_dropped() -> None:
    """Canary outcomes and cluster-state records reach the driver as they are (Spark's
    from_json has no generated code); only those matching their schema become inputs."""
    ok: dict[str, Any] = {"schema": RESULT_SCHEMA_ID, "partition": 0, "seq": 1, "send_ms": 5,
                          "outcome": "ok"}  # fmt: skip
    partition: dict[str, Any] = {"schema": CLUSTER_STATE_SCHEMA_ID, "kind": "partition",
                                 "snapshot_ms": 7, "topic": "t", "partition": 0, "leader": 1,
                                 "replicas": [1, 2], "isr": [1]}  # fmt: skip
    rows = [
        record_row("outcome", **ok),
        record_row("outcome", entries=3, **{**ok, "schema": "someone-else/v1"}),
        record_row("outcome", **{**ok, "seq": "1"}),
        record_row("outcome", **{k: v for k, v in ok.items() if k != "send_ms"}),
        ("outcome", "not json {"),
        ("outcome", "[1, 2]"),
        record_row("cluster", **partition),
        record_row("cluster", **{**partition, "kind": "rumour"}),
    ]
    decoded = decode_rows(rows)
    assert [(o.partition, o.seq, o.ok) for o in decoded.batch.outcomes] == [(0, 1, True)]
    assert [(c.kind, c.isr) for c in decoded.batch.cluster] == [("partition", (1,))]
    assert decoded.invalid == 3 + 1 + 1 + 1 + 1 + 1
    assert sorted({(r.tag, r.reason) for r in decoded.rejected}) == [
        ("cluster", "unknown_kind"),
        ("outcome", "missing_field"),
        ("outcome", "not_json"),
        ("outcome", "wrong_schema"),
        ("outcome", "wrong_type"),
    ]


def test_a_snapshots_closing_record_says_how_many_brokers_it_holds() -> None:
    """So a snapshot read only in part (its first records by a process that was killed) is
    told apart from a whole one."""
    closing: dict[str, Any] = {
        "schema": CLUSTER_STATE_SCHEMA_ID,
        "kind": "snapshot",
        "snapshot_ms": 7,
        "done_ms": 9,
        "topics": 1,
        "partitions": 3,
        "brokers": 3,
        "live_brokers": 1,
    }
    decoded = decode_rows(
        [record_row("cluster", **closing), record_row("cluster", **{**closing, "brokers": "3"})]
    )
    assert [(c.kind, c.brokers) for c in decoded.batch.cluster] == [("snapshot", 3)]
    assert [r.reason for r in decoded.rejected] == ["wrong_type"]


NOW_MS = 1_795_000_000_000


def test_records_a_detector_cannot_trust_are_rejected_with_their_reason_and_offset() -> None:
    """Wrong types a detector would do arithmetic on, clocks that are off: rejected, not
    folded in (a send_ms in 2100 would move the canary's windows into the future)."""
    ok: dict[str, Any] = {"schema": RESULT_SCHEMA_ID, "partition": 0, "seq": 1,
                          "send_ms": NOW_MS - 500, "done_ms": NOW_MS - 490, "outcome": "ok",
                          "latency_s": 0.01}  # fmt: skip
    snapshot: dict[str, Any] = {"schema": CLUSTER_STATE_SCHEMA_ID, "kind": "partition",
                                "snapshot_ms": NOW_MS, "topic": "t", "partition": 0, "leader": 1,
                                "replicas": [1, 2], "isr": [1]}  # fmt: skip
    cases = {
        "future_timestamp": record_row("outcome", offset=1, **{**ok, "send_ms": 4_102_444_800_000}),
        "ancient_timestamp": record_row("outcome", offset=2, **{**ok, "send_ms": 86_400_000}),
        "negative_latency": record_row("outcome", offset=3, **{**ok, "latency_s": -0.2}),
        "negative_latency ": record_row("outcome", offset=4, **{**ok, "done_ms": NOW_MS - 900}),
        "wrong_type": record_row("outcome", offset=5, **{**ok, "latency_s": "fast"}),
        "wrong_type ": record_row("outcome", offset=6, **{**ok, "partition": True}),
        "wrong_type  ": own_row("outcome", [listed(0, 7, json.dumps(ok).replace("0.01", "NaN"))]),
        "wrong_type   ": record_row("cluster", offset=8, **{**snapshot, "isr": ["1"]}),
        "wrong_type    ": record_row("cluster", offset=9, **{**snapshot, "snapshot_ms": "x"}),
        "missing_field": record_row("cluster", offset=10, **{**snapshot, "snapshot_ms": None}),
        "future_timestamp ": record_row(
            "cluster", offset=11, **{**snapshot, "snapshot_ms": NOW_MS + 3_600_000}
        ),
    }  # fmt: skip
    decoded = decode_rows([record_row("outcome", **ok), record_row("cluster", **snapshot),
                           *cases.values()], now_ms=NOW_MS)  # fmt: skip
    assert [r.reason for r in decoded.rejected] == [k.strip() for k in cases]
    assert [r.offset for r in decoded.rejected] == list(range(1, 12))
    assert len(decoded.batch.outcomes) == 1 and len(decoded.batch.cluster) == 1
    # Without a wall clock (a backfill of what the topics hold) old records are history.
    later = decode_rows([cases["ancient_timestamp"]])
    assert later.rejected == [] and len(later.batch.outcomes) == 1


def test_an_event_from_the_future_is_rejected_not_folded_in() -> None:
    """A mutated or corrupt log line stamped in 2099 would move the log windows' clock there
    and blank every log signal after it."""
    base = {"type": "full_gc", "broker_id": "1", "pause_s": 12.0}
    rows = [
        log_row("event", None, "full_gc", "1", "gc", 1, 1, event={**base, "event_ms": NOW_MS}),
        log_row("event", None, "full_gc", "1", "gc", 1, 1,
                event={**base, "event_ms": 4_070_908_800_000}),
    ]  # fmt: skip
    decoded = decode_rows(rows, now_ms=NOW_MS)
    assert [e.event_ms for e in decoded.batch.events] == [NOW_MS]
    assert [(r.tag, r.reason) for r in decoded.rejected] == [("event", "future_timestamp")]
    assert sum(c.entries for c in decoded.counts) == 2, "still counted as parsed entries"


def test_an_own_records_text_is_checked_as_written_and_its_numbers_may_be_missing() -> None:
    """A payload is whatever the topic held: a rejected one is dead-lettered as it was."""
    ok = {"schema": RESULT_SCHEMA_ID, "partition": 0, "seq": 1, "send_ms": 5, "outcome": "ok"}
    odd = json.dumps({**ok, "canary_id": "a\x01b\u00e9"}, ensure_ascii=False)
    decoded = decode_rows([
        own_row("outcome", [listed(None, None, odd), listed(2, 40, "not\x01json")]),
    ])  # fmt: skip
    assert [o.canary_id for o in decoded.batch.outcomes] == ["a\x01b\u00e9"]
    assert [(r.partition, r.offset, r.payload) for r in decoded.rejected] == [
        (2, 40, "not\x01json")
    ]


def test_a_rejected_events_payload_is_dead_lettered_as_json() -> None:
    """An event arrives as the object the JVM wrote; one the driver rejects goes to the dead
    letters as that object's JSON, with its coordinates."""
    future = {"type": "full_gc", "broker_id": "1", "event_ms": 10**13, "pause_s": 12.0}
    decoded = decode_rows([log_row("event", None, "full_gc", "1", "gc", 1, 1, event=future)],
                          now_ms=5_000)  # fmt: skip
    [rejected] = decoded.rejected
    assert (rejected.tag, rejected.partition, rejected.offset) == ("event", 0, 0)
    assert json.loads(rejected.payload) == future


def test_the_log_records_newest_shipping_time_is_kept_no_later_than_now() -> None:
    gc = {"type": "full_gc", "broker_id": "1", "event_ms": 5, "pause_s": 12.0}
    rows = [
        (*log_row("event", None, "full_gc", "1", "gc", 1, 1, event=gc), 7_000),
        (*log_row("unrecognized", "no_event", None, "2", "server", 10, 10), 9_000),
        (*record_row("outcome", partition=0), 50_000),  # the canary's: not a log record
    ]
    assert decode_rows(rows).batch.log_shipped_ms == 9_000
    assert decode_rows(rows, now_ms=8_000).batch.log_shipped_ms == 8_000
    assert decode_rows(rows[2:]).batch.log_shipped_ms is None
    assert decode_rows([r[:10] for r in rows]).batch.log_shipped_ms is None


def test_every_field_of_an_event_is_a_column_of_the_parse_and_is_decoded_by_its_name() -> None:
    """EVENT_COLUMNS is LogEvent's fields: each must be a column the parse gives (the job
    selects them by name), and a record's every value must land in the field of its name."""
    assert tuple(f.name for f in fields(LogEvent)) == EVENT_COLUMNS
    parse_columns = {"type", "event_ms", *EVENT_FIELDS}
    assert [c for c in EVENT_COLUMNS if c not in parse_columns] == []
    record: dict[str, Any] = {name: f"{name}-value" for name in EVENT_COLUMNS}  # legal topic
    record["isr_after"] = [1, 2]
    (event,) = decode_rows(
        [log_row("event", None, "x", "1", "server", 1, 1, event=record)]
    ).batch.events
    assert asdict(event) == {**record, "isr_after": (1, 2)}
