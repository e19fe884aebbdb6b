"""Where the job's signals go: the Prometheus endpoint (and, once configured, the alerts)."""

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

    def publish(self, signals: list[Signal]) -> None: ...


def build_sinks(config: MonitorConfig, job: MonitorJob) -> list[Sink]:
    """The sinks the config asks for."""
    return []
