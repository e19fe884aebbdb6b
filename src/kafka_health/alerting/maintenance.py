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

The first page never waits on logs the fault itself holds back (in the single layout the
broker that stopped answering may lead partitions of the log topic, and the job's reads stall
on them): the wait applies only to the symptoms a controlled shutdown can cause
(``maintenance_lookback_only``: BrokerNotAnswering's refused connections, not its timeouts),
and ends as soon as the metadata's verdict on the broker is a crash: it still led partitions
when its port refused, which a controlled shutdown never leaves behind.

An operator's declared maintenance (:mod:`~.declared_maintenance`, ``kafka-health maintenance
start``) mutes the same alerts of its broker, judged the same way, with no wait: it is known
before the broker stops, so an alert it covers is muted the moment it fires.

The cluster's metadata can say so before any log line arrives: when a broker's port first
refuses, the job asks it (``broker_shutdown_evidence``, :mod:`kafka_health.reachability.
shutdown_evidence`); evidence of a controlled shutdown (fenced, or its partitions handed over)
opens a window of ``restart_budget_s`` from the verdict, ended when the broker answers its
pings again (``broker_unanswered_seconds`` of reason ``answered``): a restart's time, short,
because a broker that dies through its shutdown hooks looks planned too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from kafka_health.alerting.causes import hosted_by, only_listed_values
from kafka_health.alerting.declared_maintenance import DeclaredMaintenance
from kafka_health.alerting.engine import Alert
from kafka_health.alerting.rule_config import MaintenanceMode, RuleConfig
from kafka_health.model import LOGS_READ_SIGNAL, Signal

log = logging.getLogger(__name__)

SHUTDOWN_SIGNALS = {
    "controlled_shutdowns": "a controlled shutdown",
    "shutdown_signals": "a termination signal",
}
"""Signals of a broker restarting on purpose, and what it logged: a controlled shutdown, or a
termination signal (SIGTERM is how every service manager stops a broker; its own shutdown
lines can be lost)."""
EVIDENCE_SIGNAL = "broker_shutdown_evidence"
ANSWER_SIGNAL = "broker_unanswered_seconds"
RETENTION_S = 86400.0
"""Ended windows are kept this long: alerts in keep_firing_for are judged against them."""


