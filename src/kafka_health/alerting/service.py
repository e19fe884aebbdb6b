"""The alert service: a driver-side thread that turns signals into delivered notifications.

Lifecycle as Burrow's modules: the constructor validates and connects to nothing; ``start()``
loads the state directory, starts /metrics, the evaluation thread (its own tick, so
``ClusterUnreachable`` and ``MonitorStalled`` fire when no batch runs) and a delivery thread per
receiver (:mod:`~.delivery`: one receiver's failures hold back no other's pages); ``stop()``
stops them in reverse. ``submit()`` (from ``foreachBatch``) only queues signals: no
evaluation, disk or network work ever holds up a batch. Tests drive ``open()``, ``step(now)``
and ``deliver(now)`` with an injected clock instead of the threads.

The pipeline, stage by stage in Alertmanager's order, each a module of its own:

- intake: signals -> the :mod:`~.inbox` -> :mod:`~kafka_health.alerting.store` ->
  :mod:`~.engine` (rule states);
- the notification :mod:`~.pipeline`, a list of stages of one signature run in order: mute
  (inhibit, maintenance, silence: :mod:`~.mute`), route, group (:mod:`~.group`), dedup against
  the :mod:`~.notify_log` (:mod:`~.dedup`), wait, notify (:mod:`~.payloads` into the
  :mod:`~.outbox`), and the notification log's record;
- :mod:`~.retry` delivers the outbox with backoff, counts, and hands a dropped notification
  back here (its group is owed it again).

This class only wires them, holds the state directory and runs the threads.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from prometheus_client import CollectorRegistry

from kafka_health.alerting.alertmanager_api import HandOver
from kafka_health.alerting.config import AlertingConfig
from kafka_health.alerting.declared_maintenance import FILE_NAME as DECLARED_FILE
from kafka_health.alerting.declared_maintenance import DeclaredMaintenance
from kafka_health.alerting.delivery import DeliveryWorkers
from kafka_health.alerting.engine import Engine
from kafka_health.alerting.exporter import ExportedAlert, Exporter, HealthCollector, Snapshot
from kafka_health.alerting.group import GroupTimers
from kafka_health.alerting.inbox import Inbox
from kafka_health.alerting.maintenance import Maintenance
from kafka_health.alerting.mute import Muted, MuteStage
from kafka_health.alerting.notification import Notification
from kafka_health.alerting.notify_log import Entry, NotifyLog
from kafka_health.alerting.outbox import Outbox
from kafka_health.alerting.payloads import Payloads
from kafka_health.alerting.persist import StateWrites, read_json
from kafka_health.alerting.pipeline import NotifyContext, Pipeline, ReceiverRoute, notify_pipeline
from kafka_health.alerting.retry import Dropped, RetryStage
from kafka_health.alerting.rule_config import AlertRulesConfig, load_rules
from kafka_health.alerting.silence import SilenceStore, configured_silences, parse_matcher
from kafka_health.alerting.store import SignalStore
from kafka_health.alerting.webhook import HttpTransport, Transport
from kafka_health.metrics_endpoint import MetricsEndpointsConfig
from kafka_health.model import Signal, labels
from kafka_health.state_format import check_format, stamped

log = logging.getLogger(__name__)

Clock = Callable[[], float]
DELIVERED_RETENTION_S = 7 * 86400.0
FIRST_BATCH_GRACE_S = 37.0
"""The first batch of a query generates and compiles its plan: 10-20 s here at idle, more on a
busy host (seen: MonitorStalled at the start of a fault-suite run beside a test run). Its
stall counts from this long after the query started (with MonitorStalled's 8 s: 45 s); later
batches get no grace."""
JOB_LIVENESS_SIGNALS = ("job_last_batch_timestamp", "job_kafka_unreachable")
"""What the running job's own queries tell the service (not the job's published snapshots)."""
ALERT_STATE_FORMAT = 2
"""The layout of ``state.json`` this release writes (1: before formats were written, read as
it is: the same fields)."""
SAVE_INTERVAL_S = 30.0
"""Alert state is saved at every change; the signal store at least this often."""


def signal_store(config: AlertingConfig, engine: Engine) -> SignalStore:
    """The store of the signals the enabled rules read: a series a rule reads as a counter,
    rate or range (or the job's liveness) outlives ``signal_ttl_s``; ranges keep history."""
    conditions = [c for rule in engine.rules.values() for c in rule.conditions()]
    return SignalStore(
        ttl_s=config.signal_ttl_s,
        ttl_exempt=frozenset(
            [c.signal for c in conditions if c.transform != "value"] + list(JOB_LIVENESS_SIGNALS)
        ),
        history_s={c.signal: c.range_s for c in conditions if c.range_s > 0},
        max_series=config.exporter.max_series_per_signal,
    )


class AlertingSections(Protocol):
    """What :meth:`AlertService.from_config` reads of the whole configuration
    (:class:`kafka_health.config.MonitorConfig` has it; the alerting package stays below it)."""

    @property
    def alerting(self) -> AlertingConfig: ...

    @property
    def cluster_name(self) -> str: ...

    @property
    def metrics_endpoints(self) -> MetricsEndpointsConfig: ...


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
        endpoints: MetricsEndpointsConfig | None = None,
    ) -> None:
        self.config = config
        self.rules = rules
        self.cluster = cluster
        self.clock = clock
        self.transport: Transport = transport if transport is not None else HttpTransport(clock)
        self.state_dir = Path(config.state_dir)
        self.engine = Engine(rules, config.resolved_retention_s)
        self.store = signal_store(config, self.engine)
        self.declared = DeclaredMaintenance(self.state_dir / DECLARED_FILE, announce=True)
        """``kafka-health maintenance``'s windows, re-read when the file changes."""
        self.maintenance = Maintenance(
            config.maintenance_window_s, config.maintenance_wait_s, self.declared,
            restart_budget_s=config.restart_budget_s,
        )  # fmt: skip
        self.silences = SilenceStore(
            self.state_dir / "silences.json",
            configured_silences(
                (s.matchers, s.starts_at, s.ends_at, s.comment, s.created_by)
                for s in config.silences
            ),
        )
        enabled = self.engine.rules.values()
        self.payloads = Payloads(cluster, config.group_by, config.external_url)
        self.mute = MuteStage(
            self.engine.rules, rules.inhibit_rules, self.maintenance, self.silences
        )
        self.timers = GroupTimers(
            config.group_wait_s, config.group_interval_s, config.root_group_wait_s
        )
        self.explainable = frozenset(t for r in rules.inhibit_rules for t in r.targets)
        """Rules some inhibit rule can explain: their first page waits for a late cause."""
        self.routes = [
            ReceiverRoute(r, tuple(parse_matcher(m) for m in r.matchers)) for r in config.receivers
        ]
        self.alert_label_names = tuple(
            sorted({k for rule in enabled for k in [*rule.by, *rule.labels]})
        )
        self.registry = registry if registry is not None else CollectorRegistry()
        self.retry = RetryStage(config.receivers, self.transport, self.registry, clock, rand)
        self.hand_over = HandOver(
            config.receivers, self.payloads,
            (self.retry.delivered_total, self.retry.failed_total), clock, rand,
        )  # fmt: skip
        """Receivers of format ``alertmanager_api``: a sender per Alertmanager instance."""
        self.registry.register(
            HealthCollector(self.snapshot, config.exporter.max_series_per_signal)
        )
        self.exporter = Exporter(config.exporter, self.registry, endpoints, cluster=cluster)
        self.writes = StateWrites()
        """Which state files the disk refuses (``MonitorStateNotWritable``)."""
        self.nflog: NotifyLog | None = None
        self.outbox: Outbox | None = None
        self.pipeline: Pipeline | None = None
        """The notification pipeline (:mod:`~.pipeline`), built by ``open()`` over the log and
        the outbox it loads."""
        self.heartbeat = 0.0
        self._state_lock = threading.RLock()
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self.inbox = Inbox(self._wake)
        self.workers = DeliveryWorkers(
            [w for r in config.receivers for w in self._workers_of(r.name)], self._deliver_to,
            self._next_attempt_at, clock, config.tick_s,
        )  # fmt: skip
        self._threads: list[threading.Thread] = []
        self._last_push = 0.0
        self._saved_at = 0.0
        self.muted = Muted()
        """The last evaluation's muting: causes named, each inhibited alert's root."""

    @classmethod
    def from_config(
        cls,
        config: AlertingSections,
        clock: Clock = time.time,
        registry: CollectorRegistry | None = None,
    ) -> AlertService:
        """The service of ``config.alerting`` with the rules of its ``rules_file``."""
        rules = load_rules(config.alerting.rules_file)
        return cls(
            config.alerting, rules, cluster=config.cluster_name, clock=clock, registry=registry,
            endpoints=config.metrics_endpoints,
        )  # fmt: skip

    # ----------------------------------------------------------------------------------------
    # Lifecycle

    def open(self) -> None:
        """Load the state directory (alerts, signals, maintenance, log, outbox, silences)."""
        now = self.clock()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        state = read_json(self.state_dir / "state.json", {})
        check_format(
            state, self.state_dir / "state.json", ALERT_STATE_FORMAT, "alert state",
            f"move {self.state_dir} aside to start over (firing alerts are then notified again)",
        )  # fmt: skip
        self.engine.restore(state.get("alerts", []))
        self.store.restore(state.get("signals", {}), now)
        # The previous process's queries: this one's report afresh (watch_query at their
        # start). Kept, the last batch of a killed job paged MonitorStalled while the new
        # one was still starting Spark (seen in the fault suite's monitor-kill).
        self.store.forget(JOB_LIVENESS_SIGNALS)
        self.maintenance.until = {str(k): float(v) for k, v in state.get("maintenance", {}).items()}
        self.nflog = NotifyLog(self.state_dir / "nflog.json", self.writes)
        self.outbox = Outbox(self.state_dir / "outbox", DELIVERED_RETENTION_S, now, self.writes)
        self.retry.drop_unknown(self.outbox)
        self._record_unrecorded()
        told = [e.firing for e in self.nflog.entries.values()]
        self.engine.adopt({fp: a.starts_at for firing in told for fp, a in firing.items()})
        self.silences.reload()
        self.declared.reload()
        self.pipeline = self._notify_pipeline(self.nflog, self.outbox)

    def _notify_pipeline(self, nflog: NotifyLog, outbox: Outbox) -> Pipeline:
        """The notification pipeline over the log and the outbox ``open()`` loaded."""
        return notify_pipeline(
            self.mute, self.routes, self.timers, self.payloads, nflog, outbox,
            group_by=self.config.group_by, repeat_interval_s=self.config.repeat_interval_s,
            explainable=self.explainable, hand_over=self.hand_over,
        )  # fmt: skip

    def _record_unrecorded(self) -> None:
        """Record in the notification log what pending notifications hold and it does not: a
        kill between a notification's write and the log's left the group notified but the
        log without it, and the next evaluation would have paged the incident again under
        another key (a test kills in that moment)."""
        assert self.nflog is not None and self.outbox is not None
        recorded = {key: e.to_json() for key, e in self.nflog.entries.items()}
        for pending in self.outbox.unrecorded(recorded):
            assert pending.told_after is not None
            receiver, group = pending.slot
            log.warning(
                "notification log: group %s of %s recorded from its pending notification (the "
                "service stopped between writing the two)", group, receiver,
            )  # fmt: skip
            self.nflog.record(receiver, group, Entry.from_json(pending.told_after))

    def start(self) -> None:
        """Open the state, then start /metrics, delivery and evaluation (in that order)."""
        if isinstance(self.transport, HttpTransport):
            self.transport.check(self.config.receivers)
        self.hand_over.check()
        self.open()
        self.exporter.start()
        try:
            self.workers.start()
            thread = threading.Thread(
                target=self._tick_loop, name="kafka-health-alert-evaluation", daemon=True
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
        for thread in reversed(self._threads):
            thread.join(timeout_s)
        self._threads.clear()
        self.workers.stop(timeout_s)
        self.exporter.stop()

    # ----------------------------------------------------------------------------------------
    # Inputs (thread-safe, never blocking on I/O)

    def submit(self, signals: Iterable[Signal]) -> None:
        """Queue some signals (the others stay until ``signal_ttl_s``); evaluated at once."""
        self.inbox.put(list(signals), snapshot=False)

    def publish(self, signals: list[Signal], snapshot: bool = True) -> None:
        """Queue the job's full current signals (the job's ``SignalSink``): a series it no
        longer reports is gone at the next evaluation; while not ``snapshot`` (the job reads
        again what a restart rewound) an update, which removes nothing. Never blocks on I/O."""
        self.inbox.put(list(signals), snapshot=snapshot)

    def watch_query(self, query: str, now: float | None = None) -> None:
        """A query has started: ``MonitorStalled`` counts from now plus
        :data:`FIRST_BATCH_GRACE_S` until its first batch."""
        at = self.clock() if now is None else now
        expected = at + FIRST_BATCH_GRACE_S
        self.inbox.put_own(Signal("job_last_batch_timestamp", labels(query=query), expected, at))

    def batch_completed(self, query: str, at: float | None = None) -> None:
        """A micro-batch of ``query`` completed (from a StreamingQueryListener)."""
        when = self.clock() if at is None else at
        self.inbox.put_own(Signal("job_last_batch_timestamp", labels(query=query), when, when))

    def kafka_unreachable(self, query: str, unreachable: bool, at: float | None = None) -> None:
        """Whether ``query`` can read Kafka (false again once it can)."""
        when = self.clock() if at is None else at
        self.inbox.put_own(
            Signal("job_kafka_unreachable", labels(query=query), float(unreachable), when)
        )

    # ----------------------------------------------------------------------------------------
    # One evaluation

    def step(self, now: float | None = None) -> list[Notification]:
        """Evaluate at ``now``; enqueue and return the notifications it decides to send."""
        assert self.nflog is not None and self.pipeline is not None, "open() first"
        now = self.clock() if now is None else now
        batches, own = self.inbox.take()
        with self._state_lock:
            for batch, snapshot in batches:
                if snapshot:
                    self.store.replace(batch, now, keep=own)
                else:
                    self.store.update(batch, now)
                self.maintenance.observe(batch, now)
            self.store.update(self._state_writes(now), now)
            self.store.expire(now)
            self.maintenance.prune(now)
            self.silences.reload()
            self.declared.reload()
            changed = self.engine.evaluate(self.store, now)
            alerts = self.engine.alerts
            notified, _ = self.pipeline(NotifyContext(now, alerts), list(alerts.values()))
            self.muted, sent = notified.muted, list(notified.sent)
            handed = notified.handed
            self.nflog.gc(now, self.config.resolved_retention_s)
            if self.writes.failures():
                self._write_all_again(now)
            elif changed or sent or now - self._saved_at >= SAVE_INTERVAL_S:
                self._save(now)
            self.heartbeat = now
        if sent or handed:
            names = {n.receiver for n in sent} | set(handed)
            self.workers.wake([w for name in names for w in self._workers_of(name)])
        return sent

    def _state_writes(self, now: float) -> list[Signal]:
        """1 for each state file the disk refused at its last write, 0 for the others."""
        failing = self.writes.failures()
        return [
            Signal("state_write_failing", labels(store=store), float(store in failing), now,
                   {"error": failing[store]} if store in failing else {})
            for store in StateWrites.STORES
        ]  # fmt: skip

    def _write_all_again(self, now: float) -> None:
        """After a refused write, every state file is written whole at each evaluation until
        the disk takes them all (what was kept in memory meanwhile reaches the disk)."""
        nflog, outbox = self.nflog, self.outbox
        assert nflog is not None and outbox is not None

        def rewrite() -> None:
            nflog.save()
            outbox.save_all()
            self._save(now)

        self.writes.write_again(rewrite)

    def _save(self, now: float) -> None:
        self._saved_at = now
        self.writes.write_json(
            "alert_state",
            self.state_dir / "state.json",
            stamped(
                {
                    "saved_at": now,
                    "alerts": self.engine.to_json(),
                    "signals": self.store.to_json(),
                    "maintenance": self.maintenance.until,
                },
                ALERT_STATE_FORMAT,
            ),
        )

    # ----------------------------------------------------------------------------------------
    # Delivery

    def deliver(self, now: float | None = None) -> int:
        """Attempt every due outbox entry once, every receiver in turn (the retry stage; the
        tests' and the replay's synchronous delivery), and hand Alertmanager instances their
        due alerts; return how many notifications were delivered."""
        assert self.outbox is not None, "open() first"
        now = self.clock() if now is None else now
        self.hand_over.deliver_all(now)
        return self.retry.deliver(self.outbox, now, self._owed)

    def _workers_of(self, receiver: str) -> list[str]:
        """A receiver's delivery workers: itself, or one per Alertmanager instance."""
        return self.hand_over.workers(receiver) or [receiver]

    def _deliver_to(self, worker: str) -> int:
        """A worker: attempt its receiver's due entries (or its instance's alerts) once."""
        assert self.outbox is not None, "open() first"
        if worker in self.hand_over.instances:
            return self.hand_over.deliver(worker)
        return self.retry.deliver(self.outbox, self.clock(), self._owed, worker)

    def _next_attempt_at(self, worker: str) -> float | None:
        assert self.outbox is not None, "open() first"
        if worker in self.hand_over.instances:
            return self.hand_over.next_at(worker)
        return self.outbox.next_attempt_at(worker)

    def _owed(self, dropped: Dropped) -> None:
        """A notification the receiver never accepted: its group is owed it again. Its
        notification-log entry from before it goes back (or on to the group's next pending
        notification), so the next evaluation notifies the group again; after a refusal, no
        sooner than ``group_interval_s``, so a receiver that refuses everything is asked once
        per interval, not every second."""
        assert self.outbox is not None and self.nflog is not None
        entry, n = dropped.entry, dropped.entry.notification
        with self._state_lock:
            if not self.outbox.pass_on(entry):
                told = entry.told_before
                self.nflog.restore(
                    n.receiver, n.group_key, Entry.from_json(told) if told is not None else None
                )
                if dropped.hold:
                    now = self.clock()
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
                series_dropped=self.store.dropped(),
                alerts_dropped=self.engine.dropped(),
                maintenance=self.maintenance.sources(self.clock()),
            )
