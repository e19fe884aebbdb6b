"""The ``spark`` section: the session's schema."""

from __future__ import annotations

import re
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
    pretouch_heap: bool = True
    """A local driver's heap committed and touched whole at start (``-Xms`` = its ``-Xmx``,
    ``-XX:+AlwaysPreTouch``): a long-running job's resident memory is then flat from the
    start, not growing for hours as the heap fills, and it fails at start, not after hours,
    where the machine cannot hold it. Off, the JVM commits the heap as it grows."""
    native_heap_trim_s: float = 60.0
    """Every this many seconds a local driver's JVM gives the C heap's free memory back to the
    system (``-XX:TrimNativeHeapInterval``, JDK 17.0.9 and later; skipped with a warning on a
    JVM without it). glibc keeps what the JIT compilers and the Kafka clients freed: a 30-min
    soak's JVM grew 35 MB while the memory it tracked stayed flat, and one trim gave back 91 MB
    (BENCHMARKS.md). 0: never."""

    def driver_memory_mib(self) -> int | None:
        """``spark.driver.memory`` (1g by default) in MiB; None if it cannot be read."""
        return memory_mib(self.conf.get("spark.driver.memory", "1g"))

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.driver_memory_mib() is None:
            problems.append(ConfigProblem(
                f"{path}.conf.spark.driver.memory",
                f"{self.conf['spark.driver.memory']!r} is not a size such as 2g or 1536m",
            ))  # fmt: skip
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", self.checkpoint_dir)
        if scheme:
            problems.append(ConfigProblem(f"{path}.checkpoint_dir", (
                f"{self.checkpoint_dir!r} is a {scheme.group(1)}:// URI; give a folder path "
                "(a local disk, or on a cluster a mount every node sees, such as NFS): the "
                "driver writes the detectors' state and rewinds the checkpoint through its "
                "own file system"
            )))  # fmt: skip
        if self.native_heap_trim_s < 0:
            problems.append(ConfigProblem(
                f"{path}.native_heap_trim_s", "must be 0 (never) or a number of seconds"
            ))  # fmt: skip
        if self.shuffle_partitions < 1:
            problems.append(ConfigProblem(f"{path}.shuffle_partitions", "must be at least 1"))
        for i, jar in enumerate(self.jars):
            if not jar.endswith(".jar"):
                problems.append(ConfigProblem(f"{path}.jars[{i}]", f"{jar!r} is not a .jar file"))
        return problems


_UNITS_MIB = {"k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}


def memory_mib(size: str) -> int | None:
    """A JVM memory size as Spark reads it (``512m``, ``2g``, ``2gb``; MiB without a unit) in
    MiB, or None if it is not one."""
    found = re.fullmatch(r"\s*(\d+)\s*([kmgt])?b?\s*", size, re.IGNORECASE)
    if not found or not int(found.group(1)):
        return None
    mib = int(found.group(1)) * _UNITS_MIB[(found.group(2) or "m").lower()]
    return int(mib) if mib >= 1 else None
