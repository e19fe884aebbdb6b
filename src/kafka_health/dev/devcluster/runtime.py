"""Fetch Apache Kafka's runtime jars from Maven Central into a cache, once.

The checked-in descriptor ``kafka-runtime.pom.xml`` names the artifacts (profile ``kraft`` for
Kafka 4.x with Log4j 2, ``zookeeper`` for Kafka 3.9 with reload4j); Maven resolves them into
``<cache>/kafka-<version>-<mode>/libs``.
"""

from __future__ import annotations

from pathlib import Path

from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.maven import MavenError, copy_dependencies


def runtime_dir(cache_dir: Path, version: str, mode: str) -> Path:
    """Where the jars of one Kafka version and mode live in the cache."""
    return cache_dir.expanduser() / f"kafka-{version}-{mode}"


def ensure_kafka_runtime(cache_dir: Path, version: str, mode: str) -> Path:
    """Return the ``libs`` folder holding Kafka ``version``'s jars, fetching them if needed."""
    target = runtime_dir(cache_dir, version, mode)
    try:
        libs = copy_dependencies(
            "kafka_health.dev.devcluster",
            "kafka-runtime.pom.xml",
            target,
            {"kafka.version": version},
            profile=mode,
        )
    except MavenError as exc:
        raise DevClusterError(str(exc)) from exc
    if not (libs / f"kafka_2.13-{version}.jar").exists():
        raise DevClusterError(f"kafka_2.13-{version}.jar is missing from {libs}")
    return libs
