"""Maintenance: a broker that logged a controlled shutdown is being restarted on purpose.

For ``maintenance_window_s`` after it, the broker's expected symptoms do not page; each rule
says which are expected (``RuleConfig.maintenance``). Unexpected ones (a lost write, min ISR
on a partition the broker does not host) still page.

A symptom is judged at the last time its condition held: one that stopped holding inside the
window stays muted while ``keep_firing_for`` keeps it firing after the window (a KRaft
controller fences a cleanly stopped broker ~10 s after its shutdown; BrokerFailed then
fires for 10 minutes), while one that still holds after the window pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafka_health.alerting.causes import hosted_by, only_listed_values
from kafka_health.alerting.engine import Alert
from kafka_health.alerting.rules import MaintenanceMode
from kafka_health.model import Signal

SHUTDOWN_SIGNAL = "controlled_shutdowns"
RETENTION_S = 86400.0
"""Ended windows are kept this long: alerts in keep_firing_for are judged against them."""


class Maintenance:
    """Maintenance windows per broker id, opened by ``controlled_shutdowns`` signals."""

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self.until: dict[str, float] = {}

    def observe(self, signals: Iterable[Signal]) -> None:
        for sig in signals:
            broker = sig.label("broker_id")
            if sig.name == SHUTDOWN_SIGNAL and sig.value > 0 and broker:
                self.until[broker] = max(self.until.get(broker, 0.0), sig.at + self.window_s)

    def brokers(self, at: float) -> set[str]:
        """The brokers in maintenance at ``at``."""
        return {b for b, until in self.until.items() if at < until}

    def mutes(
        self,
        alert: Alert,
        mode: MaintenanceMode,
        now: float,
        only: Mapping[str, list[str]] | None = None,
    ) -> str | None:
        """The reason ``alert`` is expected during maintenance, or None. ``only``: each value
        of these labels among the alert's triggering series must be listed."""
        brokers = self.brokers(min(now, alert.last_true_at))
        if mode == "page" or not brokers or not only_listed_values(alert, only or {}):
            return None
        names = ",".join(sorted(brokers, key=lambda b: (len(b), b)))
        if mode == "any_broker":
            return f"maintenance of broker {names}"
        if alert.broker_id in brokers:
            return f"maintenance of broker {alert.broker_id}"
        if mode == "hosted" and hosted_by(alert, brokers, "required"):
            return f"maintenance of broker {names} (hosts its partitions)"
        return None

    def prune(self, now: float) -> None:
        self.until = {b: u for b, u in self.until.items() if u > now - RETENTION_S}
