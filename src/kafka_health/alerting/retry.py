"""The retry stage (Alertmanager's ``RetryStage``): deliver what the outbox holds, each
(receiver, group) in order, with backoff; count every attempt; hand what is dropped back.

A notification leaves the outbox only when the receiver accepted it (2xx) or it is dropped:
refused (a 4xx answer other than 408 and 429, or a 3xx) or still undelivered after the
receiver's ``give_up_after_s``. A dropped one is counted by reason and handed to ``on_drop``,
which owes its group again (:meth:`~kafka_health.alerting.service.AlertService`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter

from kafka_health.alerting.outbox import Outbox, OutboxEntry
from kafka_health.alerting.webhook import FAILURE_REASONS, Transport, backoff_s
from kafka_health.config import ReceiverConfig

log = logging.getLogger(__name__)

DROP_REASONS = ("rejected", "gave_up")
"""Why a notification was dropped: the receiver refused it (a 4xx answer other than 408 and
429), or it was still undelivered after the receiver's ``give_up_after_s``."""


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

    def deliver(self, outbox: Outbox, now: float, on_drop: Callable[[Dropped], None]) -> int:
        """Attempt every due outbox entry once; return how many were delivered."""
        delivered = 0
        for entry in outbox.due(now):
            n = entry.notification
            receiver = self.receivers.get(n.receiver)
            if receiver is None:
                log.warning("dropping a notification for unknown receiver %s", n.receiver)
                outbox.drop(entry)
                continue
            if now - entry.created_at > receiver.give_up_after_s:
                self.failed_total.labels(n.receiver, "gave_up").inc()
                self._drop(Dropped(entry, "gave_up", entry.last_error, False), outbox, on_drop)
                continue
            result = self.transport.send(receiver, n)
            if result.ok:
                outbox.delivered(entry, self.clock())
                self.delivered_total.labels(n.receiver).inc()
                delivered += 1
                continue
            self.failed_total.labels(n.receiver, result.reason or "connection").inc()
            if result.retryable:
                wait = backoff_s(entry.attempts + 1, receiver, result.retry_after_s, self.rand)
                outbox.failed(entry, now + wait, result.error)
                log.warning(
                    "notification to %s failed (%s), retry in %.1f s", n.receiver, result.error,
                    wait,
                )  # fmt: skip
            else:
                self._drop(Dropped(entry, "rejected", result.error, True), outbox, on_drop)
        return delivered

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
