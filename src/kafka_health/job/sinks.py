"""Where the job's signals go: the alert service, which also serves ``/metrics``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from kafka_health.config import MonitorConfig

if TYPE_CHECKING:
    from kafka_health.job.app import MonitorJob
    from kafka_health.model import Signal


class Sink(Protocol):
    """A started/stopped consumer of signals."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def publish(self, signals: list[Signal], snapshot: bool = True) -> None: ...


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
    job.health.add_start_hook(alerts.watch_query)
    return [alerts]
