"""The ``spark`` section: the session's schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from kafka_health.errors import ConfigProblem


@dataclass(frozen=True)
class SparkConfig:
    """How the SparkSession is built."""

    master: str = "local[2]"
    app_name: str = "kafka-health"
    checkpoint_dir: str = "var/checkpoints"
    connector: Literal["maven", "ivy"] = "maven"
    cache_dir: str = "~/.cache/kafka-health/spark"
    jars: list[str] = field(default_factory=list)
    shuffle_partitions: int = 4
    log_level: Literal["ERROR", "WARN", "INFO", "DEBUG"] = "WARN"
    conf: dict[str, str] = field(default_factory=dict)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.shuffle_partitions < 1:
            problems.append(ConfigProblem(f"{path}.shuffle_partitions", "must be at least 1"))
        for i, jar in enumerate(self.jars):
            if not jar.endswith(".jar"):
                problems.append(ConfigProblem(f"{path}.jars[{i}]", f"{jar!r} is not a .jar file"))
        return problems
