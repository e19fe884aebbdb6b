"""Alerts handed to Alertmanager as Prometheus hands them over (receivers of format
``alertmanager_api``): ``POST <url>/api/v2/alerts`` to every instance of the cluster.

As Prometheus's rule manager and notifier (``rules/alerting.go``, ``notifier/notifier.go``):

- every firing alert is sent as soon as it fires (no group wait here: Alertmanager groups,
  waits and dedups by labels itself), and again every ``resend_s`` while it fires, with
  ``endsAt`` = the send time + 4 * ``resend_s`` (Prometheus: 4 * max(resend delay, evaluation
  interval); the monitor evaluates every ``tick_s``, far below ``resend_s``): an Alertmanager
  that hears nothing more resolves it on its own only after 4 missed re-sends;
- a resolved alert is sent with its ``endsAt`` (when it resolved) until each instance took it
  (failures retried with the backoff), and not again: unlike Prometheus, which re-sends it every
  resend delay for its 15-minute ``resolvedRetention`` (its reasons, ``rules/alerting.go``: a
  send lost to the network, which its notifier does not retry but this sender does; and an
  Alertmanager restarted before notifying it, the cost below).
  Each such re-send re-creates the alert's Alertmanager group once its cleanup (every 30 s) has
  dropped it, and that group flushes at once (the resolution's ``startsAt`` is old): a new
  incident of the same group within the following ~30 s then waits for the next
  ``group_interval`` tick instead of ``group_wait`` (measured before commit 40ac1f3: a page 10.5 s
  after a broker kill instead of 1.5 s; tests/integration/test_alertmanager_handover.py). The
  cost: an Alertmanager restarted between taking a resolution and notifying it (within
  ``group_interval``) forgets it, and its incident stays open at the pager;
- the monitor's own mutes still apply (its value: maintenance, silences, the causes it names):
  an alert muted by a maintenance or a silence is not handed over (one handed over before is
  ended at once: ``endsAt`` = when it was muted); an alert explained by a firing cause is held
  back, as the direct receivers hold it back (its cause's page stands for it), and one handed
  over before its cause was known stays, with its ``cause`` annotation, as the direct
  receivers' incidents keep it. Handed over, an explained alert without its cause's grouping
  labels (the cluster's CanaryWriteFailure a dead broker explains) opened a group of its own
  in Alertmanager, a second page for one fault (BENCHMARKS.md F22);
- every instance gets every alert: a sender per instance, each with its own schedule and
  backoff, so one instance down holds back no other (Prometheus: one queue, a goroutine per
  Alertmanager per batch). Nothing is written to disk: a re-send is harmless (Alertmanager
  dedups by labels), and a restarted Alertmanager, or monitor, has every firing alert back
  within ``resend_s`` (the monitor: at its first evaluation).

Sends and failures are counted on the delivery counters of the receiver
(``kafka_health_notifications_total``, ``kafka_health_notifications_failed_total``).
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_health.alerting.config import ReceiverConfig
from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.http_exchange import Answer, post
from kafka_health.alerting.mute import Muted
from kafka_health.alerting.payloads import Payloads
from kafka_health.alerting.webhook import (
    FAILURE_REASONS,
    USER_AGENT,
    DeliveryResult,
    backoff_s,
    classify,
    failed_attempt,
    rfc3339,
)
from kafka_health.configuration.redact import safe_url
from kafka_health.configuration.secrets import resolve_value

log = logging.getLogger(__name__)

FORMAT = "alertmanager_api"
API_PATH = "/api/v2/alerts"
ENDS_AFTER_RESENDS = 4
"""A firing alert's ``endsAt`` is this many ``resend_s`` after its send (Prometheus's 4)."""
RESOLVED_RESEND_S = 900.0
"""How long a resolution is remembered (Prometheus's ``resolvedRetention``, 15 minutes): one
the monitor finds resolved without a record of it (restarted) is handed over within this."""
MAX_BATCH = 256
"""Alerts per request at most (Prometheus's ``maxBatchSize``)."""
MIN_RETRY_S = 0.1

Post = Callable[[str, bytes, Mapping[str, str], float], Answer]


def is_api(receiver: ReceiverConfig) -> bool:
    return receiver.format == FORMAT


def api_url(base: str) -> str:
    """The alerts endpoint of an Alertmanager at ``base`` (its path prefix kept)."""
    return base.rstrip("/") + API_PATH


@dataclass
class Handed:
    """One alert as handed over: its fields, and when it ended (None while firing)."""

    labels: dict[str, str]
    annotations: dict[str, str]
    starts_at: float
    ends_at: float | None = None
    version: int = 0
    """Changes when what is sent changes (annotations, the end): sent at once, not at the
    next re-send."""


def api_alert(alert: Handed, generator_url: str, now: float, resend_s: float) -> dict[str, Any]:
    """One alert as ``POST /api/v2/alerts`` takes it (``postableAlert``)."""
    ends = alert.ends_at if alert.ends_at is not None else now + ENDS_AFTER_RESENDS * resend_s
    return {
        "labels": {k: v for k, v in alert.labels.items() if v},  # Prometheus drops empty ones
        "annotations": alert.annotations,
        "startsAt": rfc3339(alert.starts_at),
        "endsAt": rfc3339(ends),
        "generatorURL": generator_url,
    }


def api_body(alerts: Iterable[Handed], generator_url: str, now: float, resend_s: float) -> bytes:
    body = [api_alert(a, generator_url, now, resend_s) for a in alerts]
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _still_handed(handed: Mapping[str, Handed], alert: Alert) -> bool:
    """Whether this instance of ``alert`` (the same start) is handed over and not ended."""
    known = handed.get(alert.fingerprint)
    return known is not None and known.ends_at is None and known.starts_at == alert.starts_at


def due_at(alert: Handed, sent: tuple[int, float] | None, resend_s: float) -> float | None:
    """When ``alert`` is due to an instance that was last sent ``sent`` (its version, when):
    0 when new or changed; a firing one again ``resend_s`` after its last send; a resolution
    that was sent in its current version never again (None)."""
    if sent is None or sent[0] != alert.version:
        return 0.0
    if alert.ends_at is not None:
        return None
    return sent[1] + resend_s


@dataclass
class Instance:
    """One Alertmanager of a receiver: what it was last sent, and when it may be asked again."""

    receiver: ReceiverConfig
    index: int
    sent: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Per fingerprint: the version sent and when."""
    failures: int = 0
    retry_at: float = 0.0

    @property
    def worker(self) -> str:
        return f"{self.receiver.name}#{self.index}"


class HandOver:
    """The alerts of every ``alertmanager_api`` receiver and one sender per instance.
    :meth:`update` (the evaluation thread) records what should be handed over;
    :meth:`deliver` (an instance's worker) sends what is due; both thread-safe."""

    def __init__(
        self,
        receivers: Iterable[ReceiverConfig],
        payloads: Payloads,
        counters: tuple[Any, Any],
        clock: Callable[[], float],
        rand: Callable[[], float] = random.random,
        send: Post = post,
    ) -> None:
        """``counters``: the delivery counters (delivered by receiver, failed by receiver and
        reason) shared with the outbox's delivery."""
        self.payloads = payloads
        self.delivered_total, self.failed_total = counters
        self.clock = clock
        self.rand = rand
        self.send = send
        self._lock = threading.Lock()
        self.alerts: dict[str, dict[str, Handed]] = {}
        self.held: dict[str, dict[str, float]] = {}
        """Per receiver, the firing alerts muted before they were ever handed over (their
        starts): their resolution is not sent either (it would open a group in Alertmanager
        with nothing to say)."""
        self.instances: dict[str, Instance] = {}
        self._urls: dict[str, str] = {}
        for receiver in receivers:
            if not is_api(receiver):
                continue
            self.alerts[receiver.name] = {}
            self.held[receiver.name] = {}
            for i in range(1 + len(receiver.urls)):
                instance = Instance(receiver, i)
                self.instances[instance.worker] = instance

    def workers(self, receiver: str) -> list[str]:
        """The worker names of a receiver's instances (none: not an API receiver)."""
        return [w for w, i in self.instances.items() if i.receiver.name == receiver]

    def _url(self, instance: Instance) -> str:
        """The instance's base URL (a secret is read once, then kept in memory)."""
        if instance.worker not in self._urls:
            r = instance.receiver
            self._urls[instance.worker] = resolve_value(
                r.url if instance.index == 0 else r.urls[instance.index - 1]
            )
        return self._urls[instance.worker]

    def check(self) -> None:
        """Read every instance's URL now (``ConfigError`` at start when one cannot be)."""
        for instance in self.instances.values():
            self._url(instance)

    # ----------------------------------------------------------------------------------------
    # The evaluation thread

    def update(self, receiver: str, alerts: Iterable[Alert], muted: Muted, now: float) -> bool:
        """The receiver's current alerts: the firing ones not muted (or, handed over before,
        now explained by a cause) are handed over; one handed over before that no longer is
        ends now (or when it resolved). True when anything is due to be sent at once."""
        alerts = list(alerts)
        changed = False
        with self._lock:
            handed = self.alerts[receiver]
            current = {
                a.fingerprint: a
                for a in alerts
                if a.state == AlertState.FIRING
                and (not a.muted_by or (muted.explained(a) and _still_handed(handed, a)))
            }
            resolved = {a.fingerprint: a for a in alerts if a.state == AlertState.RESOLVED}
            muted_now = {
                a.fingerprint: a.starts_at
                for a in alerts
                if a.state == AlertState.FIRING and a.fingerprint not in current
                and a.fingerprint not in handed
            }  # fmt: skip
            held = self.held[receiver] = {
                fp: start
                for fp, start in {**self.held[receiver], **muted_now}.items()
                if fp in muted_now or fp in resolved
            }
            for fp, alert in current.items():
                shown = self.payloads.firing(alert, muted.extra)
                known = handed.get(fp)
                if known is not None and _still_handed(handed, alert):
                    if known.annotations != shown.annotations or known.labels != shown.labels:
                        known.annotations, known.labels = shown.annotations, shown.labels
                        known.version += 1
                        changed = True
                    continue
                version = known.version + 1 if known is not None else 0
                handed[fp] = Handed(shown.labels, shown.annotations, shown.starts_at, None, version)
                changed = True
            for fp, alert in resolved.items():
                # Resolved while no record of it was kept here (the monitor restarted): its
                # resolution goes out too, harmless to an Alertmanager that never had it. Not
                # one held back from its start (muted): Alertmanager would open its group.
                ends_at = alert.ends_at if alert.ends_at is not None else now
                recent = now - ends_at <= RESOLVED_RESEND_S
                never = held.get(fp) == alert.starts_at
                if fp not in handed and recent and not alert.muted_by and not never:
                    shown = self.payloads.firing(alert, muted.extra)
                    handed[fp] = Handed(shown.labels, shown.annotations, shown.starts_at, ends_at)
                    changed = True
            for fp, known in list(handed.items()):
                if fp in current:
                    continue
                if known.ends_at is None:
                    ended = resolved.get(fp)
                    known.ends_at = ended.ends_at if ended and ended.ends_at is not None else now
                    known.version += 1
                    changed = True
                elif now - known.ends_at > RESOLVED_RESEND_S:
                    del handed[fp]
                    for instance in self.instances.values():
                        if instance.receiver.name == receiver:
                            instance.sent.pop(fp, None)
        return changed

    # ----------------------------------------------------------------------------------------
    # An instance's worker

    def _due(self, instance: Instance, now: float) -> list[tuple[str, Handed]]:
        due = []
        for fp, alert in self.alerts[instance.receiver.name].items():
            at = due_at(alert, instance.sent.get(fp), instance.receiver.resend_s)
            if at is not None and at <= now:
                due.append((fp, alert))
        return due

    def next_at(self, worker: str) -> float | None:
        """When the instance has something to send next (None: nothing handed over)."""
        with self._lock:
            instance = self.instances[worker]
            handed = self.alerts[instance.receiver.name]
            if not handed:
                return None
            resend = instance.receiver.resend_s
            times = [due_at(a, instance.sent.get(fp), resend) for fp, a in handed.items()]
            pending = [t for t in times if t is not None]
            if not pending:
                return None
            return max(min(pending), instance.retry_at)

    def deliver(self, worker: str, now: float | None = None) -> int:
        """Send the instance what is due (new, changed or ``resend_s`` old), in batches of
        :data:`MAX_BATCH`; return how many alerts it took. After a failure the instance is
        asked again after the receiver's backoff."""
        instance = self.instances[worker]
        receiver = instance.receiver
        now = self.clock() if now is None else now
        with self._lock:
            if now < instance.retry_at:
                return 0
            due = self._due(instance, now)
            snapshot = [(fp, a.version, Handed(**vars(a))) for fp, a in due]
        taken = 0
        for start in range(0, len(snapshot), MAX_BATCH):
            batch = snapshot[start : start + MAX_BATCH]
            result = self._post(instance, [a for _, _, a in batch], now)
            if not result.ok:
                self._failed(instance, result)
                if result.retryable:
                    return taken
            # Refused (400: Alertmanager found an alert invalid): as Prometheus, not sent
            # again before its next re-send.
            with self._lock:
                for fp, version, _ in batch:
                    instance.sent[fp] = (version, now)
                if result.ok:
                    instance.failures, instance.retry_at = 0, 0.0
            if result.ok:
                self.delivered_total.labels(receiver.name).inc()
                taken += len(batch)
        return taken

    def deliver_all(self, now: float | None = None) -> int:
        """Every instance in turn (the tests' synchronous delivery)."""
        return sum(self.deliver(worker, now) for worker in self.instances)

    def _post(self, instance: Instance, alerts: list[Handed], now: float) -> DeliveryResult:
        receiver = instance.receiver
        try:
            body = api_body(alerts, self.payloads.external_url, now, receiver.resend_s)
            headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
            token = resolve_value(receiver.bearer_token)
            if token:
                headers["Authorization"] = f"Bearer {token}"
            answer = self.send(api_url(self._url(instance)), body, headers, receiver.timeout_s)
        except Exception as exc:  # any of them fails this attempt alone, retried
            return failed_attempt(exc)
        return classify(answer.status, answer.retry_after, self.clock())

    def _failed(self, instance: Instance, result: DeliveryResult) -> None:
        receiver = instance.receiver
        reason = result.reason if result.reason in FAILURE_REASONS else "connection"
        self.failed_total.labels(receiver.name, reason).inc()
        wait = 0.0
        if result.retryable:
            with self._lock:
                instance.failures += 1
                wait = backoff_s(instance.failures, receiver, result.retry_after_s, self.rand)
                wait = max(wait, MIN_RETRY_S)
                instance.retry_at = self.clock() + wait
        try:
            origin = safe_url(self._url(instance))
        except Exception:  # an unreadable secret: said by the attempt's error
            origin = "URL unavailable"
        log.warning(
            "alerts to %s instance %d (%s) failed (%s: %s), again in %.1f s", receiver.name,
            instance.index, origin, reason, result.error, wait or receiver.resend_s,
        )  # fmt: skip
