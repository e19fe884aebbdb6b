"""The ``dev_cluster`` section of the one config file: the local dev cluster's schema.

It stays beside the product's configuration so that reading a config never imports the dev
tooling; :mod:`kafka_health.dev.devcluster` is what uses it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kafka_health.errors import ConfigProblem


@dataclass(frozen=True)
class DevClusterConfig:
    """The local Kafka cluster started for the demo and the tests."""

    mode: Literal["kraft", "zookeeper"] = "kraft"
    brokers: int = 3
    dir: str = "var/devcluster"
    cache_dir: str = "~/.cache/kafka-health/kafka"
    kafka_version: str = "4.1.1"
    zookeeper_kafka_version: str = "3.9.1"
    heap: str = "256m"
    zookeeper_session_timeout_ms: int = 6000

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.brokers not in (1, 3):
            problems.append(ConfigProblem(f"{path}.brokers", "must be 1 or 3"))
        if not re.fullmatch(r"4\.\d+\.\d+", self.kafka_version):
            problems.append(ConfigProblem(f"{path}.kafka_version", "must be a 4.x release"))
        if not re.fullmatch(r"3\.9\.\d+", self.zookeeper_kafka_version):
            problems.append(
                ConfigProblem(f"{path}.zookeeper_kafka_version", "must be a 3.9.x release")
            )
        if not re.fullmatch(r"\d+[mMgG]", self.heap):
            problems.append(ConfigProblem(f"{path}.heap", f"{self.heap!r} is not like 256m or 1g"))
        if not 1000 <= self.zookeeper_session_timeout_ms <= 600_000:
            problems.append(
                ConfigProblem(f"{path}.zookeeper_session_timeout_ms", "must be 1000 to 600000")
            )
        return problems
