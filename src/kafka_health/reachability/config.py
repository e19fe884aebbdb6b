"""The ``reachability`` section: the job's pings of every broker of the monitored cluster."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_health.errors import ConfigProblem


@dataclass(frozen=True)
class ReachabilityConfig:
    """Every ``interval_s`` the job's driver sends each broker an ApiVersions request on a new
    connection; one with no answer within ``deadline_s`` failed (``timeout``). The brokers
    and their addresses come from the cluster's metadata every ``metadata_interval_s``; a
    broker that leaves it (dead brokers do) is still pinged while it holds replicas (the
    cluster-state snapshots), or, with no prober deployed, for ``forget_after_s``."""

    enabled: bool = True
    interval_s: float = 1.0
    deadline_s: float = 2.0
    metadata_interval_s: float = 10.0
    forget_after_s: float = 3600.0
    max_parallel: int = 32
    """Pings in flight at once (a cluster of hundreds of brokers is pinged in rounds)."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not 0.1 <= self.interval_s <= 60:
            problems.append(ConfigProblem(f"{path}.interval_s", "must be 0.1 to 60"))
        if not 0.1 <= self.deadline_s <= 30:
            problems.append(ConfigProblem(f"{path}.deadline_s", "must be 0.1 to 30"))
        if not 1 <= self.metadata_interval_s <= 3600:
            problems.append(ConfigProblem(f"{path}.metadata_interval_s", "must be 1 to 3600"))
        if self.forget_after_s < 60:
            problems.append(ConfigProblem(f"{path}.forget_after_s", "must be at least 60"))
        if not 1 <= self.max_parallel <= 1024:
            problems.append(ConfigProblem(f"{path}.max_parallel", "must be 1 to 1024"))
        return problems
