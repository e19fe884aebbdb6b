"""Prometheus: every signal as ``kafka_health_<name>``, the active alerts, a heartbeat.

A custom collector builds the families at scrape time from the alert service's snapshot, so
the values are those the alerts were computed from. Cardinality is bounded: only the labels
the catalogue declares, at most ``max_series_per_signal`` series per signal (the rest are
counted in ``kafka_health_exporter_series_dropped``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, pushadd_to_gateway
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from kafka_health.config import ExporterConfig
from kafka_health.metrics_endpoint import MetricsEndpointsConfig, serve_metrics
from kafka_health.model import SIGNALS, Signal

log = logging.getLogger(__name__)
PREFIX = "kafka_health_"
ALERT_LABELS = ("alertname", "severity", "state")


@dataclass(frozen=True)
class ExportedAlert:
    labels: dict[str, str]
    state: str


@dataclass(frozen=True)
class Snapshot:
    """What one scrape shows; ``alert_label_names`` bounds the alert metric's labels."""

    signals: list[Signal] = field(default_factory=list)
    alerts: list[ExportedAlert] = field(default_factory=list)
    alert_label_names: tuple[str, ...] = ()
    heartbeat: float = 0.0
    outbox_pending: int = 0


class HealthCollector(Collector):
    """Reads a snapshot at each scrape."""

    def __init__(self, snapshot: Callable[[], Snapshot], max_series_per_signal: int) -> None:
        self._snapshot = snapshot
        self._max = max_series_per_signal

    def describe(self) -> list[Metric]:  # no describe-time collect: the snapshot may be empty
        return []

    def collect(self) -> Iterator[Metric]:
        snap = self._snapshot()
        by_name: dict[str, list[Signal]] = {}
        for sig in snap.signals:
            if sig.name in SIGNALS:
                by_name.setdefault(sig.name, []).append(sig)
        dropped = 0
        for name, spec in SIGNALS.items():
            family = GaugeMetricFamily(PREFIX + name, spec.help, labels=list(spec.labels))
            series: dict[tuple[str, ...], float] = {}
            for sig in sorted(by_name.get(name, []), key=lambda s: s.labels):
                key = tuple(sig.label(label) for label in spec.labels)
                if key not in series and len(series) >= self._max:
                    dropped += 1
                    continue
                series[key] = sig.value
            for key, value in series.items():
                family.add_metric(list(key), value)
            yield family
        yield GaugeMetricFamily(
            PREFIX + "exporter_series_dropped",
            "signal series left out of this scrape by max_series_per_signal",
            value=dropped,
        )
        names = list(ALERT_LABELS) + [n for n in snap.alert_label_names if n not in ALERT_LABELS]
        active = GaugeMetricFamily(
            PREFIX + "alert_active",
            "1 for each pending or firing alert of the kafka-health rules",
            labels=names,
        )
        for alert in snap.alerts:
            values = {**alert.labels, "state": alert.state}
            active.add_metric([values.get(n, "") for n in names], 1.0)
        yield active
        yield GaugeMetricFamily(
            PREFIX + "heartbeat_timestamp_seconds",
            "time the alert service last completed an evaluation (a dead man's switch)",
            value=snap.heartbeat,
        )
        yield GaugeMetricFamily(
            PREFIX + "outbox_pending",
            "notifications written to the outbox and not yet delivered",
            value=snap.outbox_pending,
        )


class Exporter:
    """The /metrics endpoint (Start/Stop) and the optional Pushgateway push."""

    def __init__(
        self,
        config: ExporterConfig,
        registry: CollectorRegistry,
        endpoints: MetricsEndpointsConfig | None = None,
    ) -> None:
        self.config = config
        self.registry = registry
        self.endpoints = endpoints or MetricsEndpointsConfig()
        self._server: Any = None
        self.port: int | None = None

    def start(self) -> None:
        if self.config.port is None:
            return
        self._server, self.port = serve_metrics(
            self.registry, self.config.host, self.config.port, self.endpoints
        )

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def push(self, grouping_key: dict[str, str]) -> None:
        """Push the registry to the Pushgateway, if one is configured; failures are logged."""
        if not self.config.pushgateway_url:
            return
        try:
            pushadd_to_gateway(
                self.config.pushgateway_url,
                job=self.config.push_job,
                registry=self.registry,
                grouping_key=grouping_key,
                timeout=5,
            )
        except OSError as exc:
            log.warning("push to %s failed: %s", self.config.pushgateway_url, exc)
