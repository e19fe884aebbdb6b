"""Helpers for tests of the streaming job: a per-test config, topic feeding, and scaled-down
runs of the job's fuzz (:mod:`kafka_health.dev.fuzz_job`)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from kafka_health.config import JobConfig, MonitorConfig, TopicsConfig
from kafka_health.kafka_clients import python_client_options

KAFKA_COLUMNS = (
    "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
    "timestampType int"
)
"""Spark's Kafka source rows (without headers), for frames that stand in for its batches."""


def job_config(kafka_cluster: Any, tmp_path: Path, **job: Any) -> MonitorConfig:
    """A config with topics of its own, checkpoints in ``tmp_path`` and job overrides."""
    suffix = uuid.uuid4().hex[:8]
    topics = TopicsConfig(
        canary=f"canary-{suffix}",
        canary_results=f"canary-results-{suffix}",
        cluster_state=f"cluster-state-{suffix}",
        broker_logs=f"broker-logs-{suffix}",
        dead_letter=f"dead-letter-{suffix}",
    )
    base: MonitorConfig = kafka_cluster.config
    return dataclasses.replace(
        base,
        topics=topics,
        spark=dataclasses.replace(base.spark, checkpoint_dir=str(tmp_path / "checkpoints")),
        job=dataclasses.replace(JobConfig(), starting_offsets="earliest", **job),
    )


def create_topics(config: MonitorConfig, partitions: int = 4) -> None:
    admin = KafkaAdminClient(**python_client_options(config.kafka))
    try:
        names = [getattr(config.topics, f.name) for f in dataclasses.fields(config.topics)]
        admin.create_topics(
            [NewTopic(n, num_partitions=partitions, replication_factor=1) for n in names]
        )
    finally:
        admin.close()


def produce(
    config: MonitorConfig, topic: str, records: Sequence[tuple[bytes | None, bytes, int]]
) -> None:
    """Produce (key, value, partition) records and wait for every acknowledgement."""
    producer = KafkaProducer(acks="all", linger_ms=5, **python_client_options(config.kafka))
    try:
        for key, value, partition in records:
            producer.send(topic, key=key, value=value, partition=partition)
        producer.flush()
    finally:
        producer.close()


def by_name(signals: list[Any], name: str) -> dict[tuple[tuple[str, str], ...], Any]:
    return {s.labels: s for s in signals if s.name == name}


BenchRun = Callable[[list[str], int, int, Path, Any], dict[str, Any]]
"""A run of :mod:`kafka_health.dev.fuzz_job` (``fuzz``) or :mod:`kafka_health.dev.flood_job`
(``flood``): bootstrap servers, records, seed, a scratch directory and a Spark session; its
figures and its checks' verdicts."""


@dataclass(frozen=True)
class BenchRunner:
    """Scaled-down runs of `fuzz_job` and `flood_job` on a test's Kafka and Spark."""

    kafka_cluster: Any
    spark: Any
    tmp_path: Path

    def __call__(self, run: BenchRun, records: int, seed: int) -> tuple[dict[str, Any], set[str]]:
        """``run`` with ``records`` records of ``seed``, its every check passed (the figures are
        the failure's message); its figures, and the reasons its records were rejected for."""
        result = run(self.kafka_cluster.bootstrap_servers, records, seed, self.tmp_path, self.spark)
        summary = {k: v for k, v in result.items() if k != "entries_by_outcome_reason"}
        assert all(result["checks"].values()), summary
        return result, {key.split("/", 1)[1] for key in result["rejected"]}
