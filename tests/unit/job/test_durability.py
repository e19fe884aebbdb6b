"""The detectors' state on disk: saved on its schedule, resumed at a start, and each query's
checkpoint rewound to it (files as Spark writes them)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.detector_support import batch

from kafka_health.detectors.config import JobConfig
from kafka_health.job.board import CANARY_QUERY, MONITOR_QUERY, SignalBoard
from kafka_health.job.durability import Durability
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.rejected_counts import RejectedCounts
from kafka_health.job.rewind import logged_batches


def spark_logs(root: Path, batches: range) -> None:
    """A checkpoint whose offset and commit logs hold ``batches``."""
    for log in ("offsets", "commits"):
        (root / log).mkdir(parents=True, exist_ok=True)
        for b in batches:
            (root / log / str(b)).write_text("v1\n{}\n")


def durability(tmp_path: Path, save_interval_s: float = 3600.0) -> Durability:
    monitor = tmp_path / "monitor"
    paths = {MONITOR_QUERY: monitor, CANARY_QUERY: monitor / "canary-query"}
    board = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    return Durability(board, ParseCounts(), RejectedCounts(), paths, save_interval_s)


def fold(d: Durability, batch_id: int, query: str = MONITOR_QUERY) -> None:
    with d.lock:
        d.board.fold(batch_id, batch(), query=query)
    d.save_if_due(query)


def test_a_save_waits_for_its_schedule_and_a_stop_saves_what_is_pending(tmp_path: Path) -> None:
    d = durability(tmp_path)
    fold(d, 0)  # the query's first batch in this process: saved at once
    assert json.loads(d.state_path.read_text())["board"]["batch_ids"] == {MONITOR_QUERY: 0}
    fold(d, 1)
    fold(d, 2)
    saved = json.loads(d.state_path.read_text())["board"]["batch_ids"]
    assert saved == {MONITOR_QUERY: 0}, "not due before the interval"
    d.save_pending()
    assert json.loads(d.state_path.read_text())["board"]["batch_ids"] == {MONITOR_QUERY: 2}


def test_a_start_resumes_the_state_and_rewinds_each_query_to_it(tmp_path: Path) -> None:
    crashed = durability(tmp_path)
    fold(crashed, 0)
    fold(crashed, 0, CANARY_QUERY)
    spark_logs(crashed.checkpoints[MONITOR_QUERY], range(0, 3))  # Spark committed 1-2 too
    spark_logs(crashed.checkpoints[CANARY_QUERY], range(0, 2))

    restarted = durability(tmp_path)
    assert restarted.board.batch_id == -1, "nothing read before resume()"
    restarted.resume()
    assert restarted.board.batch_id == 0
    assert logged_batches(restarted.checkpoints[MONITOR_QUERY], "commits") == [0]
    assert logged_batches(restarted.checkpoints[CANARY_QUERY], "commits") == [0]
    assert not restarted.caught_up(), "batches 1-2 and canary batch 1 are read again"
    fold(restarted, 2)
    fold(restarted, 1, CANARY_QUERY)
    assert restarted.caught_up()


def test_without_a_state_a_start_rewinds_nothing(tmp_path: Path) -> None:
    d = durability(tmp_path)
    spark_logs(d.checkpoints[MONITOR_QUERY], range(0, 3))
    d.resume()
    assert logged_batches(d.checkpoints[MONITOR_QUERY], "commits") == [0, 1, 2]
    assert d.caught_up()


def test_only_a_batch_whose_fold_failed_rewinds_the_query_when_it_starts_again(
    tmp_path: Path,
) -> None:
    d = durability(tmp_path)
    fold(d, 0)
    spark_logs(d.checkpoints[MONITOR_QUERY], range(0, 2))
    d.rewind_unfolded()
    assert logged_batches(d.checkpoints[MONITOR_QUERY], "commits") == [0, 1]
    d.mark_unfolded()  # batch 1 committed by Spark, its fold failed
    d.rewind_unfolded()
    assert logged_batches(d.checkpoints[MONITOR_QUERY], "commits") == [0]
    spark_logs(d.checkpoints[MONITOR_QUERY], range(1, 2))
    d.rewind_unfolded()  # once: the mark is spent
    assert logged_batches(d.checkpoints[MONITOR_QUERY], "commits") == [0, 1]
