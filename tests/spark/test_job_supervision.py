"""Kafka killed under the running job: it stays up, reports the outage, resumes without
double counting."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from kafka_health.config import KafkaClientConfig, MonitorConfig
from kafka_health.job.app import MonitorJob
from kafka_health.model import labels
from tests.spark.test_job_canary_signals import outcome, slot_start
from tests.support.job_support import by_name, create_topics, job_config, produce
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def supervised_config(bootstrap: list[str], tmp_path: Path, **job: Any) -> MonitorConfig:
    """A 1 s trigger, quick restarts, a 10-minute window and results stamped in a 10-minute
    slot, not now (not stale for these tests)."""

    class Under:
        config = MonitorConfig().with_bootstrap(bootstrap)

    config = job_config(
        Under, tmp_path, trigger_interval_s=1.0, restart_backoff_initial_s=1.0,
        window_s=600.0, slide_s=600.0, stale_after_s={"canary": 3600.0}, **job,
    )  # fmt: skip
    create_topics(config, partitions=1)
    return config


def canary_results(
    config: MonitorConfig, base: int, first: int, count: int
) -> list[tuple[bytes, bytes, int]]:
    """Results ``first`` .. ``first + count - 1`` of partition 0, sent from ``base`` (ms)."""
    return [
        (o.key, o.encode(), 0)
        for o in (
            outcome(config.topics.canary, 0, s, base + s) for s in range(first, first + count)
        )
    ]


@contextmanager
def running(spark: Any, config: MonitorConfig) -> Iterator[tuple[MonitorJob, threading.Thread]]:
    """The job in a thread of its own, stopped (as SIGTERM does) when the block ends."""
    job = MonitorJob(spark, config)
    stop = threading.Event()
    runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
    runner.start()
    try:
        yield job, runner
    finally:
        stop.set()
        runner.join(timeout=120)


def sends(job: MonitorJob) -> float:
    found = by_name(job.board.signals(), "canary_sends").get(labels())
    return found.value if found else 0.0


def test_kafka_outage_is_reported_and_counting_resumes_exactly(
    local_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    cluster = local_cluster(brokers=1)
    config = supervised_config(cluster.bootstrap_servers, tmp_path, restart_backoff_max_s=4.0)
    config = dataclasses.replace(
        config,
        kafka=dataclasses.replace(config.kafka, client=KafkaClientConfig(request_timeout_s=5.0)),
    )
    base = slot_start(600.0) + 1000  # one slot for every result of the test
    produce(config, config.topics.canary_results, canary_results(config, base, 0, 100))
    with running(spark, config) as (job, runner):

        def unreachable() -> bool:
            found = by_name(job.health.signals(), "job_kafka_unreachable")
            return found.get(labels(query="monitor")) is not None and (
                found[labels(query="monitor")].value == 1.0
            )

        wait_for(lambda: sends(job) == 100, 180, "the first 100 results")
        cluster.kill_broker(1)
        wait_for(unreachable, 300, "the outage to be reported")
        assert runner.is_alive(), "the job stays up while Kafka is down"
        cluster.start_broker(1)
        produce(config, config.topics.canary_results, canary_results(config, base, 100, 50))
        wait_for(lambda: sends(job) == 150, 300, "counting to resume")
        assert not unreachable()
        time.sleep(3)  # a few more triggers: nothing is counted twice
        assert sends(job) == 150
        assert job.health.query("monitor").restarts_total >= 1
    assert not runner.is_alive(), "SIGTERM-like stop ends the job"


def test_a_full_checkpoint_disk_names_the_disk_and_counting_resumes_when_space_returns(
    local_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    """Issue 15.7: the checkpoint folder on a real tmpfs filled to the last byte. The query
    stops on the refused write; the job reports the disk (``state_write_failing{store=
    "checkpoint"}``, MonitorStateNotWritable), not a bug (MonitorFailed) or Kafka
    (ClusterUnreachable), and stays up; once space returns it restarts the query and counts
    every result once."""
    from tests.support.small_disk import fill, tmpfs

    cluster = local_cluster(brokers=1)
    config = supervised_config(cluster.bootstrap_servers, tmp_path, restart_backoff_max_s=2.0)
    base = slot_start(600.0) + 1000  # one slot for every result of the test
    with tmpfs(Path(config.spark.checkpoint_dir), "64m") as disk:
        produce(config, config.topics.canary_results, canary_results(config, base, 0, 100))
        with running(spark, config) as (job, runner):

            def disk_full() -> Any:
                return by_name(job.health.signals(), "state_write_failing").get(
                    labels(store="checkpoint")
                )

            wait_for(lambda: sends(job) == 100, 180, "the first 100 results")
            filler = fill(disk)
            produce(config, config.topics.canary_results, canary_results(config, base, 100, 50))
            wait_for(lambda: disk_full().value == 1.0, 120, "the full disk to be reported")
            signals = job.health.signals()
            assert "No space left on device" in disk_full().details["error"]
            assert not by_name(signals, "job_query_failed"), "not a bug"
            assert by_name(signals, "job_kafka_unreachable")[labels(query="monitor")].value == 0
            assert runner.is_alive(), "the job stays up while the disk is full"
            filler.unlink()
            wait_for(lambda: sends(job) == 150, 180, "counting to resume once space returns")
            wait_for(lambda: disk_full().value == 0.0, 60, "the disk no longer reported")
            time.sleep(3)  # a few more triggers: nothing is counted twice
            assert sends(job) == 150
    assert not runner.is_alive()
