"""The ``consumer_groups`` section: which groups are watched, how often, and their objectives."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kafka_health.errors import ConfigProblem

SEVERITIES = ("info", "warning", "critical")
MAX_MEMO = 100_000
"""Group ids whose watched-or-not answer is remembered (then forgotten all at once)."""
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
RESERVED_LABELS = frozenset(
    {"alertname", "severity", "cluster", "broker_id", "topic", "partition", "group", "verdict"}
)


def _regex_problems(pattern: str, path: str) -> list[ConfigProblem]:
    try:
        re.compile(pattern)
    except re.error as exc:
        return [ConfigProblem(path, f"not a valid regex: {exc}")]
    return []


@dataclass(frozen=True)
class GroupObjective:
    """The objective of the groups whose id ``match`` matches whole: their time lag stays under
    ``lag_objective_s``; a breach pages at ``severity`` and the page carries ``labels`` (for
    example ``team: payments``), so a receiver can route it to the group's owners."""

    match: str = ".*"
    lag_objective_s: float = 300.0
    severity: str = "warning"
    labels: dict[str, str] = field(default_factory=dict)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = _regex_problems(self.match, f"{path}.match")
        if not 1 <= self.lag_objective_s <= 30 * 86400:
            problems.append(ConfigProblem(f"{path}.lag_objective_s", "must be 1 to 2592000"))
        if self.severity not in SEVERITIES:
            problems.append(ConfigProblem(f"{path}.severity", f"must be one of {SEVERITIES}"))
        for name, value in self.labels.items():
            where = f"{path}.labels.{name}"
            if not LABEL_NAME.fullmatch(name) or name.startswith("__"):
                problems.append(ConfigProblem(where, "not a Prometheus label name"))
            elif name in RESERVED_LABELS:
                problems.append(ConfigProblem(where, "is set by the monitor; choose another name"))
            if not isinstance(value, str) or not 0 < len(value) <= 128:
                problems.append(ConfigProblem(where, "must be a string of 1 to 128 characters"))
        return problems


@dataclass(frozen=True)
class ConsumerGroupsConfig:
    """The consumer groups of the monitored cluster, polled from the admin API every
    ``interval_s`` (a commit is seen within two intervals of being made).

    ``include`` and ``exclude`` are regexes matching whole group ids (exclude wins); the
    monitor's own and Spark's source groups are excluded by default. ``objectives`` are tried
    in order, the first whose ``match`` matches a group is its objective; a group none matches
    gets ``default_objective``. At most ``max_groups`` groups are watched (the rest counted, not
    watched), and at most ``max_partition_series`` per-partition series are published (only for
    groups not OK; the overflow counted).
    """

    enabled: bool = True
    interval_s: float = 5.0
    request_timeout_s: float = 3.0
    include: list[str] = field(default_factory=lambda: [".*"])
    exclude: list[str] = field(
        default_factory=lambda: ["spark-kafka-source-.*", "kafka-health.*", "_confluent.*"]
    )
    objectives: list[GroupObjective] = field(default_factory=list)
    default_objective: GroupObjective = field(default_factory=GroupObjective)
    max_groups: int = 20_000
    max_partition_series: int = 2_000
    rebalance_max_s: float = 120.0
    """A group rebalancing (no stable generation) longer than this is ``rebalancing``."""
    churn_generations: int = 6
    churn_window_s: float = 600.0
    """More than ``churn_generations`` new generations within ``churn_window_s``: churning."""
    stall_window_s: float = 300.0
    """Records waiting on a partition, its committed offset unmoved this long while the group
    has members: ``stalled``. Longer than the consumers' commit interval (Java's default is
    5 s), so a consumer that commits rarely is not taken for a stalled one."""
    forget_after_s: float = 900.0
    """A group absent from the successful rounds this long (deleted, its offsets expired)
    leaves the monitor and its series with it; until then it is ``unseen``, never healthy."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems: list[ConfigProblem] = []
        if not 1 <= self.interval_s <= 3600:
            problems.append(ConfigProblem(f"{path}.interval_s", "must be 1 to 3600"))
        if not 0.1 <= self.request_timeout_s <= 300:
            problems.append(ConfigProblem(f"{path}.request_timeout_s", "must be 0.1 to 300"))
        for key in ("include", "exclude"):
            for i, pattern in enumerate(getattr(self, key)):
                problems += _regex_problems(pattern, f"{path}.{key}[{i}]")
        if not 1 <= self.max_groups <= 1_000_000:
            problems.append(ConfigProblem(f"{path}.max_groups", "must be 1 to 1000000"))
        if not 0 <= self.max_partition_series <= 100_000:
            problems.append(ConfigProblem(f"{path}.max_partition_series", "must be 0 to 100000"))
        if self.rebalance_max_s <= 0:
            problems.append(ConfigProblem(f"{path}.rebalance_max_s", "must be positive"))
        if self.churn_generations < 1:
            problems.append(ConfigProblem(f"{path}.churn_generations", "must be at least 1"))
        if self.churn_window_s <= 0:
            problems.append(ConfigProblem(f"{path}.churn_window_s", "must be positive"))
        if self.stall_window_s < self.interval_s:
            problems.append(ConfigProblem(f"{path}.stall_window_s", "must be at least interval_s"))
        if self.forget_after_s < 2 * self.interval_s:
            problems.append(
                ConfigProblem(f"{path}.forget_after_s", "must be at least twice interval_s")
            )
        return problems

    def watched(self, group: str) -> bool:
        """Whether ``group`` is watched: some ``include`` matches it whole and no ``exclude``
        (remembered per group id: a round asks it of every listed group)."""
        memo: dict[str, bool] | None = self.__dict__.get("_watched")
        if memo is None:
            memo = {}
            object.__setattr__(self, "_watched", memo)  # not a field: no part of equality
        known = memo.get(group)
        if known is None:
            include, exclude, _ = self._compiled()
            known = any(p.fullmatch(group) for p in include) and not any(
                p.fullmatch(group) for p in exclude
            )
            if len(memo) >= MAX_MEMO:
                memo.clear()
            memo[group] = known
        return known

    def objective(self, group: str) -> GroupObjective:
        """The first objective whose ``match`` matches ``group`` whole, else the default."""
        for pattern, objective in self._compiled()[2]:
            if pattern.fullmatch(group):
                return objective
        return self.default_objective

    def _compiled(
        self,
    ) -> tuple[
        list[re.Pattern[str]], list[re.Pattern[str]], list[tuple[re.Pattern[str], GroupObjective]]
    ]:
        compiled: (
            tuple[
                list[re.Pattern[str]],
                list[re.Pattern[str]],
                list[tuple[re.Pattern[str], GroupObjective]],
            ]
            | None
        ) = self.__dict__.get("_patterns")
        if compiled is None:
            compiled = (
                [re.compile(p) for p in self.include],
                [re.compile(p) for p in self.exclude],
                [(re.compile(o.match), o) for o in self.objectives],
            )
            object.__setattr__(self, "_patterns", compiled)
        return compiled
