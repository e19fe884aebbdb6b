"""The alert service: a driver-side thread that turns signals into delivered notifications.

Lifecycle as Burrow's modules: the constructor validates and connects to nothing; ``start()``
loads the state directory, starts /metrics, the evaluation thread (its own tick, so
``ClusterUnreachable`` and ``MonitorStalled`` fire when no batch runs) and the delivery thread;
``stop()`` stops them in reverse. ``submit()`` (from ``foreachBatch``) only queues signals: no
evaluation, disk or network work ever holds up a batch. Tests drive ``open()``, ``step(now)``
and ``deliver(now)`` with an injected clock instead of the threads.

Each step: signals -> store -> engine (lifecycle) -> mute (inhibition with causes named,
maintenance, silences) -> per receiver: route, group, dedup by the notification log -> outbox.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter

from kafka_health.alerting.causes import name_causes, root_of
from kafka_health.alerting.engine import Alert, AlertState, Engine
from kafka_health.alerting.exporter import ExportedAlert, Exporter, HealthCollector, Snapshot
from kafka_health.alerting.group import GroupTimers, group_key, group_labels
from kafka_health.alerting.inhibit import inhibitions
from kafka_health.alerting.maintenance import Maintenance
from kafka_health.alerting.notify_log import (
    Entry,
    NotifiedAlert,
    NotifyLog,
    NotifyReason,
    idempotency_key,
    needs_update,
)
from kafka_health.alerting.outbox import Outbox, OutboxEntry
from kafka_health.alerting.persist import read_json, write_json
from kafka_health.alerting.rules import AlertRulesConfig, load_rules
from kafka_health.alerting.silence import (
    Matcher,
    SilenceStore,
    configured_silences,
    matches_all,
    parse_matcher,
)
from kafka_health.alerting.store import SignalStore
from kafka_health.alerting.webhook import (
    FAILURE_REASONS,
    AlertPayload,
    HttpTransport,
    Notification,
    Transport,
    backoff_s,
)
from kafka_health.config import AlertingConfig, MonitorConfig, ReceiverConfig
from kafka_health.model import LabelSet, Signal, labels

log = logging.getLogger(__name__)

DROP_REASONS = ("rejected", "gave_up")
"""Why a notification was dropped: the receiver refused it (a 4xx answer other than 408 and
429), or it was still undelivered after the receiver's ``give_up_after_s``."""
Clock = Callable[[], float]
DELIVERED_RETENTION_S = 7 * 86400.0
FIRST_BATCH_GRACE_S = 30.0
"""The first batch of a query generates and compiles its plan: 10-20 s here at idle, more on a
busy host (seen: MonitorStalled at the start of a fault-suite run beside a test run). Its
stall counts from this long after the query started; later batches get no grace."""
JOB_LIVENESS_SIGNALS = ("job_last_batch_timestamp", "job_kafka_unreachable")
"""What the running job's own queries tell the service (not the job's published snapshots)."""
SAVE_INTERVAL_S = 30.0
"""Alert state is saved at every change; the signal store at least this often."""


@dataclass(frozen=True)
class _Route:
    """A receiver and the alerts it takes: its severities (empty: all) and matchers."""

    receiver: ReceiverConfig
    matchers: tuple[Matcher, ...]

    def accepts(self, alert: Alert) -> bool:
        severities = self.receiver.severities
        if severities and alert.labels.get("severity") not in severities:
            return False
        return matches_all(self.matchers, alert.labels)


