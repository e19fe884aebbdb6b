"""``kafka-health parse`` on the Kafka 2.0 follower's log (tests/fixtures/logs/heldout): the
same events through Spark's Java regexes as the reference parser finds
(``tests/unit/parsing/test_heldout_kafka20.py``), with their fields converted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cli import main

pytestmark = pytest.mark.spark

LOG = (
    Path(__file__).parents[1]
    / "fixtures"
    / "logs"
    / "heldout"
    / "server-2.0-follower-partitioned.log"
)

# (line, type, fields of the event that must be as given)
EXPECTED: list[tuple[int, str, dict[str, Any]]] = [
    (24, "leader_change", {"topic": "orders", "partition": 0, "leader_epoch": 7}),
    (28, "not_leader", {"topic": "orders", "partition": 3}),
    (33, "isr_shrink", {"topic": "orders", "partition": 2, "isr_before": [1, 2, 3],
                        "isr_after": [1, 3]}),
    (34, "isr_expand", {"topic": "orders", "partition": 0, "isr_after": [1, 3, 2]}),
    (35, "isr_expand", {"topic": "orders", "partition": 2, "isr_after": [1, 3, 2]}),
    (36, "not_leader", {"topic": "orders", "partition": 3}),
    (40, "zk_disconnected", {"session_id": "0x2670a3b3b7a0002"}),
    (42, "isr_shrink", {"topic": "orders", "partition": 2, "isr_after": [1]}),
    (43, "zk_session_expired", {"session_id": "0x2670a3b3b7a0002"}),
    (45, "zk_session_expired", {}),
    (47, "isr_update_failed", {"topic": "orders", "partition": 2}),
    (53, "shutdown_signal", {}),
    (57, "controlled_shutdown", {"subject_broker_id": 1}),
    (92, "broker_started", {"subject_broker_id": 1}),
    (96, "leader_change", {"topic": "orders", "partition": 2, "leader_epoch": 10}),
]  # fmt: skip


def test_parse_finds_the_follower_events_and_no_other(
    spark: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["parse", "--broker-id", "1", str(LOG)])
    out, _ = capsys.readouterr()
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert [(e["line"], e["type"]) for e in events] == [(n, t) for n, t, _ in EXPECTED]
    for event, (line, _, fields) in zip(events, EXPECTED, strict=True):
        assert {k: event.get(k) for k in fields} == fields, line
        assert event["broker_id"] == "1"
        assert event["ts"].startswith("2018-11-14T")


def test_summary_has_no_malformed_line(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Every line is an event line, a continuation or an ordinary line: none is a wording the
    parser half knows (malformed), and the lines add up."""
    code = main(["parse", "--summary", str(LOG)])
    out, _ = capsys.readouterr()
    assert code == 0
    summary = json.loads(out)
    assert summary["lines"] == len(LOG.read_text().splitlines())
    assert summary["malformed"] == 0
    assert summary["entries"] == 93  # 117 lines, 24 of them frames and exception lines
    assert summary["not_leader"] == 2 and summary["controlled_shutdown"] == 1
    assert summary["shutdown_signal"] == 1
