"""The driver's SignalBoard: rows in, signals out (pure Python, injected clock)."""

from __future__ import annotations

from types import SimpleNamespace as Row

import pytest

from kafka_health.config import JobConfig
from kafka_health.job.board import LOG_STREAM, SignalBoard, distinct_elections
from kafka_health.model import labels

# (case, reports (topic, partition, epoch, leader), expected {election: leader}, why)
ELECTIONS = [
    ("one report", [("t", 0, 5, 2)], {("t", 0, 5, None): 2}, "the simple case"),
    (
        "three logs, one election",
        [("t", 0, 5, None), ("t", 0, 5, 2), ("t", 0, None, 2)],
        {("t", 0, 5, None): 2},
        "epoch cache (no leader), leader line and the controller's epoch-less line agree",
    ),
    (
        "two epochs are two elections",
        [("t", 0, 5, 2), ("t", 0, 6, 3)],
        {("t", 0, 5, None): 2, ("t", 0, 6, None): 3},
        "a storm is many epochs",
    ),
    (
        "epoch-less report of another leader",
        [("t", 0, 5, 2), ("t", 0, None, 3)],
        {("t", 0, 5, None): 2, ("t", 0, None, 3): 3},
        "a different new leader is a different election",
    ),
    (
        "leader learned from a later report",
        [("t", 1, 7, None), ("t", 1, 7, 1)],
        {("t", 1, 7, None): 1},
        "the first report with a leader names it",
    ),
]


@pytest.mark.parametrize(
    ("case", "reports", "expected", "why"), ELECTIONS, ids=[c[0] for c in ELECTIONS]
)
def test_distinct_elections(case: str, reports: list, expected: dict, why: str) -> None:  # type: ignore[type-arg]
    assert distinct_elections(reports) == expected, why


def test_live_broker_without_any_log_is_reported_blind() -> None:
    now = [1000.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0])
    board.on_isr([Row(kind="broker", leader=b, offline=False) for b in (1, 2)] + [Row(kind="end")])
    board.on_deadlines(
        [
            Row(scope=LOG_STREAM, id=f"1/{kind}", state="armed", last_seen_ms=999_000,
                changed_ms=999_000, attr=None)
            for kind in ("server", "controller", "state-change", "gc")
        ]
    )  # fmt: skip
    now[0] = 1400.0  # a later snapshot still lists both brokers live
    board.on_isr([Row(kind="broker", leader=b, offline=False) for b in (1, 2)] + [Row(kind="end")])
    ages = {s.labels: s for s in board.signals() if s.name == "log_stream_age_seconds"}
    assert ages[labels(broker_id=1, kind="server")].value == pytest.approx(401.0)
    never = ages[labels(broker_id=2, kind="gc")]
    assert never.value == pytest.approx(400.0) and never.details["state"] == "never"
    assert labels(broker_id=2, kind="server") in ages


def test_dead_broker_is_not_reported_blind() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    board.on_isr([Row(kind="broker", leader=3, offline=True), Row(kind="end")])
    assert not [s for s in board.signals() if s.name == "log_stream_age_seconds"]