class AlertService:
    """Rules + receivers + a state directory; see the module docstring for the lifecycle."""

    def __init__(
        self,
        config: AlertingConfig,
        rules: AlertRulesConfig,
        *,
        cluster: str = "local",
        clock: Clock = time.time,
        transport: Transport | None = None,
        registry: CollectorRegistry | None = None,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.config = config
        self.rules = rules
        self.cluster = cluster
        self.clock = clock
        self.rand = rand
        self.transport: Transport = transport if transport is not None else HttpTransport(clock)
        self.state_dir = Path(config.state_dir)
        self.engine = Engine(rules, config.resolved_retention_s)
        enabled = self.engine.rules.values()
        conditions = [c for rule in enabled for c in rule.any_of]
        self.store = SignalStore(
            ttl_s=config.signal_ttl_s,
            ttl_exempt=frozenset(
                [c.signal for c in conditions if c.transform != "value"]
                + list(JOB_LIVENESS_SIGNALS)
            ),
            history_s={c.signal: c.range_s for c in conditions if c.range_s > 0},
        )
        self.maintenance = Maintenance(config.maintenance_window_s)
        self.silences = SilenceStore(
            self.state_dir / "silences.json",
            configured_silences(
                (s.matchers, s.starts_at, s.ends_at, s.comment, s.created_by)
                for s in config.silences
            ),
        )
        self.timers = GroupTimers(
            config.group_wait_s, config.group_interval_s, config.root_group_wait_s
        )
        self.explainable = frozenset(t for r in rules.inhibit_rules for t in r.targets)
        """Rules some inhibit rule can explain: their first page waits for a late cause."""
        self.routes = [
            _Route(r, tuple(parse_matcher(m) for m in r.matchers)) for r in config.receivers
        ]
        self.receivers = {r.name: r for r in config.receivers}
        self.alert_label_names = tuple(
            sorted({k for rule in enabled for k in [*rule.by, *rule.labels]})
        )
        self.registry = registry if registry is not None else CollectorRegistry()
        self.notifications = Counter(
            "kafka_health_notifications",
            "notifications delivered, by receiver",
            ["receiver"],
            registry=self.registry,
        )
        self.dropped = Counter(
            "kafka_health_notifications_dropped",
            "notifications the receiver never accepted (refused, or given up on after retries):"
            " the group is notified again",
            ["receiver", "reason"],
            registry=self.registry,
        )
        self.failures = Counter(
            "kafka_health_notifications_failed",
            "failed notification attempts, by receiver and reason",
            ["receiver", "reason"],
            registry=self.registry,
        )
        for receiver in config.receivers:
            self.notifications.labels(receiver.name)
            for reason in FAILURE_REASONS:
                self.failures.labels(receiver.name, reason)
            for reason in DROP_REASONS:
                self.dropped.labels(receiver.name, reason)
        self.registry.register(
            HealthCollector(self.snapshot, config.exporter.max_series_per_signal)
        )
        self.exporter = Exporter(config.exporter, self.registry)
        self.nflog: NotifyLog | None = None
        self.outbox: Outbox | None = None
        self.heartbeat = 0.0
        self._inbox: list[tuple[list[Signal], bool]] = []
        self._own_keys: set[tuple[str, LabelSet]] = set()
        self._inbox_lock = threading.Lock()
        self._state_lock = threading.RLock()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._deliver_wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._last_push = 0.0
        self._saved_at = 0.0
        self._roots: dict[str, str] = {}
        """Each inhibited alert's root cause (fingerprint), from the last evaluation."""

    @classmethod
    def from_config(
        cls,
        config: MonitorConfig,
        clock: Clock = time.time,
        registry: CollectorRegistry | None = None,
    ) -> AlertService:
        """The service of ``config.alerting`` with the rules of its ``rules_file``."""
        rules = load_rules(config.alerting.rules_file)
        return cls(
            config.alerting, rules, cluster=config.cluster_name, clock=clock, registry=registry
        )

    # ----------------------------------------------------------------------------------------
    # Lifecycle

    def open(self) -> None:
        """Load the state directory (alerts, signals, maintenance, log, outbox, silences)."""
        now = self.clock()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        state = read_json(self.state_dir / "state.json", {})
        self.engine.restore(state.get("alerts", []))
        self.store.restore(state.get("signals", {}), now)
        # The previous process's queries: this one's report afresh (watch_query at their
        # start). Kept, the last batch of a killed job paged MonitorStalled while the new
        # one was still starting Spark (seen in the fault suite's monitor-kill).
        self.store.forget(JOB_LIVENESS_SIGNALS)
        self.maintenance.until = {str(k): float(v) for k, v in state.get("maintenance", {}).items()}
        self.nflog = NotifyLog(self.state_dir / "nflog.json")
        told = [e.firing for e in self.nflog.entries.values()]
        self.engine.adopt({fp: a.starts_at for firing in told for fp, a in firing.items()})
        self.outbox = Outbox(self.state_dir / "outbox", DELIVERED_RETENTION_S, now)
        self.silences.reload()

    def start(self) -> None:
        """Open the state, then start /metrics, delivery and evaluation (in that order)."""
        if isinstance(self.transport, HttpTransport):
            self.transport.check(self.config.receivers)
        self.open()
        self.exporter.start()
        try:
            for name, target in (
                ("delivery", self._delivery_loop),
                ("evaluation", self._tick_loop),
            ):
                thread = threading.Thread(
                    target=target, name=f"kafka-health-alert-{name}", daemon=True
                )
                thread.start()
                self._threads.append(thread)
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop evaluation, then delivery, then /metrics; the state is already on disk."""
        self._stopping.set()
        self._wake.set()
        self._deliver_wake.set()
        for thread in reversed(self._threads):
            thread.join(timeout_s)
        self._threads.clear()
        self.exporter.stop()

    # ----------------------------------------------------------------------------------------
    # Inputs (thread-safe, never blocking on I/O)

    def submit(self, signals: Iterable[Signal]) -> None:
        """Queue some signals (the others stay until ``signal_ttl_s``); evaluated at once."""
        self._queue(list(signals), snapshot=False)

    def publish(self, signals: list[Signal]) -> None:
        """Queue the job's full current signals (the job's ``SignalSink``): a series it no
        longer reports is gone at the next evaluation. Never blocks on I/O."""
        self._queue(list(signals), snapshot=True)

    def _queue(self, batch: list[Signal], snapshot: bool) -> None:
        with self._inbox_lock:
            self._inbox.append((batch, snapshot))
        self._wake.set()

    def _own(self, signal: Signal) -> None:
        with self._inbox_lock:
            self._own_keys.add((signal.name, signal.labels))
            self._inbox.append(([signal], False))
        self._wake.set()

    def watch_query(self, query: str, now: float | None = None) -> None:
        """A query has started: ``MonitorStalled`` counts from now plus
        :data:`FIRST_BATCH_GRACE_S` until its first batch."""
        at = self.clock() if now is None else now
        expected = at + FIRST_BATCH_GRACE_S
        self._own(Signal("job_last_batch_timestamp", labels(query=query), expected, at))

    def batch_completed(self, query: str, at: float | None = None) -> None:
        """A micro-batch of ``query`` completed (from a StreamingQueryListener)."""
        when = self.clock() if at is None else at
        self._own(Signal("job_last_batch_timestamp", labels(query=query), when, when))

    def kafka_unreachable(self, query: str, unreachable: bool, at: float | None = None) -> None:
        """Whether ``query`` can read Kafka (false again once it can)."""
        when = self.clock() if at is None else at
        self._own(Signal("job_kafka_unreachable", labels(query=query), float(unreachable), when))

    # ----------------------------------------------------------------------------------------
    # One evaluation

    def step(self, now: float | None = None) -> list[Notification]:
        """Evaluate at ``now``; enqueue and return the notifications it decides to send."""
        assert self.nflog is not None and self.outbox is not None, "open() first"
        now = self.clock() if now is None else now
        with self._inbox_lock:
            batches, self._inbox = self._inbox, []
            own = set(self._own_keys)
        with self._state_lock:
            for batch, snapshot in batches:
                if snapshot:
                    self.store.replace(batch, now, keep=own)
                else:
                    self.store.update(batch, now)
                self.maintenance.observe(batch)
            self.store.expire(now)
            self.maintenance.prune(now)
            self.silences.reload()
            changed = self.engine.evaluate(self.store, now)
            extra = self._mute(now)
            self.timers.begin_evaluation()
            sent = [n for route in self.routes for n in self._notify(route, extra, now)]
            self.nflog.gc(now, self.config.resolved_retention_s)
            if changed or sent or now - self._saved_at >= SAVE_INTERVAL_S:
                self._save(now)
            self.heartbeat = now
        if sent:
            self._deliver_wake.set()
        return sent

    def _mute(self, now: float) -> dict[str, dict[str, str]]:
        alerts = self.engine.alerts
        inhibited = inhibitions(alerts.values(), self.rules.inhibit_rules, now)
        explained = {t: s for t, (s, _) in inhibited.items()}
        self._roots = {t: root_of(t, explained) for t in explained}
        extra = name_causes(
            alerts, explained, {t: rule.cause for t, (_, rule) in inhibited.items() if rule.cause}
        )
        for alert in alerts.values():
            alert.muted_by = []
            if alert.fingerprint in inhibited:
                source_fp, rule = inhibited[alert.fingerprint]
                alert.muted_by.append(f"inhibited by {alerts[source_fp].rule} ({rule.name})")
            rule_config = self.engine.rules[alert.rule]
            reason = self.maintenance.mutes(
                alert, rule_config.maintenance, now, rule_config.maintenance_only
            )
            if reason:
                alert.muted_by.append(reason)
            alert.muted_by.extend(
                f"silenced by {sid}" for sid in self.silences.muting(alert.labels, now)
            )
        return extra

    def _notify(
        self, route: _Route, extra: dict[str, dict[str, str]], now: float
    ) -> list[Notification]:
        assert self.nflog is not None and self.outbox is not None
        receiver = route.receiver
        alerts = self.engine.alerts
        groups: dict[str, list[Alert]] = {}
        for alert in alerts.values():
            if route.accepts(alert):
                groups.setdefault(group_key(alert.labels, self.config.group_by), []).append(alert)
        for (name, key), known in self.nflog.entries.items():
            if name == receiver.name and known.firing:
                groups.setdefault(key, [])
        result = []
        for key, members in sorted(groups.items()):
            entry = self.nflog.get(receiver.name, key)
            firing = {
                a.fingerprint: a for a in members if a.state == AlertState.FIRING and not a.muted_by
            }
            muted = {a.fingerprint for a in members if a.state == AlertState.FIRING and a.muted_by}
            resolved: dict[str, NotifiedAlert] = {}
            kept: dict[str, NotifiedAlert] = {}
            for fp, told in (entry.firing if entry else {}).items():
                now_alert = alerts.get(fp)
                same = now_alert is not None and now_alert.starts_at == told.starts_at
                if same and now_alert is not None and now_alert.state == AlertState.FIRING:
                    if fp in muted:
                        kept[fp] = told
                else:
                    resolved[fp] = told
            # Notified alerts a cause now explains: the incident is updated to name it.
            causes = {fp: self._roots[fp] for fp in kept if self._explained(fp, extra)}
            reason = needs_update(
                entry,
                {fp: a.starts_at for fp, a in firing.items()},
                set(resolved),
                self.config.repeat_interval_s,
                now,
                causes,
            )
            roots_only = bool(firing) and not any(
                a.rule in self.explainable for a in firing.values()
            )
            if not self.timers.due(receiver.name, key, reason, entry, now, roots_only):
                continue
            assert reason is not None
            self.timers.flushed(receiver.name, key)
            repeat = entry.repeat + 1 if entry is not None and reason == NotifyReason.REPEAT else 0
            # The explained alerts stay in the incident, firing, each naming its cause.
            shown = {**firing, **{fp: alerts[fp] for fp in causes}}
            payload = [self._payload(a, extra) for a in shown.values()]
            if receiver.send_resolved:
                payload += [self._resolved_payload(fp, told, now) for fp, told in resolved.items()]
            told_now = {
                fp: NotifiedAlert(
                    a.starts_at, a.labels, self._annotations(a, extra), causes.get(fp, "")
                )
                for fp, a in shown.items()
            }
            payload.sort(key=lambda a: (a.status != "firing", a.starts_at))  # as on the wire
            if payload:
                named = [f"{fp}:{cause}" for fp, cause in causes.items()]
                notification = self._notification(
                    receiver, key, reason, payload, repeat, now, named
                )
                before = entry.to_json() if entry is not None else None
                if self.outbox.enqueue(notification, now, told_before=before):
                    result.append(notification)
            self.nflog.record(receiver.name, key, Entry({**kept, **told_now}, now, repeat))
        return result

    def _explained(self, fp: str, extra: dict[str, dict[str, str]]) -> bool:
        """Whether the alert is muted by a cause (not a silence or maintenance) named in
        ``extra``."""
        alert = self.engine.alerts.get(fp)
        return (
            alert is not None
            and fp in self._roots
            and bool(extra.get(fp, {}).get("cause"))
            and bool(alert.muted_by)
            and all(m.startswith("inhibited by ") for m in alert.muted_by)
        )

    def _annotations(self, alert: Alert, extra: dict[str, dict[str, str]]) -> dict[str, str]:
        return {**alert.annotations, **extra.get(alert.fingerprint, {})}

    def _payload(self, alert: Alert, extra: dict[str, dict[str, str]]) -> AlertPayload:
        annotations = self._annotations(alert, extra)
        if alert.details:
            annotations["details"] = _compact(alert.details)
        return AlertPayload(
            "firing",
            {"cluster": self.cluster, **alert.labels},
            annotations,
            alert.starts_at,
            None,
            alert.fingerprint,
        )

    def _resolved_payload(self, fp: str, told: NotifiedAlert, now: float) -> AlertPayload:
        alert = self.engine.alerts.get(fp)
        ends_at = alert.ends_at if alert is not None and alert.ends_at is not None else now
        return AlertPayload(
            "resolved",
            {"cluster": self.cluster, **told.labels},
            told.annotations,
            told.starts_at,
            ends_at,
            fp,
        )

    def _notification(
        self,
        receiver: ReceiverConfig,
        key: str,
        reason: NotifyReason,
        alerts: list[AlertPayload],
        repeat: int,
        now: float,
        causes: list[str] | None = None,
    ) -> Notification:
        firing = any(a.status == "firing" for a in alerts)
        return Notification(
            receiver=receiver.name,
            group_key=key,
            group_labels=group_labels(alerts[0].labels, self.config.group_by),
            status="firing" if firing else "resolved",
            reason=reason.value,
            idempotency_key=idempotency_key(
                receiver.name,
                key,
                [(a.fingerprint, a.status, a.starts_at) for a in alerts],
                repeat,
                causes,
            ),
            alerts=alerts,
            cluster=self.cluster,
            external_url=self.config.external_url,
            created_at=now,
        )

    def _save(self, now: float) -> None:
        self._saved_at = now
        write_json(
            self.state_dir / "state.json",
            {
                "saved_at": now,
                "alerts": self.engine.to_json(),
                "signals": self.store.to_json(),
                "maintenance": self.maintenance.until,
            },
        )

    # ----------------------------------------------------------------------------------------
    # Delivery

    def deliver(self, now: float | None = None) -> int:
        """Attempt every due outbox entry once; return how many were delivered."""
        assert self.outbox is not None, "open() first"
        now = self.clock() if now is None else now
        delivered = 0
        for entry in self.outbox.due(now):
            n = entry.notification
            receiver = self.receivers.get(n.receiver)
            if receiver is None:
                log.warning("dropping a notification for unknown receiver %s", n.receiver)
                self.outbox.drop(entry)
                continue
            if now - entry.created_at > receiver.give_up_after_s:
                self.failures.labels(n.receiver, "gave_up").inc()
                self._dropped(entry, "gave_up", entry.last_error, now)
                continue
            result = self.transport.send(receiver, n)
            if result.ok:
                self.outbox.delivered(entry, self.clock())
                self.notifications.labels(n.receiver).inc()
                delivered += 1
                continue
            self.failures.labels(n.receiver, result.reason or "connection").inc()
            if result.retryable:
                wait = backoff_s(entry.attempts + 1, receiver, result.retry_after_s, self.rand)
                self.outbox.failed(entry, now + wait, result.error)
                log.warning(
                    "notification to %s failed (%s), retry in %.1f s",
                    n.receiver,
                    result.error,
                    wait,
                )
            else:
                self._dropped(entry, "rejected", result.error, now, hold=True)
        return delivered

    def _dropped(
        self, entry: OutboxEntry, reason: str, error: str, now: float, hold: bool = False
    ) -> None:
        """A notification the receiver never accepted: counted, logged with its group, and
        its group owed again. Its notification-log entry from before it goes back (or on to
        the group's next pending notification), so the next evaluation notifies the group
        again; after a refusal (``hold``), no sooner than ``group_interval_s``, so a
        receiver that refuses everything is asked once per interval, not every second."""
        assert self.outbox is not None and self.nflog is not None
        n = entry.notification
        self.dropped.labels(n.receiver, reason).inc()
        log.error(
            "notification %s to %s for group %s %s (%s) after %d attempt(s): the group will "
            "be notified again", n.idempotency_key, n.receiver, n.group_key,
            "refused" if reason == "rejected" else "given up", error, entry.attempts + 1,
        )  # fmt: skip
        with self._state_lock:
            self.outbox.drop(entry)
            if not self.outbox.pass_on(entry):
                told = entry.told_before
                self.nflog.restore(
                    n.receiver, n.group_key, Entry.from_json(told) if told is not None else None
                )
                if hold:
                    self.timers.hold(n.receiver, n.group_key, now + self.config.group_interval_s)
        self._wake.set()

    # ----------------------------------------------------------------------------------------
    # Threads and the exporter

    def _tick_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                self.step()
                now = self.clock()
                if now - self._last_push >= self.config.exporter.push_interval_s:
                    self._last_push = now
                    self.exporter.push({"cluster": self.cluster})
            except Exception:
                log.exception("alert evaluation failed")
            self._wake.wait(self.next_wait_s())
            self._wake.clear()

    def next_wait_s(self) -> float:
        """Seconds until the next evaluation: the tick, or sooner when a group's wait ends
        (so a first page leaves when its group wait is over, not at the tick after)."""
        due = self.timers.next_due()
        if due is None:
            return self.config.tick_s
        return min(self.config.tick_s, max(due - self.clock(), 0.01))

    def _delivery_loop(self) -> None:
        assert self.outbox is not None
        while not self._stopping.is_set():
            try:
                self.deliver()
            except Exception:
                log.exception("notification delivery failed")
            next_at = self.outbox.next_attempt_at()
            wait = self.config.tick_s if next_at is None else next_at - self.clock()
            self._deliver_wake.wait(min(max(wait, 0.01), self.config.tick_s))
            self._deliver_wake.clear()

    def snapshot(self) -> Snapshot:
        """What /metrics shows now."""
        with self._state_lock:
            alerts = [
                ExportedAlert(a.labels, a.state.value)
                for a in self.engine.alerts.values()
                if a.active
            ]
            return Snapshot(
                signals=self.store.signals(),
                alerts=alerts,
                alert_label_names=self.alert_label_names,
                heartbeat=self.heartbeat,
                outbox_pending=len(self.outbox.pending()) if self.outbox is not None else 0,
            )


def _compact(details: dict[str, object], limit: int = 2000) -> str:
    import json

    text = json.dumps(details, sort_keys=True, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
