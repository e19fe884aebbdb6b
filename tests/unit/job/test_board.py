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


def _write_path_row(broker: str, end_s: float, last_send_s: float, successes: int) -> Row:
    from datetime import UTC, datetime

    from kafka_health.job.canary import LEVEL_BROKER

    return Row(
        level=LEVEL_BROKER, broker_id=broker, partition=None,
        window=Row(end=datetime.fromtimestamp(end_s, UTC)), last_send_ms=int(last_send_s * 1000),
        sends=10, successes=successes, errors=["TimeoutException"] * (10 - successes),
        ack_quantiles=[0.01, 0.02, 0.03], ack_max=0.04, append_quantiles=None, append_max=None,
    )  # fmt: skip


def test_values_carry_their_observation_time_and_a_stopped_canary_is_stale() -> None:
    now = [1005.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], stale_after={"canary": 23.0}, live=True)
    board.on_write_path([_write_path_row("1", 1010.0, 1004.5, 8)])
    current = {s.name: s for s in board.signals() if s.labels == labels(broker_id="1")}
    ratio = current["canary_availability_ratio"]
    assert ratio.value == 0.8 and ratio.at == 1004.5, "observed at the newest send, not now"
    stale = {s.name: s for s in board.signals() if s.labels == labels(source="canary")}
    assert stale["signal_stale"].value == 0 and stale["signal_age_seconds"].value == 0.5

    now[0] = 1004.5 + 23.5  # the canary stopped: nothing newer than 1004.5
    names = {s.name for s in board.signals()}
    canary = {"canary_availability_ratio", "canary_sends", "canary_send_failures",
              "canary_ack_latency_seconds"}  # fmt: skip
    assert not names & canary, "unknown: left out, not repeated"
    stale = {s.name: s for s in board.signals() if s.labels == labels(source="canary")}
    assert stale["signal_stale"].value == 1 and stale["signal_age_seconds"].value == 23.5
    assert board.stale() == {"canary"}

    board.on_write_path([_write_path_row("1", 1030.0, 1028.0, 10)])  # it is back
    assert board.stale() == set()
    assert any(s.name == "canary_availability_ratio" for s in board.signals())


def test_a_stale_prober_leaves_the_isr_values_out() -> None:
    now = [1000.0]
    board = SignalBoard(
        JobConfig(), clock=lambda: now[0], stale_after={"cluster_state": 50.0}, live=True
    )
    board.on_isr([Row(kind="broker", leader=1, offline=False, at_ms=999_000), Row(kind="end")])
    isr = [s for s in board.signals() if s.name == "under_replicated_partitions"]
    assert isr and all(s.at == 999.0 for s in isr), "observed at the snapshot's time"
    now[0] = 1050.0
    assert not [s for s in board.signals() if s.name == "under_replicated_partitions"]
    assert board.stale() == {"cluster_state"}


def test_a_source_never_seen_is_not_stale() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: 10_000.0, live=True)
    assert board.stale() == set()
    assert not [s for s in board.signals() if s.name == "signal_stale"]


def test_a_replay_of_past_records_is_not_stale() -> None:
    """Available-now runs (``--once``, tests, backfills) read what the topics hold."""
    board = SignalBoard(JobConfig(), clock=lambda: 10_000.0, stale_after={"canary": 23.0})
    board.on_write_path([_write_path_row("1", 1010.0, 1004.5, 8)])
    assert board.stale() == set()
    assert any(s.name == "canary_availability_ratio" for s in board.signals())
