"""The driver's SignalBoard: batches folded once per id, state saved and resumed."""

from __future__ import annotations

import json

import pytest
from detector_support import batch, broker, by_name, event, failed, ok, part, probe

from kafka_health.config import JobConfig
from kafka_health.detectors.inputs import LogStream
from kafka_health.job.board import SignalBoard, distinct_elections
from kafka_health.model import SIGNALS, labels

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


T0 = 1_700_000_000_000


def busy_batch(shift_ms: int = 0) -> object:
    t = T0 + shift_ms
    return batch(
        outcomes=[ok(0, 1 + shift_ms, t), failed(1, 2 + shift_ms, t, "Timeout", leader=2)],
        probes=[probe(0, 1 + shift_ms, t, offset=shift_ms)],
        cluster=[part(t, "orders", 0, 1, [1]), broker(t, 1)],
        events=[event("full_gc", "1", t, pause_s=12.0),
                event("leader_change", "2", t, topic="orders", partition=1, leader=2,
                      leader_epoch=4)],
        streams=[LogStream("1", "gc", 3)],
    )  # fmt: skip


def test_a_replayed_batch_changes_nothing() -> None:
    now = [1000.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0])
    assert board.fold(7, busy_batch()) is True  # type: ignore[arg-type]
    state, signals = board.state(), board.signals()
    now[0] = 1001.0  # Spark replays batch 7 after a crash, a second later
    assert board.fold(7, busy_batch()) is False  # type: ignore[arg-type]
    assert board.fold(6, busy_batch(5)) is False  # type: ignore[arg-type]
    assert board.state() == state
    now[0] = 1000.0
    assert board.signals() == signals
    assert by_name(signals, "canary_sends")[labels()].value == 2


def test_a_restart_resumes_the_saved_state_and_still_skips_the_saved_batch() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    board.fold(3, busy_batch())  # type: ignore[arg-type]
    saved = json.loads(json.dumps(board.state()))  # through the file's JSON
    resumed = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    resumed.restore(saved)
    assert resumed.batch_id == 3 and resumed.signals() == board.signals()
    assert resumed.fold(3, busy_batch()) is False  # type: ignore[arg-type]
    assert resumed.fold(4, busy_batch(1000)) is True  # type: ignore[arg-type]
    assert by_name(resumed.signals(), "canary_sends")[labels()].value == 4


def test_every_signal_is_in_the_catalogue_with_its_labels() -> None:
    board = SignalBoard(JobConfig(canary_silence_s=1.0), clock=lambda: 1000.0)
    board.fold(0, busy_batch())  # type: ignore[arg-type]
    for s in board.signals():
        spec = SIGNALS[s.name]
        assert set(dict(s.labels)) <= set(spec.labels), s
