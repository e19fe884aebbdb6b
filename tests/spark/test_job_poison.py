"""Records built to break the parser, sent to the running job on real Kafka and Spark: they
are dead-lettered with their reasons and offsets, the good records around them keep their
signals, and no query restarts because of them."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from kafka_health.dev.log_lines import gc_stamp
from kafka_health.job import app, batch
from kafka_health.job.app import MonitorJob
from kafka_health.kafka_clients import python_client_options
from kafka_health.model import labels
from kafka_health.parsing.hostile import huge_lines
from tests.spark.test_job_log_signals import entry
from tests.spark.test_parsing_hostile import nested_json
from tests.support.job_support import by_name, job_config
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]

PILL = b"kafka-health-test: fails the parse's Spark task"
BIG = 16 * 1_048_576  # the broker-log topic takes the 10 MB record


def gc_line(at_ms: int, gc_id: int) -> tuple[bytes, bytes, int]:
    return entry(
        1, "gc", f"[{gc_stamp(at_ms)}][43.803s][info][gc             ] GC({gc_id}) Pause Full "
        "(G1 Compaction Pause) 450M->280M(512M) 1390.000ms",
    )  # fmt: skip


def parse_that_fails_on_the_pill(real: Any) -> Any:
    """The job's parse, plus a task failure on any record holding :data:`PILL`: a stand-in
    for a record that breaks the parse (none known is left), raised by Spark's own
    ``raise_error`` inside the generated code, where such a failure would happen."""

    def monitor_records(source: Any, config: Any) -> Any:
        from pyspark.sql import functions as F

        # On the source's value: past the triggers' stage an ordinary line's raw value is no
        # longer carried (parse_records' values_for_dead_letters_only).
        pill = F.col("value").cast("string").contains(PILL.decode())
        failing = F.raise_error(F.lit("poison pill")).cast("binary")
        return real(
            source.withColumn("value", F.when(pill, failing).otherwise(F.col("value"))), config
        )

    return monitor_records


def test_poison_records_are_dead_lettered_by_the_running_job(
    kafka_cluster: Any, spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # app's monitor_records: the one it imports from job.batch
    monkeypatch.setattr(app, "monitor_records", parse_that_fails_on_the_pill(batch.monitor_records))
    config = job_config(kafka_cluster, tmp_path, trigger_interval_s=1.0)
    options = python_client_options(config.kafka)
    admin = KafkaAdminClient(**options)
    try:
        names = [getattr(config.topics, f.name) for f in dataclasses.fields(config.topics)]
        admin.create_topics(
            [NewTopic(n, 1, 1, topic_configs={"max.message.bytes": str(BIG)}) for n in names]
        )
    finally:
        admin.close()
    producer = KafkaProducer(acks="all", max_request_size=BIG, **options)

    def send(records: list[tuple[bytes | None, bytes, int]]) -> list[int]:
        futures = [
            producer.send(config.topics.broker_logs, key=k, value=v, partition=p)
            for k, v, p in records
        ]
        producer.flush()
        return [f.get(timeout=30).offset for f in futures]

    now = int(time.time() * 1000)
    job = MonitorJob(spark, config)
    stop = threading.Event()
    runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
    try:
        send([gc_line(now - 3000, 1), gc_line(now - 2900, 2)])
        runner.start()

        def full_gcs() -> float:
            found = by_name(job.board.signals(), "full_gc_count").get(labels(broker_id=1))
            return found.value if found else 0.0

        wait_for(lambda: full_gcs() == 2, 180, "the first two Full GCs")
        poison = {
            "not_utf8": b"[2019-05-15 22:20:14,399] INFO \xc3\x28\xff Shrinking ISR",
            "bad_json": nested_json(10_000),
            "oversize": b"x" * (10 * 1_048_576),
            "parse_failed": b"[2019-05-15 22:20:14,399] INFO " + PILL,
        }
        huge = [(b"1", line, 0) for line in huge_lines()]
        offsets = send([*huge, *((b"1", v, 0) for v in poison.values()), gc_line(now - 2000, 3)])
        expected = dict(zip(poison, offsets[len(huge) : len(huge) + len(poison)], strict=True))
        wait_for(lambda: full_gcs() == 3, 300, "the Full GC after the poison")
        monitor = job.health.query("monitor")
        assert monitor.restarts_total == 0 and monitor.terminations_total == 0
        assert monitor.quarantined_records_total == 1

        counts = job.parse_counts.totals()
        assert counts[("unrecognised", "parse_failed", "")] == 1
        for reason in ("not_utf8", "bad_json", "oversize"):
            assert counts[("unrecognised", reason, "")] >= 1, (reason, counts)
    finally:
        stop.set()
        runner.join(timeout=120)
        producer.close()

    consumer = KafkaConsumer(
        config.topics.dead_letter, auto_offset_reset="earliest", consumer_timeout_ms=10_000,
        fetch_max_bytes=BIG, max_partition_fetch_bytes=BIG, **options,
    )  # fmt: skip
    letters = {json.loads(m.value)["source_offset"]: json.loads(m.value) for m in consumer}
    consumer.close()
    for reason, offset in expected.items():
        assert letters[offset]["reason"] == reason, (reason, letters.get(offset))
        assert letters[offset]["source_topic"] == config.topics.broker_logs
    pill = letters[expected["parse_failed"]]
    assert pill["file"].startswith("error: ") and pill["value_bytes"] == len(poison["parse_failed"])
    assert not runner.is_alive()
