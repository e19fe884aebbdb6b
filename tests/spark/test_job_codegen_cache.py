"""A warm job compiles no generated code per batch (issue 12: idle CPU).

Each micro-batch plans and generates its code again; Spark compiles only the classes its code
cache does not hold. With Spark's default cache (100 classes in 4 segments of 25) the job's 85
classes fitted in some runs and not in others (which segment a class lands in depends on its
generated source), and then every batch compiled again what the one before had evicted: 28 %
of the job's CPU at idle in one run. Run on real Kafka and Spark with mixed traffic, read back
through the job's own ``kafka_health_job_codegen_compiles_total`` reader; with a cache of 40
(segments of 10) it fails.

Nor does it build and check the parser's table again: ``foreachBatch`` hands each batch a new
Python session object, and the table's cache was keyed by that object's id (40 ms of Python
and the jar's check, and a 54 KB text kept, every batch)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer

from kafka_health.config import MonitorConfig
from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic
from kafka_health.job.codegen import driver_compiles
from kafka_health.kafka_clients import python_client_options
from kafka_health.parsing import udf
from kafka_health.parsing.udf_spec import parser_spec
from tests.spark.test_job_supervision import running
from tests.support.job_support import create_topics, job_config
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def send_round(config: MonitorConfig, traffic: Traffic) -> None:
    """A round of every kind of record the job reads: log lines of an election storm (ISR
    changes, elections, GC lines, ordinary lines), canary results and a cluster snapshot."""
    now = int(time.time() * 1000)
    records = [
        *traffic.log_records(now, 300, storm=True),
        *traffic.canary_results(now),
        *traffic.cluster_snapshot(now),
    ]
    producer = KafkaProducer(acks="all", linger_ms=5, **python_client_options(config.kafka))
    try:
        for topic, key, value in records:
            producer.send(topic, key=key, value=value)
        producer.flush()
    finally:
        producer.close()


def test_a_warm_job_compiles_no_generated_code_and_builds_no_parser_table_per_batch(
    kafka_cluster: Any, spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[bool] = []

    def counted_spec(*args: Any, **kwargs: Any) -> Any:
        built.append(True)
        return parser_spec(*args, **kwargs)

    monkeypatch.setattr(udf, "parser_spec", counted_spec)
    monkeypatch.setattr(udf, "_RECORD_SPECS", {})  # built by this job, not an earlier test
    config = job_config(kafka_cluster, tmp_path, trigger_interval_s=1.0)
    create_topics(config, partitions=2)
    traffic = Traffic(ClusterShape(brokers=3, partitions=30, topics=3), config.topics, seed=3)
    compiled = driver_compiles(spark)
    with running(spark, config) as (job, _):

        def after_a_batch() -> None:
            last = job.board.batch_id
            send_round(config, traffic)
            wait_for(lambda: job.board.batch_id > last, 120, "the round's batch")

        for _ in range(2):  # warm: every class the batches need is generated and cached
            after_a_batch()
        warm = compiled()
        tables = len(built)
        for _ in range(3):
            after_a_batch()
        assert compiled() - warm == 0, "a warm batch compiled generated code again"
        assert tables > 0 and len(built) == tables, "a warm batch built the parser's table again"
        assert warm > 0, "nothing was ever compiled: the reader does not read Spark's count"
