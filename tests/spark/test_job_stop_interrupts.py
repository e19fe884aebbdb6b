"""A query stopped while its foreachBatch body waits on a Spark job stops cleanly.

Spark recognises the interruption from the Python side's error message with a regex that
recurses once per character (``kafka_health.job.interruption``); the job's bodies are wrapped
so that the message is a few words, and the stop ends as Spark's own clean "Stopped", with
no traceback in py4j's log."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kafka_health.job.interruption import stop_aware
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.spark]


def test_a_stop_during_a_batch_job_ends_as_stopped_without_an_error(
    spark: Any, tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    started = threading.Event()
    raised: list[BaseException] = []

    def body(batch: Any, batch_id: int) -> None:
        started.set()
        try:
            # A compiled job of minutes on two cores: the stop interrupts its collect. (Not
            # sum(id): ANSI mode fails it on the long's overflow within a second.)
            rows = batch.sparkSession.range(0, 10**12, numPartitions=2)
            rows.selectExpr("sum(id % 2)").collect()
        except BaseException as exc:
            raised.append(exc)
            raise

    query = (
        spark.readStream.format("rate").option("rowsPerSecond", 1).load()
        .writeStream.queryName("stop_interrupts")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .foreachBatch(stop_aware(body))
        .start()
    )  # fmt: skip
    try:
        wait_for(started.is_set, 120, "the batch's Spark job")
        wait_for(
            lambda: raised or spark.sparkContext.statusTracker().getActiveJobsIds(), 60, "its job"
        )
        assert not raised, "the batch's job failed before the stop"
    finally:
        with caplog.at_level("ERROR", logger="py4j"):
            query.stop()
    assert [r for r in caplog.records if r.name.startswith("py4j")] == []
    assert raised, "the stop interrupted the batch's collect"
    assert query.exception() is None
    assert query.status["message"] == "Stopped", query.status
