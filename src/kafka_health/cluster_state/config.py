"""The ``cluster_state`` section: the prober's schema."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka_health.errors import ConfigProblem


@dataclass(frozen=True)
class ClusterStateConfig:
    """The cluster-state prober: every ``interval_s``, one record per partition and broker.

    ``topics_regex`` must match a whole topic name; partitions are described
    ``page_partitions`` at a time, so memory stays bounded however large the cluster.
    """

    interval_s: float = 10.0
    topics_regex: str = ".*"
    include_internal: bool = True
    page_partitions: int = 2000
    topic_partitions: int = 1
    """Partitions of ``topics.cluster_state`` when the canary creates it; with one, a
    snapshot's records stay in order (its closing record comes last)."""
    request_timeout_s: float = 3.0
    """Bound of each describe request and of each write of snapshot records: a frozen broker
    fails the snapshot within it instead of stalling the loop for
    ``kafka.client.request_timeout_s``."""
    metrics_host: str = "127.0.0.1"
    metrics_port: int | None = 9311
    """/metrics of ``kafka-health cluster-state`` (the canary serves its own port)."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not 0.5 <= self.interval_s <= 86400:
            problems.append(ConfigProblem(f"{path}.interval_s", "must be 0.5 to 86400"))
        try:
            re.compile(self.topics_regex)
        except re.error as exc:
            problems.append(ConfigProblem(f"{path}.topics_regex", f"not a valid regex: {exc}"))
        if not 1 <= self.page_partitions <= 100_000:
            problems.append(ConfigProblem(f"{path}.page_partitions", "must be 1 to 100000"))
        if self.topic_partitions < 1:
            problems.append(ConfigProblem(f"{path}.topic_partitions", "must be at least 1"))
        if not 0.1 <= self.request_timeout_s <= 300:
            problems.append(ConfigProblem(f"{path}.request_timeout_s", "must be 0.1 to 300"))
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            problems.append(ConfigProblem(f"{path}.metrics_port", "must be 0 to 65535 or null"))
        return problems
