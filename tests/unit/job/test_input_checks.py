"""Untrusted values checked at the door (issue 55, item 4): broker ids, partitions, acks, error
classes, topic names and free text of the canary's outcomes and probes, the prober's records
and the parsed events; the rejections counted by a fixed set of reasons, and a signal of the
recent ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kafka_health.canary.prober import ProbeDeadlineExceeded
from kafka_health.detectors.coverage import LOGGED_KINDS
from kafka_health.detectors.write_path import NOT_LEADER_ERRORS, WAIT_ERRORS
from kafka_health.failures import classify
from kafka_health.job.batch import Rejected, decode_rows
from kafka_health.job.own_records import (
    ERROR_CLASSES,
    OTHER_ERROR,
    REJECT_REASONS,
    TEXT_MAX_CHARS,
    check,
    check_event,
    check_probe,
    json_loads,
)
from kafka_health.job.rejected_counts import REJECTED_SIGNAL, RejectedCounts
from kafka_health.job.schemas import CLUSTER_STATE_SCHEMA_ID, RESULT_SCHEMA_ID
from kafka_health.model import SIGNALS, labels
from kafka_health.parsing.envelope import LOG_KINDS
from kafka_health.shipper.envelope import KINDS as SHIPPER_KINDS

REPO = Path(__file__).resolve().parents[3]
INT32_MAX = 2_147_483_647
OUTCOME: dict[str, Any] = {
    "schema": RESULT_SCHEMA_ID, "canary_id": "c", "partition": 0, "seq": 1, "acks": "all",
    "send_ms": 1000, "done_ms": 1010, "outcome": "ok", "latency_s": 0.01, "leader": 1,
}  # fmt: skip
PARTITION: dict[str, Any] = {
    "schema": CLUSTER_STATE_SCHEMA_ID, "kind": "partition", "snapshot_ms": 1000,
    "topic": "orders", "partition": 0, "leader": 1, "leader_epoch": 3, "replicas": [1, 2, 3],
    "isr": [1, 2], "min_isr": 2,
}  # fmt: skip
BROKER: dict[str, Any] = {
    "schema": CLUSTER_STATE_SCHEMA_ID, "kind": "broker", "snapshot_ms": 1000, "broker_id": 1,
    "live": True,
}  # fmt: skip


def outcome(**changes: Any) -> str:
    return json.dumps({**OUTCOME, **changes})


def cluster(base: dict[str, Any], **changes: Any) -> str:
    return json.dumps({**base, **changes})


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}', '{"a": 1e400}', '{"a": -1e400}', '{"a": NaN}', '{"a": Infinity}',
        '{"a": -Infinity}', '{"a": -0}', '{"a": 0.1e1}', '{"a": 1.0}',
        '{"a": 18446744073709551615}',
        '{"a": 18446744073709551616}', '{"a": -9223372036854775808}', '{"a": -9223372036854775809}',
        '{"a": 1000000000000000000000000000000}', '{"a": 1e5, "b": [1, 2.5, -3]}',
        '{"a": 12345678901234567890.5}', '{"a": "\\ud800"}', '{"a": "\\ud83d\\ude00"}',
        '{"a": "\\u0000"}', ' {"a": 1} ', '{"a": 1}x', '\ufeff{"a": 1}', "[1]", "", "{",
        '{"a": tru}', '{"a": "\x01"}', '{"a": "ok", "b": null, "c": true, "d": {"e": []}}',
    ],
)  # fmt: skip
def test_own_records_are_read_as_json_reads_them(text: str) -> None:
    """``json_loads`` (orjson where it reads alike) gives what ``json.loads`` gives: the same
    value and types, or a ValueError where it fails."""
    try:
        want: Any = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            json_loads(text)
        return
    got = json_loads(text)
    assert repr(got) == repr(want)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (outcome(), ""),
        (outcome(partition=INT32_MAX, leader=INT32_MAX, acks="1"), ""),
        (outcome(acks="0", leader=None), ""),
        (outcome(partition=-1), "bad_partition"),
        (outcome(partition=INT32_MAX + 1), "bad_partition"),
        (outcome(leader=-1), "bad_broker_id"),
        (outcome(leader=INT32_MAX + 1), "bad_broker_id"),
        (outcome(leader=10**30), "bad_broker_id"),
        (outcome(acks="2"), "bad_acks"),
        (outcome(acks="ALL"), "bad_acks"),
        (outcome(acks="-1"), "bad_acks"),
        (outcome(acks="x" * 10_000), "bad_acks"),
        (outcome(canary_id="c" * TEXT_MAX_CHARS), ""),
        (outcome(canary_id="c" * (TEXT_MAX_CHARS + 1)), "too_long"),
    ],
)
def test_a_canary_outcome_is_checked_value_by_value(payload: str, reason: str) -> None:
    record, why = check("outcome", payload)
    assert why == reason
    assert (record is None) == bool(reason)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (cluster(PARTITION), ""),
        (cluster(PARTITION, topic="a" * 249), ""),
        (cluster(PARTITION, topic="__consumer_offsets"), ""),
        (cluster(PARTITION, topic="My.topic_1-x"), ""),
        (cluster(PARTITION, leader=-1, isr=[]), ""),  # no leader: the prober writes -1
        (cluster(PARTITION, topic="a" * 250), "bad_topic"),
        (cluster(PARTITION, topic=""), "bad_topic"),
        (cluster(PARTITION, topic="."), "bad_topic"),
        (cluster(PARTITION, topic=".."), "bad_topic"),
        (cluster(PARTITION, topic="has space"), "bad_topic"),
        (cluster(PARTITION, topic="ümlaut"), "bad_topic"),
        (cluster(PARTITION, topic="<!channel>"), "bad_topic"),
        (cluster(PARTITION, partition=-1), "bad_partition"),
        (cluster(PARTITION, leader=-2), "bad_broker_id"),
        (cluster(PARTITION, leader=INT32_MAX + 1), "bad_broker_id"),
        (cluster(PARTITION, replicas=[1, INT32_MAX + 1]), "bad_broker_id"),
        (cluster(PARTITION, isr=[-1]), "bad_broker_id"),
        (cluster(BROKER), ""),
        (cluster(BROKER, broker_id=INT32_MAX), ""),
        (cluster(BROKER, broker_id=-1), "bad_broker_id"),
        (cluster(BROKER, broker_id=INT32_MAX + 1), "bad_broker_id"),
    ],
)
def test_a_cluster_state_record_is_checked_value_by_value(payload: str, reason: str) -> None:
    record, why = check("cluster", payload)
    assert why == reason
    assert (record is None) == bool(reason)


@pytest.mark.parametrize(
    ("error", "kept"),
    [
        ("NotEnoughReplicas", "NotEnoughReplicas"),
        ("NotEnoughReplicasException", "NotEnoughReplicasException"),
        ("NotLeaderForPartitionError", "NotLeaderForPartitionError"),
        ("KafkaTimeoutError", "KafkaTimeoutError"),
        ("Timeout", "Timeout"),
        (None, None),
        ("NotEnoughReplicas ", OTHER_ERROR),
        ("<!channel>", OTHER_ERROR),
        ("x" * 100_000, OTHER_ERROR),
        ("", OTHER_ERROR),
    ],
)
def test_an_error_class_outside_the_vocabulary_is_other_and_the_outcome_kept(
    error: str | None, kept: str | None
) -> None:
    record, why = check("outcome", outcome(outcome="failed", error=error))
    assert why == "" and record is not None
    assert record.get("error") == kept
    decoded = decode_rows([("outcome", outcome(outcome="failed", error=error))])
    assert [o.error for o in decoded.batch.outcomes] == [kept]


def test_the_vocabulary_holds_every_class_the_canary_and_the_rules_name() -> None:
    """The canary's own classes (a probe past its deadline is Timeout), the detectors' sets
    and every error class conf/alerts.yaml matches on are kept as they are."""
    assert classify(ProbeDeadlineExceeded("late")) in ERROR_CLASSES
    assert WAIT_ERRORS <= ERROR_CLASSES
    assert NOT_LEADER_ERRORS <= ERROR_CLASSES
    rules = yaml.safe_load((REPO / "conf" / "alerts.yaml").read_text())
    named: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "error_class" and isinstance(value, list):
                    named.update(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(rules)
    assert len(named) > 10, "the walk found the rules' error classes"
    assert named <= ERROR_CLASSES, named - ERROR_CLASSES
    assert OTHER_ERROR not in ERROR_CLASSES
    assert all(len(name) <= 100 for name in ERROR_CLASSES), "a bounded label value"


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ({"type": "isr_shrink", "topic": "orders", "partition": 1}, ""),
        ({"type": "isr_shrink", "topic": None, "partition": 1}, ""),
        ({"type": "isr_shrink", "topic": "o" * 250, "partition": 1}, "bad_topic"),
        ({"type": "isr_shrink", "topic": "a,b]", "partition": 1}, "bad_topic"),
        ({"type": "isr_shrink", "topic": "x" * 16_000, "partition": 1}, "bad_topic"),
    ],
)
def test_an_events_topic_is_a_legal_name(event: dict[str, Any], reason: str) -> None:
    assert check_event(event, None) == reason


@pytest.mark.parametrize(
    ("probe", "reason"),
    [
        ({"canary_id": "c", "partition": 0, "seq": 1, "acks": "all", "send_ms": 5}, ""),
        ({"canary_id": "c", "partition": 0, "seq": 1, "acks": "7", "send_ms": 5}, "bad_acks"),
        ({"canary_id": "c", "partition": -3, "seq": 1, "acks": "1", "send_ms": 5},
         "bad_partition"),
        ({"canary_id": "c" * 1000, "partition": 0, "seq": 1, "acks": "1", "send_ms": 5},
         "too_long"),
    ],
)  # fmt: skip
def test_a_probe_read_back_is_checked_as_an_outcome(probe: dict[str, Any], reason: str) -> None:
    assert check_probe(dict(probe)) == reason
    decoded = decode_rows([("probe", json.dumps({**probe, "offset": 3}))])
    assert len(decoded.batch.probes) == (0 if reason else 1)
    assert [(r.tag, r.reason) for r in decoded.rejected] == ([("probe", reason)] if reason else [])


def test_the_reasons_are_a_fixed_set() -> None:
    """Every reason the checks give is one of REJECT_REASONS (the label's whole vocabulary)."""
    given = {
        check("outcome", outcome(acks="9"))[1], check("outcome", outcome(partition=-1))[1],
        check("outcome", outcome(leader=-5))[1], check("outcome", outcome(canary_id="c" * 999))[1],
        check("cluster", cluster(PARTITION, topic="a b"))[1],
        check_event({"topic": "a b"}, None),
    }  # fmt: skip
    assert given == {"bad_acks", "bad_partition", "bad_broker_id", "too_long", "bad_topic"}
    assert given <= set(REJECT_REASONS)
    assert "bad_broker_id" in REJECT_REASONS, "the plan's reason for a log record (envelope)"
    assert len(REJECT_REASONS) == len(set(REJECT_REASONS))


def test_log_kinds_are_the_shippers() -> None:
    assert set(LOG_KINDS) == set(SHIPPER_KINDS)
    assert set(LOGGED_KINDS) <= set(LOG_KINDS)


def test_log_records_the_plan_rejected_are_counted_not_streams() -> None:
    """A group of broker-log records the plan rejected (bad_reason bad_broker_id) is counted
    as parsed entries and as rejections; it names no broker, so it makes no stream."""
    rows: list[tuple[object, ...]] = [
        (None, "unrecognised", "bad_broker_id", None, None, None, 40_000, 40_000, 40_000, []),
        (None, "unrecognised", "no_event", None, "1", "server", 7, 7, 0, []),
    ]
    decoded = decode_rows(rows)
    assert decoded.log_rejected == {"bad_broker_id": 40_000}
    assert [(s.broker_id, s.kind) for s in decoded.batch.streams] == [("1", "server")]
    assert sum(c.entries for c in decoded.counts) == 40_007
    assert decoded.rejected == [], "dead-lettered by the parse's letters, not the driver's"


def test_rejected_counts_total_by_source_and_reason_and_signal_the_recent_ones() -> None:
    now = [1000.0]
    counts = RejectedCounts(clock=lambda: now[0], recent_s=300.0)
    counts.add(
        [Rejected("outcome", "bad_acks", 0, 1, "{}"), Rejected("cluster", "bad_topic", 0, 2, "")],
        {"bad_broker_id": 40_000},
    )
    now[0] = 1200.0
    counts.add(
        [Rejected("outcome", "bad_acks", 0, 3, "{}"), Rejected("probe", "too_long", 0, 4, "")]
    )
    assert counts.totals() == {
        ("canary_results", "bad_acks"): 2, ("cluster_state", "bad_topic"): 1,
        ("broker_logs", "bad_broker_id"): 40_000, ("canary_topic", "too_long"): 1,
    }  # fmt: skip
    signals = {s.labels: s.value for s in counts.signals()}
    assert signals[labels(source="broker_logs", reason="bad_broker_id")] == 40_000
    assert signals[labels(source="canary_results", reason="bad_acks")] == 2
    assert all(s.name == REJECTED_SIGNAL for s in counts.signals())
    assert set(SIGNALS[REJECTED_SIGNAL].labels) == {"source", "reason"}
    now[0] = 1450.0  # the first batch is more than 300 s old
    signals = {s.labels: s.value for s in counts.signals()}
    assert signals == {
        labels(source="canary_results", reason="bad_acks"): 1,
        labels(source="canary_topic", reason="too_long"): 1,
    }
    now[0] = 2000.0
    assert counts.signals() == [], "none left: the alert can resolve"
    assert sum(counts.totals().values()) == 40_004, "the totals stay"
