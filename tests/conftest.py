"""Shared fixtures: a real Kafka cluster and one SparkSession for the whole test run.

The cluster is, in order of preference: the one named by ``KAFKA_BOOTSTRAP_SERVERS``;
testcontainers' Kafka module when a Docker engine answers; else a local 3-broker KRaft cluster
of JVM processes started from Maven Central's jars (``kafka_health.dev.devcluster``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kafka_health.config import MonitorConfig, SparkConfig
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster


@dataclass
class KafkaUnderTest:
    """A Kafka cluster for a test: where it is, and the local processes when we own them."""

    bootstrap_servers: list[str]
    local: LocalCluster | None = None
    origin: str = "local"
    config: MonitorConfig = field(default_factory=MonitorConfig)


def docker_engine_answers() -> bool:
    """True when a Docker engine (not just the client) responds."""
    try:
        import docker

        client = docker.from_env(timeout=3)
        client.ping()
        return True
    except Exception:
        return False


def _cache_dir() -> Path:
    return Path(os.environ.get("KAFKA_HEALTH_CACHE", "~/.cache/kafka-health")).expanduser()


@pytest.fixture(scope="session")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaUnderTest]:
    """The session's shared Kafka cluster (do not inject faults into it: use local_cluster)."""
    if os.environ.get("KAFKA_BOOTSTRAP_SERVERS"):
        servers = os.environ["KAFKA_BOOTSTRAP_SERVERS"].split(",")
        yield KafkaUnderTest(servers, None, "env", MonitorConfig().with_bootstrap(servers))
        return
    if docker_engine_answers():
        from testcontainers.kafka import KafkaContainer

        with KafkaContainer().with_kraft() as container:
            servers = [container.get_bootstrap_server()]
            yield KafkaUnderTest(
                servers, None, "testcontainers", MonitorConfig().with_bootstrap(servers)
            )
        return
    spec = ClusterSpec(
        dir=tmp_path_factory.mktemp("kafka"), brokers=3, cache_dir=_cache_dir() / "kafka"
    )
    cluster = LocalCluster.create(spec).up()
    try:
        servers = cluster.bootstrap_servers
        yield KafkaUnderTest(servers, cluster, "local", MonitorConfig().with_bootstrap(servers))
    finally:
        cluster.down()


@pytest.fixture
def local_cluster(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., LocalCluster]]:
    """A factory of private local clusters for tests that stop, kill or freeze brokers."""
    started: list[LocalCluster] = []

    def make(brokers: int = 3, **spec: object) -> LocalCluster:
        cluster = LocalCluster.create(
            ClusterSpec(
                dir=tmp_path_factory.mktemp("faulty-kafka"),
                brokers=brokers,
                cache_dir=_cache_dir() / "kafka",
                **spec,  # type: ignore[arg-type]
            )
        )
        started.append(cluster)
        return cluster.up()

    yield make
    for cluster in started:
        cluster.down()


@pytest.fixture(scope="session")
def spark_config(tmp_path_factory: pytest.TempPathFactory) -> SparkConfig:
    return SparkConfig(
        master="local[2]",
        app_name="kafka-health-tests",
        checkpoint_dir=str(tmp_path_factory.mktemp("checkpoints")),
        cache_dir=str(_cache_dir() / "spark"),
        shuffle_partitions=2,
    )


@pytest.fixture(scope="session")
def spark(spark_config: SparkConfig):  # type: ignore[no-untyped-def]
    """One SparkSession shared by every test (Spark allows one per process)."""
    from kafka_health.spark import build_spark_session

    session = build_spark_session(spark_config)
    yield session
    session.stop()
