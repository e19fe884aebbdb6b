"""Replay: parsed broker-log events through the live job's detectors and alert service, on
event time.

The very code the job runs: :class:`~kafka_health.job.board.SignalBoard` folds the events one
trigger interval at a time (as micro-batches would have brought them) and hands its signals to
an :class:`~kafka_health.alerting.service.AlertService` whose clock is the events' time and
whose one receiver records what it would have been sent and when. Rules, inhibitions, group
waits, ``for`` and ``keep_firing_for``, causes and resolutions behave as they would have live.
Quiet stretches (no event, nothing pending, firing or owed) are skipped. After the last event
the clock runs on until what fired has resolved, at most ``tail_s``; what still fires then
is listed as open at the end of the input (``Replay.open_at_end``).

The consumer side, where the archive has it: the group coordinators' lines
(:mod:`kafka_health.replay.groups`) become the rounds the live job's poller would have made,
judged by its consumer-group detector (rebalancing too long or too often, groups held up by
their coordinator); the lag verdicts need offsets, which logs do not hold.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry

from kafka_health.alerting.config import ReceiverConfig
from kafka_health.alerting.engine import AlertState
from kafka_health.alerting.notification import Notification
from kafka_health.alerting.rule_config import AlertRulesConfig
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.webhook import DeliveryResult
from kafka_health.config import MonitorConfig
from kafka_health.detectors.inputs import Batch, LogEvent
from kafka_health.detectors.logwindow import LOG_CLOCK
from kafka_health.job.board import SignalBoard
from kafka_health.model import Signal
from kafka_health.replay.groups import GROUP_EVENTS, LoggedGroups

RECEIVER = ReceiverConfig(name="replay", url="http://replay.invalid/")
TAIL_S = 1800.0
"""How long the clock runs on after the last event for what fired to resolve (it stops as
soon as nothing is firing and no resolution is owed). A log-window signal keeps the time of
the newest event (the log stream's own clock, as live): what the last events showed stays
shown until later logs move the window, so an alert still firing at the end of the input is
reported as open, not resolved."""


@dataclass
class EventClock:
    """The replay's time: the events' (epoch seconds)."""

    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class ReplayedNotification:
    """What the pager would have been sent, at the event time it would have left."""

    at: float
    reason: str
    group_key: str
    idempotency_key: str
    alerts: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class _Recorder:
    """The replay's receiver: accepts every notification, noting the time."""

    clock: EventClock
    sent: list[ReplayedNotification] = field(default_factory=list)

    def send(self, receiver: ReceiverConfig, n: Notification) -> DeliveryResult:
        alerts = [
            {"alertname": a.labels.get("alertname", ""), "status": a.status,
             "labels": dict(a.labels), "starts_at": a.starts_at, "ends_at": a.ends_at,
             "summary": a.annotations.get("summary", ""), "cause": a.annotations.get("cause", ""),
             "fingerprint": a.fingerprint}
            for a in n.alerts
        ]  # fmt: skip
        self.sent.append(
            ReplayedNotification(self.clock.now, n.reason, n.group_key, n.idempotency_key, alerts)
        )
        return DeliveryResult(True, status=200)


@dataclass
class Replay:
    """The notifications, and the signals at every step (for the report's timeline)."""

    notifications: list[ReplayedNotification]
    timeline: list[tuple[float, list[Signal]]]
    first_event_at: float | None
    last_event_at: float | None
    events: int
    open_at_end: list[dict[str, Any]] = field(default_factory=list)
    """Alerts still firing when the replay stopped: the input ends before they did."""
    consumer_groups: list[dict[str, Any]] = field(default_factory=list)
    """Each group of the coordinators' lines (:meth:`LoggedGroups.summary`)."""
    coordinator_loads: list[dict[str, Any]] = field(default_factory=list)
    """Offsets loads that held groups up (:meth:`LoggedGroups.loads`)."""


def replay_events(
    events: Sequence[LogEvent],
    config: MonitorConfig,
    rules: AlertRulesConfig,
    *,
    step_s: float | None = None,
    tail_s: float = TAIL_S,
    keep_timeline: bool = True,
    progress: Callable[[float], None] | None = None,
) -> Replay:
    """Replay ``events`` (any order; those without a time are left out) under ``rules``."""
    timed = sorted((e for e in events if e.event_ms is not None), key=lambda e: e.event_ms or 0)
    if not timed:
        return Replay([], [], None, None, 0)
    step = step_s or config.job.trigger_interval_s
    clock = EventClock((timed[0].event_ms or 0) / 1000.0 - step)
    groups = None
    if config.consumer_groups.enabled and any(e.type in GROUP_EVENTS for e in timed):
        groups = LoggedGroups(config.consumer_groups, config.job.coordinator_load_stuck_s, step)
    watched = config.consumer_groups if groups is not None else None
    board = SignalBoard(config.job, clock=clock, consumer_groups=watched)
    recorder = _Recorder(clock)
    timeline: list[tuple[float, list[Signal]]] = []
    with tempfile.TemporaryDirectory(prefix="kafka-health-replay-") as state_dir:
        alerting = dataclasses.replace(
            config.alerting, state_dir=state_dir, receivers=[RECEIVER], silences=[],
            exporter=dataclasses.replace(config.alerting.exporter, port=None,
                                         pushgateway_url=""),
        )  # fmt: skip
        service = AlertService(
            alerting, rules, cluster=config.cluster_name, clock=clock, transport=recorder,
            registry=CollectorRegistry(), rand=lambda: 0.5,
        )  # fmt: skip
        service.open()
        end = (timed[-1].event_ms or 0) / 1000.0 + tail_s
        i, batch_id = 0, 0
        while clock.now < end:
            upto = clock.now + step
            batch: list[LogEvent] = []
            while i < len(timed) and (timed[i].event_ms or 0) / 1000.0 < upto:
                batch.append(timed[i])
                i += 1
            clock.now = upto
            # the group lines go to the consumer side only, as the live job reads none of them
            detected = [e for e in batch if e.type not in GROUP_EVENTS]
            if not detected:  # the logs' clock moves on though they wrote nothing
                detected = [LogEvent(LOG_CLOCK, None, round(upto * 1000))]
            board.fold(batch_id, Batch(events=detected), now=upto)
            batch_id += 1
            if groups is not None:
                groups.take(batch)
                polled = groups.round(round(upto * 1000))
                if polled is not None:
                    board.groups_polled(polled)
            signals = board.signals()
            if groups is not None:
                signals = groups.supported(signals)
            service.publish(signals)
            service.step()
            service.deliver()
            if keep_timeline:
                timeline.append((upto, signals))
            if progress is not None:
                progress(upto)
            if i < len(timed) and _quiet(service):
                next_at = (timed[i].event_ms or 0) / 1000.0
                due = groups.next_due(clock.now) if groups is not None else None
                next_at = next_at if due is None else min(next_at, due)
                if next_at - clock.now > 2 * step:
                    clock.now = next_at - step
            elif i >= len(timed) and _quiet(service) and not _holding(service):
                break
        still = [
            {
                "alertname": a.rule,
                "labels": dict(a.labels),
                "starts_at": a.starts_at,
                "muted_by": list(a.muted_by),
            }
            for a in service.engine.alerts.values()
            if a.state == AlertState.FIRING
        ]
    end_ms = timed[-1].event_ms or 0
    return Replay(
        recorder.sent, timeline, (timed[0].event_ms or 0) / 1000.0,
        (timed[-1].event_ms or 0) / 1000.0, len(timed), still,
        groups.summary(end_ms) if groups is not None else [],
        groups.loads(end_ms) if groups is not None else [],
    )  # fmt: skip


def _quiet(service: AlertService) -> bool:
    """Nothing pending or firing, nothing owed to the receiver."""
    assert service.outbox is not None
    active = any(
        a.state in (AlertState.PENDING, AlertState.FIRING) for a in service.engine.alerts.values()
    )
    return not active and not service.outbox.pending()


def _holding(service: AlertService) -> bool:
    """A resolution the receiver is still owed (a firing entry in the notification log)."""
    assert service.nflog is not None
    return any(e.firing for e in service.nflog.entries.values())
