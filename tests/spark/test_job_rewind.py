"""A crash between two saves of the detector state, on real Kafka and Spark: the restarted
job rewinds the checkpoint to the batch the state holds and reads the batches after it again,
so every event is folded in once (not lost, not twice), and no dead letter is sent twice."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from kafka_health.job.app import MonitorJob
from kafka_health.job.rewind import logged_batches
from kafka_health.model import Signal, labels
from tests.spark.test_job_poison import gc_line
from tests.support.job_support import by_name, create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def full_gcs(job: MonitorJob) -> float:
    return float(by_name(job.board.signals(), "full_gc_count")[labels(broker_id=1)].value)


class RecordingSink:
    """The job's publications: (whether a full snapshot, broker 1's Full GC count)."""

    def __init__(self) -> None:
        self.told: list[tuple[bool, float]] = []

    def publish(self, signals: list[Signal], snapshot: bool = True) -> None:
        self.told.append((snapshot, by_name(signals, "full_gc_count")[labels(broker_id=1)].value))


def six_pauses_two_a_batch(kafka_cluster: Any, tmp_path: Path) -> Any:
    """A job's config reading two records a batch, with a save at its first batch and then
    not for an hour; six Full GC lines of broker 1 in its broker-log topic."""
    config = job_config(
        kafka_cluster, tmp_path, max_offsets_per_trigger=2, state_save_interval_s=3600.0
    )
    create_topics(config, partitions=1)
    t0 = int(time.time() * 1000) - 10_000
    produce(config, config.topics.broker_logs, [gc_line(t0 + i, i) for i in range(6)])
    return config


def test_batches_committed_after_the_last_save_are_read_again_after_a_crash(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = six_pauses_two_a_batch(kafka_cluster, tmp_path)

    crashed = MonitorJob(spark, config)
    crashed._save_pending = lambda: None  # type: ignore[method-assign]  # killed: no stop save
    crashed.run_available_now()
    assert full_gcs(crashed) == 6
    assert logged_batches(crashed.checkpoint, "commits") == [0, 1, 2]

    sink = RecordingSink()
    restarted = MonitorJob(spark, config, [sink])
    restarted.start()  # the state of batch 0; batches 1-2 rewound
    assert restarted.board.batch_id == 0
    assert logged_batches(restarted.checkpoint, "commits") == [0]
    assert full_gcs(restarted) == 2
    restarted.publish()
    restarted.run_available_now()
    assert full_gcs(restarted) == 6, "the 4 pauses after the save folded in once"
    # Behind what it had published before the crash, the job publishes updates (a series its
    # older state lacks is not removed from the alert service) until batch 2 is folded again.
    # (Spark's progress reports publish too: the count of a publication is what is asserted.)
    assert sink.told[0] == (False, 2.0) and sink.told[-1] == (True, 6.0)
    assert all(not whole for whole, count in sink.told if count < 6), sink.told
    assert restarted.board.batch_id == logged_batches(restarted.checkpoint, "commits")[-1]

    stopped = MonitorJob(spark, config)
    stopped.start()  # the stop saved everything: nothing to rewind
    assert stopped.board.batch_id == restarted.board.batch_id
    assert full_gcs(stopped) == 6


def test_a_batch_whose_fold_failed_is_read_again_when_its_query_starts_again(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    # The fold runs after Spark committed the batch (job/fold_worker): a failed fold must not
    # lose the batch. Batch 1's fold fails once (a full disk, say).
    config = six_pauses_two_a_batch(kafka_cluster, tmp_path)

    job = MonitorJob(spark, config)
    fold = job.board.fold
    failed: list[int] = []

    def fold_failing_once(batch_id: int, batch: Any, *args: Any, **kwargs: Any) -> bool:
        if batch_id == 1 and not failed:
            failed.append(batch_id)
            raise OSError(28, "No space left on device")
        return fold(batch_id, batch, *args, **kwargs)

    job.board.fold = fold_failing_once  # type: ignore[method-assign]
    with pytest.raises(Exception, match="No space left on device"):
        job.run_available_now()
    assert failed == [1]
    assert job.board.batch_id == 0 and full_gcs(job) == 2, "batch 0 folded, batch 1 not"
    assert 1 in logged_batches(job.checkpoint, "commits"), "Spark committed batch 1 anyway"

    job.run_available_now()  # the query started again, as the supervisor starts it
    assert full_gcs(job) == 6, "batch 1's pauses read again and folded in once"
    assert job.board.batch_id == logged_batches(job.checkpoint, "commits")[-1]


def test_a_batch_read_again_after_a_crash_sends_no_dead_letter_twice(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    # Two records a batch, a save at batch 0 only: a Full GC line and a record of binary
    # garbage (a dead letter) in each of batches 0-2. After the crash batches 1-2 are read
    # again; their dead letters were sent before it (job/sent_letters).
    config = job_config(
        kafka_cluster, tmp_path, max_offsets_per_trigger=2, state_save_interval_s=3600.0
    )
    create_topics(config, partitions=1)
    t0 = int(time.time() * 1000) - 10_000
    records = []
    for i in range(3):
        records += [gc_line(t0 + i, i), (b"1", b"\x00\x01\x02 not a log line %d" % i, 0)]
    produce(config, config.topics.broker_logs, records)

    crashed = MonitorJob(spark, config)
    crashed._save_pending = lambda: None  # type: ignore[method-assign]  # killed: no stop save
    crashed.run_available_now()
    assert dead_letter_offsets(config) == [1, 3, 5]

    restarted = MonitorJob(spark, config)
    restarted.start()
    assert logged_batches(restarted.checkpoint, "commits") == [0], "batches 1-2 rewound"
    restarted.run_available_now()
    assert full_gcs(restarted) == 3, "batches 1-2 read again"
    assert dead_letter_offsets(config) == [1, 3, 5], "each dead letter sent once"

    # A record dead-lettered after the replay is sent: the log holds back only what was sent.
    produce(config, config.topics.broker_logs, [(b"1", b"\x00 garbage after the crash", 0)])
    restarted.run_available_now()
    assert dead_letter_offsets(config) == [1, 3, 5, 6]


def dead_letter_offsets(config: Any) -> list[int]:
    """The source offsets of every record in the dead-letter topic, in its order."""
    from kafka import KafkaConsumer

    from kafka_health.kafka_clients import python_client_options

    consumer = KafkaConsumer(
        config.topics.dead_letter, auto_offset_reset="earliest", consumer_timeout_ms=5_000,
        **python_client_options(config.kafka),
    )  # fmt: skip
    try:
        return [json.loads(m.value)["source_offset"] for m in consumer]
    finally:
        consumer.close()
