"""The retry stage (Alertmanager's ``RetryStage``): deliver what the outbox holds, each
(receiver, group) in order, with backoff; count every attempt; hand what is dropped back.

A notification leaves the outbox only when the receiver accepted it (2xx) or it is dropped:
refused (a 4xx answer other than 408 and 429, or a 3xx) or still undelivered after the
receiver's ``give_up_after_s``. A dropped one is counted by reason and handed to ``on_drop``,
which owes its group again (:meth:`~kafka_health.alerting.service.AlertService`).

Each receiver is delivered to by a worker of its own (:mod:`~.delivery`), which asks for that
receiver's entries only: an attempt that hangs or fails holds back no other receiver. An
exception from the transport fails that entry's attempt alone (counted, retried); after any
failure the entry's next attempt is later than the attempt's end, so no loop spins. A log line
names the receiver and its ``scheme://host[:port]``, never the URL's user info, path or query.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter

from kafka_health.alerting.config import ReceiverConfig
from kafka_health.alerting.outbox import Outbox, OutboxEntry
from kafka_health.alerting.webhook import (
    FAILURE_REASONS,
    DeliveryResult,
    Transport,
    backoff_s,
    failed_attempt,
)
from kafka_health.configuration.redact import safe_url
from kafka_health.configuration.secrets import resolve_value

log = logging.getLogger(__name__)

DROP_REASONS = ("rejected", "gave_up")
"""Why a notification was dropped: the receiver refused it (a 4xx answer other than 408 and
429), or it was still undelivered after the receiver's ``give_up_after_s``."""
MIN_RETRY_S = 0.1
"""The least wait before an entry's next attempt (a backoff's jitter can reach 0)."""


@dataclass(frozen=True)
class Dropped:
    """A notification dropped, why, and whether its group should wait before asking again."""

    entry: OutboxEntry
    reason: str
    error: str
    hold: bool


class RetryStage:
    """Delivery with retries and its counters (``kafka_health_notifications*_total``)."""

    def __init__(
        self,
        receivers: Iterable[ReceiverConfig],
        transport: Transport,
        registry: CollectorRegistry,
        clock: Callable[[], float],
        rand: Callable[[], float] = random.random,
    ) -> None:
        self.receivers = {r.name: r for r in receivers}
        self._origins: dict[str, str] = {}
        self.transport = transport
        self.clock = clock
        self.rand = rand
        self.delivered_total = Counter(
            "kafka_health_notifications",
            "notifications delivered, by receiver",
            ["receiver"],
            registry=registry,
        )
        self.dropped_total = Counter(
            "kafka_health_notifications_dropped",
            "notifications the receiver never accepted (refused, or given up on after retries):"
            " the group is notified again",
            ["receiver", "reason"],
            registry=registry,
        )
        self.failed_total = Counter(
            "kafka_health_notifications_failed",
            "failed notification attempts, by receiver and reason",
            ["receiver", "reason"],
            registry=registry,
        )
        for name in self.receivers:
            self.delivered_total.labels(name)
            for reason in FAILURE_REASONS:
                self.failed_total.labels(name, reason)
            for reason in DROP_REASONS:
                self.dropped_total.labels(name, reason)

    def deliver(
        self,
        outbox: Outbox,
        now: float,
        on_drop: Callable[[Dropped], None],
        receiver: str | None = None,
    ) -> int:
        """Attempt every due outbox entry (of ``receiver`` only, when given) once; return how
        many were delivered."""
        delivered = 0
        for entry in outbox.due(now, receiver):
            n = entry.notification
            config = self.receivers.get(n.receiver)
            if config is None:
                self._forget(entry, outbox)
                continue
            if now - entry.created_at > config.give_up_after_s:
                self.failed_total.labels(n.receiver, "gave_up").inc()
                self._drop(Dropped(entry, "gave_up", entry.last_error, False), outbox, on_drop)
                continue
            result = self._attempt(config, entry)
            if result.ok:
                outbox.delivered(entry, self.clock())
                self.delivered_total.labels(n.receiver).inc()
                delivered += 1
                continue
            reason = result.reason if result.reason in FAILURE_REASONS else "connection"
            self.failed_total.labels(n.receiver, reason).inc()
            if result.retryable:
                wait = backoff_s(entry.attempts + 1, config, result.retry_after_s, self.rand)
                wait = max(wait, MIN_RETRY_S)
                outbox.failed(entry, max(now, self.clock()) + wait, result.error)
                log.warning(
                    "notification to %s (%s) failed (%s: %s), retry in %.1f s", n.receiver,
                    self.origin(config), reason, result.error, wait,
                )  # fmt: skip
            else:
                self._drop(Dropped(entry, "rejected", result.error, True), outbox, on_drop)
        return delivered

    def _attempt(self, receiver: ReceiverConfig, entry: OutboxEntry) -> DeliveryResult:
        try:
            return self.transport.send(receiver, entry.notification)
        except Exception as exc:  # a transport should not raise; if one does, this entry fails
            return failed_attempt(exc)

    def origin(self, receiver: ReceiverConfig) -> str:
        """``scheme://host[:port]`` of the receiver's URL, for logs (never its user info, path
        or query; nothing of a URL whose secret cannot be read)."""
        if receiver.name not in self._origins:
            try:
                self._origins[receiver.name] = safe_url(resolve_value(receiver.url))
            except Exception:  # an unreadable secret: said by the attempt's error
                return "URL unavailable"
        return self._origins[receiver.name]

    def drop_unknown(self, outbox: Outbox) -> None:
        """Drop the pending notifications of receivers no longer configured (no worker would
        ever take them)."""
        for entry in outbox.pending():
            if entry.notification.receiver not in self.receivers:
                self._forget(entry, outbox)

    def _forget(self, entry: OutboxEntry, outbox: Outbox) -> None:
        log.warning("dropping a notification for unknown receiver %s", entry.notification.receiver)
        outbox.drop(entry)

    def _drop(self, dropped: Dropped, outbox: Outbox, on_drop: Callable[[Dropped], None]) -> None:
        n = dropped.entry.notification
        self.dropped_total.labels(n.receiver, dropped.reason).inc()
        log.error(
            "notification %s to %s for group %s %s (%s) after %d attempt(s): the group will "
            "be notified again", n.idempotency_key, n.receiver, n.group_key,
            "refused" if dropped.reason == "rejected" else "given up", dropped.error,
            dropped.entry.attempts + 1,
        )  # fmt: skip
        outbox.drop(dropped.entry)
        on_drop(dropped)