class Maintenance:
    """Maintenance windows per broker id, opened by :data:`SHUTDOWN_SIGNALS`."""

    def __init__(
        self,
        window_s: float,
        wait_s: float = 0.0,
        declared: DeclaredMaintenance | None = None,
        restart_budget_s: float = 120.0,
    ) -> None:
        self.window_s = window_s
        self.restart_budget_s = restart_budget_s
        self.restarts: dict[str, tuple[float, float]] = {}
        """Per broker, (verdict time, end) of its window from the metadata's evidence."""
        self.wait_s = wait_s
        self.declared = declared
        """The operator's declared windows (``maintenance.json``), if any."""
        self.until: dict[str, float] = {}
        self.logs_read_to: float | None = None
        """How far the job has read the broker logs (None: no job reports it)."""
        self.held: dict[str, float] = {}
        """Per alert fingerprint, the start of its episode last held for the logs (logged
        once an episode)."""
        self.crashed: dict[str, float] = {}
        """Per broker, when the metadata's verdict on its refused port was a crash (until it
        answers again)."""

    def observe(self, signals: Iterable[Signal], now: float | None = None) -> None:
        for sig in signals:
            if sig.name == LOGS_READ_SIGNAL:
                self.logs_read_to = max(self.logs_read_to or 0.0, sig.value)
                continue
            broker = sig.label("broker_id")
            self._observe_restart(sig, broker)
            if sig.name in SHUTDOWN_SIGNALS and sig.value > 0 and broker:
                before = self.until.get(broker, 0.0)
                if now is not None and before <= now:
                    logged = SHUTDOWN_SIGNALS[sig.name]
                    log.info("broker %s is in maintenance: it logged %s (the job's window "
                             "ending %.1f)", broker, logged, sig.at)  # fmt: skip
                self.until[broker] = max(before, sig.at + self.window_s)

    def _observe_restart(self, sig: Signal, broker: str) -> None:
        """A window from the metadata's evidence of a controlled shutdown; its end when the
        broker answers after the verdict."""
        if not broker:
            return
        known = self.restarts.get(broker)
        if sig.name == EVIDENCE_SIGNAL and sig.value > 0:
            decided = float(sig.details.get("decided_at", sig.at))
            if sig.label("evidence") == "crash":
                self.crashed[broker] = max(decided, self.crashed.get(broker, decided))
            if sig.label("evidence") != "controlled_shutdown":
                return
            if known is None or decided > known[0]:
                log.info("broker %s is restarting: the metadata showed a controlled shutdown "
                         "(%s); in maintenance for %.0f s at most", broker,
                         sig.details.get("reason", ""), self.restart_budget_s)  # fmt: skip
                self.restarts[broker] = (decided, decided + self.restart_budget_s)
        elif sig.name == ANSWER_SIGNAL and sig.label("reason") == "answered":
            if sig.at > self.crashed.get(broker, sig.at):
                del self.crashed[broker]
            if known and known[0] < sig.at < known[1]:
                self.restarts[broker] = (known[0], sig.at)

    def restarting(self, at: float) -> set[str]:
        """The brokers in maintenance at ``at`` by the metadata's evidence of a restart."""
        return {b for b, (_, until) in self.restarts.items() if at < until}

    def brokers(self, at: float) -> set[str]:
        """The brokers in maintenance at ``at``, logged, declared or restarting."""
        return self.logged(at) | self.declared_brokers(at) | self.restarting(at)

    def logged(self, at: float) -> set[str]:
        """The brokers in maintenance at ``at`` because they logged a controlled shutdown."""
        return {b for b, until in self.until.items() if at < until}

    def declared_brokers(self, at: float) -> set[str]:
        return self.declared.brokers(at) if self.declared is not None else set()

    def sources(self, at: float) -> list[tuple[str, str]]:
        """(broker id, ``declared``, ``controlled_shutdown`` or ``shutdown_evidence``) of each
        maintenance at ``at``."""
        found = [(b, "declared") for b in self.declared_brokers(at)]
        found += [(b, "controlled_shutdown") for b in self.logged(at)]
        found += [(b, "shutdown_evidence") for b in self.restarting(at)]
        return sorted(found, key=lambda f: (len(f[0]), f[0], f[1]))

    def mutes(self, alert: Alert, rule: RuleConfig, now: float) -> str | None:
        """The reason ``alert`` is expected during maintenance (or held until the logs that
        would say so are read), or None, by its rule's ``maintenance`` settings."""
        if rule.maintenance == "page" or not only_listed_values(alert, rule.maintenance_only):
            return None
        return self._in_maintenance(alert, rule.maintenance, now) or self._awaiting_logs(
            alert, rule, now
        )

    def _awaiting_logs(self, alert: Alert, rule: RuleConfig, now: float) -> str | None:
        lookback_s = rule.maintenance_lookback_s
        if lookback_s <= 0 or self.logs_read_to is None or now >= alert.starts_at + self.wait_s:
            return None
        if alert.broker_id in self.crashed:
            return None  # the metadata has spoken: no shutdown line can be on its way
        if not only_listed_values(alert, rule.maintenance_lookback_only):
            return None
        needed = alert.starts_at - lookback_s
        if self.logs_read_to >= needed:
            return None
        behind = needed - self.logs_read_to
        if self.held.get(alert.fingerprint) != alert.starts_at:
            self.held[alert.fingerprint] = alert.starts_at
            log.info("%s of broker %s held: awaiting the broker logs (read to %.1f s before "
                     "its fault began)", alert.rule, alert.broker_id, behind)  # fmt: skip
        return f"awaiting the broker logs (read to {behind:.1f} s before its fault began)"

    def _in_maintenance(self, alert: Alert, mode: MaintenanceMode, now: float) -> str | None:
        at = min(now, alert.last_true_at)
        declared = self.declared_brokers(at)
        brokers = self.logged(at) | declared | self.restarting(at)
        if not brokers:
            return None

        def of(named: set[str]) -> str:
            kind = "declared maintenance" if named <= declared else "maintenance"
            return f"{kind} of broker " + ",".join(sorted(named, key=lambda b: (len(b), b)))

        if mode == "any_broker":
            return of(brokers)
        if alert.broker_id in brokers:
            return of({alert.broker_id})
        if mode == "hosted" and hosted_by(alert, brokers, "required"):
            return f"{of(brokers)} (hosts its partitions)"
        return None

    def prune(self, now: float) -> None:
        self.until = {b: u for b, u in self.until.items() if u > now - RETENTION_S}
        self.restarts = {b: w for b, w in self.restarts.items() if w[1] > now - RETENTION_S}
        self.crashed = {b: at for b, at in self.crashed.items() if at > now - RETENTION_S}
        self.held = {fp: at for fp, at in self.held.items() if at > now - RETENTION_S}
