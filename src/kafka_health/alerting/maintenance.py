"""Maintenance: a broker that logged a controlled shutdown is being restarted on purpose.

"Logged a controlled shutdown" includes the line Kafka's signal handler writes on SIGTERM,
SIGINT or SIGHUP before the shutdown starts: the shutdown's own lines come from a JVM
shutdown hook that races Log4j's, and are sometimes lost (a KRaft broker of the fault suite's
rolling restart logged the signal and none of them, and paged).

For ``maintenance_window_s`` after it, the broker's expected symptoms do not page; each rule
says which are expected (``RuleConfig.maintenance``). Unexpected ones (a lost write, min ISR
on a partition the broker does not host) still page.

A symptom is judged at the last time its condition held: one that stopped holding inside the
window stays muted while ``keep_firing_for`` keeps it firing after the window (a KRaft
controller fences a cleanly stopped broker ~10 s after its shutdown; BrokerFailed then
fires for 10 minutes), while one that still holds after the window pages.

The shutdown line travels the log path (shipper, transport, a batch of the job) and can trail
the symptom it explains: a ZooKeeper broker closes its port ~0.3 s after logging it, and a
slow batch held the line past the first page of a rolling restart. So an alert a maintenance
could mute waits (at most ``wait_s`` after its condition began) until the job has read the
broker logs (``broker_logs_read_timestamp``) up to ``lookback_s`` before it began: the rule's
own figure for how long its fault precedes its condition (0, the default: no wait; the
symptoms the job computes from its own batches arrive with the logs of about the same time).
The wait costs nothing when the logs are read on time (a batch every 2 s), and nothing at all
without a job (replay, tests).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from kafka_health.alerting.causes import hosted_by, only_listed_values
from kafka_health.alerting.engine import Alert
from kafka_health.alerting.rules import MaintenanceMode
from kafka_health.model import LOGS_READ_SIGNAL, Signal

log = logging.getLogger(__name__)

SHUTDOWN_SIGNAL = "controlled_shutdowns"
RETENTION_S = 86400.0
"""Ended windows are kept this long: alerts in keep_firing_for are judged against them."""


class Maintenance:
    """Maintenance windows per broker id, opened by ``controlled_shutdowns`` signals."""

    def __init__(self, window_s: float, wait_s: float = 0.0) -> None:
        self.window_s = window_s
        self.wait_s = wait_s
        self.until: dict[str, float] = {}
        self.logs_read_to: float | None = None
        """How far the job has read the broker logs (None: no job reports it)."""

    def observe(self, signals: Iterable[Signal], now: float | None = None) -> None:
        for sig in signals:
            if sig.name == LOGS_READ_SIGNAL:
                self.logs_read_to = max(self.logs_read_to or 0.0, sig.value)
                continue
            broker = sig.label("broker_id")
            if sig.name == SHUTDOWN_SIGNAL and sig.value > 0 and broker:
                before = self.until.get(broker, 0.0)
                if now is not None and before <= now:
                    log.info("broker %s is in maintenance: it logged a controlled shutdown "
                             "(the job's window ending %.1f)", broker, sig.at)  # fmt: skip
                self.until[broker] = max(before, sig.at + self.window_s)

    def brokers(self, at: float) -> set[str]:
        """The brokers in maintenance at ``at``."""
        return {b for b, until in self.until.items() if at < until}

    def mutes(
        self,
        alert: Alert,
        mode: MaintenanceMode,
        now: float,
        only: Mapping[str, list[str]] | None = None,
        lookback_s: float = 0.0,
    ) -> str | None:
        """The reason ``alert`` is expected during maintenance (or held until the logs that
        would say so are read), or None. ``only``: each value of these labels among the
        alert's triggering series must be listed."""
        if mode == "page" or not only_listed_values(alert, only or {}):
            return None
        return self._in_maintenance(alert, mode, now) or self._awaiting_logs(alert, now, lookback_s)

    def _awaiting_logs(self, alert: Alert, now: float, lookback_s: float) -> str | None:
        if lookback_s <= 0 or self.logs_read_to is None or now >= alert.starts_at + self.wait_s:
            return None
        needed = alert.starts_at - lookback_s
        if self.logs_read_to >= needed:
            return None
        behind = needed - self.logs_read_to
        return f"awaiting the broker logs (read to {behind:.1f} s before its fault began)"

    def _in_maintenance(self, alert: Alert, mode: MaintenanceMode, now: float) -> str | None:
        brokers = self.brokers(min(now, alert.last_true_at))
        if not brokers:
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
