"""The ``job`` section: the streaming job and its detectors (windows, thresholds, supervision).

It lives with the detectors, the lowest package it configures, so that they import their own
section; the job above reads it too."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from kafka_health.errors import ConfigProblem

STALE_SOURCES = (
    "canary", "cluster_state", "canary_topic", "reachability", "transport_reachability",
    "consumer_groups",
)  # fmt: skip


@dataclass(frozen=True)
class JobConfig:
    """The streaming health job: windows, thresholds of its stateful signals, supervision."""

    window_s: float = 60.0
    slide_s: float = 10.0
    availability_window_s: float = 20.0
    """Canary availability is over this last part of the window (fast to page and to clear)."""
    watermark_s: float = 30.0
    trigger_interval_s: float = 2.0
    canary_trigger_interval_s: float = 10.0
    """The canary query's trigger: it feeds only the loss verdicts, which wait loss_grace_s."""
    state_save_interval_s: float = 10.0
    """The detectors' state is written at most this often (and at a stop): a crash makes the
    next start read again the batches since the last write (job/save_schedule)."""
    starting_offsets: Literal["latest", "earliest"] = "latest"
    max_offsets_per_trigger: int = 500_000
    latency_accuracy: int = 10_000
    canary_silence_s: float = 30.0
    loss_grace_s: float = 60.0
    loss_report_window_s: float = 900.0
    coordinator_load_stuck_s: float = 300.0
    log_silence_s: float = 300.0
    isr_expire_after_s: float = 60.0
    inventory_ttl_s: float = 300.0
    """A broker that is no longer registered and holds no replica, a partition the canary topic
    no longer has, a log stream of such a broker: once gone from the cluster's descriptions
    (the prober's snapshots, the driver's listing) and unseen this long, the detectors forget
    it and its alerts resolve (detectors/inventory). Shorter than the maintenance window a
    decommission's controlled shutdown opens (alerting.maintenance_window_s, 900 s), so that
    the leaving broker's muted alerts resolve before they could page."""
    session_timeout_ms: int = 18_000
    session_timeout_ms_by_broker: dict[str, int] = field(default_factory=dict)
    restart_backoff_initial_s: float = 2.0
    restart_backoff_max_s: float = 60.0
    stop_timeout_s: float = 30.0
    source_timeout_s: float = 3.0
    """Request and API timeout of the job's Kafka sources: how long one offset lookup or
    fetch waits on a dead or hung leader before Spark's retry looks the partition up again."""
    stale_after_s: dict[str, float] = field(default_factory=dict)
    """Per source (canary, cluster_state, canary_topic, reachability): newest observation older
    than this is stale. Not listed: canary and cluster_state two trigger intervals plus three
    of the source's own intervals; canary_topic 120 s; reachability three ping intervals and
    two deadlines, at least 10 s."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        for source, seconds in self.stale_after_s.items():
            if source not in STALE_SOURCES or seconds <= 0:
                problems.append(
                    ConfigProblem(
                        f"{path}.stale_after_s.{source}",
                        f"keys are {', '.join(STALE_SOURCES)}; values positive seconds",
                    )
                )
        positive = (
            "window_s", "slide_s", "availability_window_s", "trigger_interval_s",
            "canary_trigger_interval_s", "state_save_interval_s", "canary_silence_s",
            "loss_grace_s", "loss_report_window_s", "coordinator_load_stuck_s", "log_silence_s",
            "isr_expire_after_s", "restart_backoff_initial_s", "restart_backoff_max_s",
            "stop_timeout_s", "source_timeout_s",
        )  # fmt: skip
        for name in positive:
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        if self.inventory_ttl_s < 30:
            problems.append(
                ConfigProblem(
                    f"{path}.inventory_ttl_s",
                    "must be at least 30 (a few of the prober's snapshots and listings)",
                )
            )
        if self.watermark_s < 0:
            problems.append(ConfigProblem(f"{path}.watermark_s", "must not be negative"))
        if self.slide_s > self.window_s:
            problems.append(ConfigProblem(f"{path}.slide_s", "must not exceed window_s"))
        if self.availability_window_s > self.window_s:
            problems.append(
                ConfigProblem(f"{path}.availability_window_s", "must not exceed window_s")
            )
        if self.max_offsets_per_trigger < 1 or self.latency_accuracy < 1:
            problems.append(
                ConfigProblem(path, "max_offsets_per_trigger and latency_accuracy must be >= 1")
            )
        if self.session_timeout_ms < 1000:
            problems.append(ConfigProblem(f"{path}.session_timeout_ms", "must be >= 1000"))
        for broker, timeout in self.session_timeout_ms_by_broker.items():
            if not broker.isdigit() or timeout < 1000:
                problems.append(
                    ConfigProblem(
                        f"{path}.session_timeout_ms_by_broker.{broker}",
                        "keys are broker ids, values >= 1000 ms",
                    )
                )
        if self.restart_backoff_max_s < self.restart_backoff_initial_s:
            problems.append(
                ConfigProblem(
                    f"{path}.restart_backoff_max_s", "must be >= restart_backoff_initial_s"
                )
            )
        return problems


# --------------------------------------------------------------------------------------------
# Alerting (issue 7): the alert service, its receivers, silences and the /metrics exporter.
# The rules themselves are in their own file (``alerting.rules_file``, conf/alerts.yaml).
