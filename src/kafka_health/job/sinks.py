"""Where the job's signals go: the alert service, which also serves ``/metrics``."""

from __future__ import annotations

from typing import Protocol

from kafka_health.config import MonitorConfig
from kafka_health.consumer_groups.poller import PollerMetrics
from kafka_health.job.app import MonitorJob, SignalSink


class Sink(SignalSink, Protocol):
    """A :class:`~kafka_health.job.app.SignalSink` that is started and stopped."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


def build_sinks(config: MonitorConfig, job: MonitorJob) -> list[Sink]:
    """The alert service (rules, pages, ``/metrics`` with the job's own health), if enabled.

    Configuration problems surface here, before any query starts.
    """
    if not config.alerting.enabled:
        return []
    from kafka_health.alerting.service import AlertService

    alerts = AlertService.from_config(config)
    alerts.registry.register(job.health)
    alerts.registry.register(job.parse_counts)
    alerts.registry.register(job.rejected_counts)
    alerts.registry.register(job.codegen_compiles)
    job.poller_metrics = PollerMetrics(alerts.registry)
    job.health.add_start_hook(alerts.watch_query)
    return [alerts]
