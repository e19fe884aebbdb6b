"""The log windows' clock moves with the broker-log records' shipping times, one window behind.

Seen in the fault bench: after two brokers were restarted, "4 leader elections" a minute stayed
on the dashboard for over 300 s, because the brokers then logged no event, only ordinary lines,
and the windows' clock moved only with events. Timelines on the board, without Spark."""

from __future__ import annotations

from typing import Any

from tests.support.detector_support import batch, by_name, event

from kafka_health.config import JobConfig
from kafka_health.detectors.inputs import LogStream
from kafka_health.job.board import SignalBoard
from kafka_health.model import labels

T0 = 1_796_000_000_000
WINDOW_MS = 60_000


def elections(at_ms: int, shipped_ms: int | None) -> Any:
    """A batch with two elections led by broker 2, logged at ``at_ms``."""
    return batch(
        events=[
            event("leader_change", "2", at_ms, topic="t", partition=p, leader=2, leader_epoch=9)
            for p in (0, 1)
        ],
        streams=[LogStream("2", "state-change", 2)],
        log_shipped_ms=shipped_ms,
    )


def ordinary_lines(shipped_ms: int | None) -> Any:
    """A batch of ordinary lines only: no event; shipped up to ``shipped_ms``."""
    return batch(streams=[LogStream("2", "server", 40)], log_shipped_ms=shipped_ms)


def rate(board: SignalBoard, broker: str = "2") -> float:
    signal = by_name(board.signals(), "leader_elections_per_minute").get(labels(broker_id=broker))
    return signal.value if signal is not None else 0.0


def timeline(board: SignalBoard, until_ms: int, shipped: bool) -> list[tuple[int, float]]:
    """Ordinary lines every 2 s from T0 to ``until_ms``; the rate seen after each batch."""
    seen, batch_id = [], 1
    for at in range(T0 + 2000, until_ms + 1, 2000):
        board.fold(batch_id, ordinary_lines(at if shipped else None), now=at / 1000.0)
        seen.append((at - T0, rate(board)))
        batch_id += 1
    return seen


def test_a_windows_count_leaves_once_the_logs_have_moved_on_two_windows() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: T0 / 1000.0)
    board.fold(0, elections(T0, T0 + 300), now=T0 / 1000.0)
    assert rate(board) == 2.0
    seen = dict(timeline(board, T0 + 300_000, shipped=True))
    assert seen[100_000] == 2.0  # held: the clock is one window behind the shipping
    assert seen[130_000] == 0.0  # gone within two windows and a slide
    assert max(at for at, value in seen.items() if value) < 2 * WINDOW_MS + 10_000


def test_silent_streams_move_nothing() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: T0 / 1000.0)
    board.fold(0, elections(T0, T0 + 300), now=T0 / 1000.0)
    seen = timeline(board, T0 + 300_000, shipped=False)
    assert {value for _, value in seen} == {2.0}  # no record, no clock: a silence


def test_a_shippers_backlog_up_to_a_window_late_still_counts() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: T0 / 1000.0)
    board.fold(0, ordinary_lines(T0 + 55_000), now=T0 / 1000.0 + 55)
    board.fold(1, elections(T0, T0 + 55_000), now=T0 / 1000.0 + 55)  # shipped 55 s late
    assert rate(board) == 2.0


def test_a_replay_without_shipping_times_is_unchanged() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: T0 / 1000.0)
    board.fold(0, elections(T0, None), now=T0 / 1000.0)
    board.fold(1, ordinary_lines(None), now=T0 / 1000.0 + 500)
    assert rate(board) == 2.0
