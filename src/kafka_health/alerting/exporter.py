"""Prometheus: every signal as ``kafka_health_<name>`` (a gauge; a counter for the signals
counted since the job started, :attr:`~kafka_health.model.Unit.TOTAL`), the active alerts, a
heartbeat.

A custom collector builds the families at scrape time from the alert service's snapshot, so
the values are those the alerts were computed from. Cardinality is bounded: only the labels
the catalogue declares, at most ``max_series_per_signal`` series per signal (the rest are
counted in ``kafka_health_exporter_series_dropped``). The same cap already applies where the
series enter the signal store: the series it refused are counted in
``kafka_health_signal_series_dropped_total{signal}``, and the alerts the engine's per-rule cap
refused in ``kafka_health_alerts_dropped_total{rule}``.

Every series the endpoint serves and the Pushgateway gets carries ``cluster="<cluster_name>"``
(:class:`~kafka_health.metrics_endpoint.ClusterLabelled`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, pushadd_to_gateway
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from kafka_health.alerting.config import ExporterConfig
from kafka_health.configuration.redact import safe_url
from kafka_health.configuration.secrets import resolve_value
from kafka_health.errors import ConfigError
from kafka_health.metrics_endpoint import ClusterLabelled, MetricsEndpointsConfig, serve_metrics
from kafka_health.model import SIGNALS, Signal, Unit

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
    series_dropped: dict[str, int] = field(default_factory=dict)
    """New series the signal store refused (its cap), per signal name."""
    alerts_dropped: dict[str, int] = field(default_factory=dict)
    """Matches the engine's per-rule cap left without an alert, per rule."""
    maintenance: list[tuple[str, str]] = field(default_factory=list)
    """(broker id, source) of each broker in maintenance: ``declared`` or
    ``controlled_shutdown``."""


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
            # prometheus-client names a counter family without _total and adds it per sample
            kind = CounterMetricFamily if spec.unit == Unit.TOTAL else GaugeMetricFamily
            family = kind(PREFIX + name, spec.help, labels=list(spec.labels))
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
        maintenance = GaugeMetricFamily(
            PREFIX + "broker_maintenance",
            "1 for each broker in maintenance (its expected alerts muted), by source: declared "
            "(kafka-health maintenance start) or controlled_shutdown (the broker logged one)",
            labels=["broker_id", "source"],
        )
        for n, (broker, source) in enumerate(snap.maintenance):
            if n >= self._max:
                dropped += len(snap.maintenance) - n
                break
            maintenance.add_metric([broker, source], 1.0)
        yield maintenance
        yield GaugeMetricFamily(
            PREFIX + "exporter_series_dropped",
            "signal series left out of this scrape by max_series_per_signal",
            value=dropped,
        )
        yield _counter(
            "signal_series_dropped",
            "new signal series the alert service's store refused (max_series_per_signal)",
            "signal", snap.series_dropped,
        )  # fmt: skip
        yield _counter(
            "alerts_dropped",
            "label sets a rule matched that got no alert: the rule held its cap of alerts "
            "(counted at each evaluation)",
            "rule", snap.alerts_dropped,
        )  # fmt: skip
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


def _counter(name: str, doc: str, label: str, counts: dict[str, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(PREFIX + name, doc, labels=[label])
    for value, n in sorted(counts.items()):
        family.add_metric([value], float(n))
    return family


class Exporter:
    """The /metrics endpoint (Start/Stop) and the optional Pushgateway push."""

    def __init__(
        self,
        config: ExporterConfig,
        registry: CollectorRegistry,
        endpoints: MetricsEndpointsConfig | None = None,
        *,
        cluster: str,
    ) -> None:
        self.config = config
        self.registry = registry
        self.cluster = cluster
        self.endpoints = endpoints or MetricsEndpointsConfig()
        self._server: Any = None
        self.port: int | None = None

    def start(self) -> None:
        if self.config.port is None:
            return
        self._server, self.port = serve_metrics(
            self.registry, self.config.host, self.config.port, self.endpoints,
            cluster=self.cluster,
        )  # fmt: skip

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def push(self, grouping_key: dict[str, str]) -> None:
        """Push the registry to the Pushgateway, if one is configured; failures are logged
        with the URL's ``scheme://host[:port]`` only (never raised: the pages go on)."""
        try:
            url = resolve_value(self.config.pushgateway_url)
        except ConfigError as exc:  # names the key, never the value
            log.warning("push skipped: %s", exc)
            return
        if not url:
            return
        try:
            pushadd_to_gateway(
                url,
                job=self.config.push_job,
                registry=ClusterLabelled(self.registry, self.cluster),
                grouping_key=grouping_key,
                timeout=5,
            )
        except Exception as exc:  # http.client.InvalidURL quotes the URL: not shown
            log.warning("push to %s failed: %s", safe_url(url), _describe(exc))


def _describe(exc: Exception) -> str:
    """An error's class, and its text when it cannot hold the URL (socket and HTTP errors)."""
    if isinstance(exc, OSError):
        return f"{type(exc).__name__}: {exc}"
    return type(exc).__name__
