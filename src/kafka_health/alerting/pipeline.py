"""The notification pipeline: a list of stages with one signature, run in order.

As Alertmanager's ``notify.Stage``, every stage takes a context and some alerts and returns a
context and alerts; a pipeline is itself a stage, and a stage that fans out (one branch per
receiver, one per group) runs the stages after it once per branch. A stage stops its branch
by returning a context that is ``halted`` (a group not due yet).

One evaluation runs, in Alertmanager's order:

- :class:`Mute`: inhibit, time mute (maintenance), silence (:mod:`~.mute`), for every alert;
- :class:`StartWaits`: each group records its own due time again (:mod:`~.group`);
- :class:`Route`: per receiver, the alerts it takes; then :class:`Group`: per group key;
- per receiver of format ``alertmanager_api`` instead: :class:`HandOverStage`, each alert
  handed to Alertmanager as it fires (:mod:`~.alertmanager_api`: Alertmanager groups, waits
  and dedups itself);
- per group, :class:`Dedup` against the :mod:`~.notify_log`, :class:`Wait` for the group's
  wait or interval, :class:`Notify` (the payload, into the :mod:`~.outbox`, which delivers it
  with retries), and last :class:`SetNotifies`: the notification log records what the group
  was told, once its notification is stored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kafka_health.alerting.alertmanager_api import HandOver, is_api
from kafka_health.alerting.config import ReceiverConfig
from kafka_health.alerting.dedup import GroupNews, group_news
from kafka_health.alerting.engine import Alert
from kafka_health.alerting.group import GroupTimers, group_key
from kafka_health.alerting.mute import Muted, MuteStage
from kafka_health.alerting.notification import AlertPayload, Notification
from kafka_health.alerting.notify_log import Entry, NotifiedAlert, NotifyLog, NotifyReason
from kafka_health.alerting.outbox import Outbox
from kafka_health.alerting.payloads import Payloads
from kafka_health.alerting.silence import Matcher, matches_all


@dataclass(frozen=True)
class NotifyContext:
    """What the stages pass along: the evaluation's, then the branch's (receiver, group)."""

    now: float
    alerts: Mapping[str, Alert]
    """Every current alert by fingerprint (a group's told alerts are looked up here)."""
    muted: Muted = field(default_factory=Muted)
    receiver: ReceiverConfig | None = None
    group_key: str = ""
    entry: Entry | None = None
    """What the group's receiver was last told (the notification log's entry)."""
    news: GroupNews | None = None
    after: Entry | None = None
    """What the receiver has been told once this group's notification is stored."""
    sent: tuple[Notification, ...] = ()
    """The notifications stored for delivery so far in this evaluation."""
    handed: tuple[str, ...] = ()
    """The ``alertmanager_api`` receivers with alerts to send at once (:class:`HandOverStage`)."""
    halted: bool = False

    def branch(self) -> tuple[ReceiverConfig, str]:
        """The receiver and group key of a group's branch (:class:`Route`, :class:`Group`)."""
        assert self.receiver is not None, "a group stage runs after Route"
        return self.receiver, self.group_key


Passed = tuple[NotifyContext, list[Alert]]
"""What a stage passes on: the context and the alerts for the next stage."""


class Stage(Protocol):
    """One step of the pipeline: context and alerts in, context and alerts out."""

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed: ...


class Pipeline:
    """Stages run in order until one halts (Alertmanager's ``MultiStage``); a stage itself."""

    def __init__(self, *stages: Stage) -> None:
        self.stages: Sequence[Stage] = stages

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        for stage in self.stages:
            ctx, alerts = stage(ctx, alerts)
            if ctx.halted:
                break
        return ctx, alerts


def _joined(ctx: NotifyContext, branch: NotifyContext) -> NotifyContext:
    """``ctx`` with what a branch sent (a branch's halt ends only the branch)."""
    return dataclasses.replace(ctx, sent=branch.sent, handed=branch.handed)


class Mute:
    """Inhibit, time mute, silence: each alert's ``muted_by``, and the causes named."""

    def __init__(self, mute: MuteStage) -> None:
        self.mute = mute

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        return dataclasses.replace(ctx, muted=self.mute.apply(ctx.alerts, ctx.now)), alerts


class StartWaits:
    """Forget the last evaluation's due times: each group still waiting records its own."""

    def __init__(self, timers: GroupTimers) -> None:
        self.timers = timers

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        self.timers.begin_evaluation()
        return ctx, alerts


@dataclass(frozen=True)
class ReceiverRoute:
    """A receiver and the alerts it takes: its severities (empty: all) and matchers."""

    receiver: ReceiverConfig
    matchers: tuple[Matcher, ...]

    def accepts(self, alert: Alert) -> bool:
        severities = self.receiver.severities
        if severities and alert.labels.get("severity") not in severities:
            return False
        return matches_all(self.matchers, alert.labels)


class Route:
    """Fan out per receiver, in order: ``then`` runs with the alerts the receiver takes (an
    ``alertmanager_api`` receiver's: ``hand_over``)."""

    def __init__(
        self, routes: Sequence[ReceiverRoute], then: Stage, hand_over: Stage | None = None
    ) -> None:
        self.routes = routes
        self.then = then
        self.hand_over = hand_over

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        for route in self.routes:
            taken = [a for a in alerts if route.accepts(a)]
            then = self.then
            if is_api(route.receiver):
                assert self.hand_over is not None, "an alertmanager_api receiver needs hand_over"
                then = self.hand_over
            branch, _ = then(dataclasses.replace(ctx, receiver=route.receiver), taken)
            ctx = _joined(ctx, branch)
        return ctx, alerts


class HandOverStage:
    """An ``alertmanager_api`` receiver's alerts, each handed over as it fires and re-sent
    while it fires (:class:`~.alertmanager_api.HandOver`); no grouping, no group wait."""

    def __init__(self, hand_over: HandOver) -> None:
        self.hand_over = hand_over

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        receiver, _ = ctx.branch()
        if self.hand_over.update(receiver.name, alerts, ctx.muted, ctx.now):
            ctx = dataclasses.replace(ctx, handed=(*ctx.handed, receiver.name))
        return ctx, alerts


class Group:
    """Fan out per group key, in key order: the receiver's alerts with the same ``group_by``
    labels, and every group the notification log says is firing (its resolution may be
    owed though no alert of it is left)."""

    def __init__(self, group_by: list[str], nflog: NotifyLog, then: Stage) -> None:
        self.group_by = group_by
        self.nflog = nflog
        self.then = then

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        receiver, _ = ctx.branch()
        groups: dict[str, list[Alert]] = {}
        for alert in alerts:
            groups.setdefault(group_key(alert.labels, self.group_by), []).append(alert)
        for (name, key), known in self.nflog.entries.items():
            if name == receiver.name and known.firing:
                groups.setdefault(key, [])
        for key, members in sorted(groups.items()):
            branch, _ = self.then(dataclasses.replace(ctx, group_key=key), members)
            ctx = _joined(ctx, branch)
        return ctx, alerts


class Dedup:
    """What changed in the group since its receiver was last told (:mod:`~.dedup`)."""

    def __init__(self, nflog: NotifyLog, repeat_interval_s: float) -> None:
        self.nflog = nflog
        self.repeat_interval_s = repeat_interval_s

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        receiver, key = ctx.branch()
        entry = self.nflog.get(receiver.name, key)
        news = group_news(entry, alerts, ctx.alerts, ctx.muted, self.repeat_interval_s, ctx.now)
        return dataclasses.replace(ctx, entry=entry, news=news), alerts


class Wait:
    """Halt a group until its wait or interval is over (:class:`~.group.GroupTimers`), or for
    good when it has nothing to say; a group that goes on is flushed."""

    def __init__(self, timers: GroupTimers, explainable: frozenset[str]) -> None:
        """``explainable``: the rules some inhibit rule can explain (a group of none of them
        waits only the root group wait: no late cause is awaited)."""
        self.timers = timers
        self.explainable = explainable

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        receiver, key = ctx.branch()
        assert ctx.news is not None, "Wait runs after Dedup"
        firing = ctx.news.firing
        roots_only = bool(firing) and not any(a.rule in self.explainable for a in firing.values())
        if not self.timers.due(receiver.name, key, ctx.news.reason, ctx.entry, ctx.now, roots_only):
            return dataclasses.replace(ctx, halted=True), alerts
        self.timers.flushed(receiver.name, key)
        return ctx, alerts


class Notify:
    """Build the group's notification and store it in the outbox, with the notification-log
    entries before and after it (a kill before the log's own write is mended from it at the
    next start); the outbox's delivery sends it. A group whose news has no payload (only
    resolutions, which its receiver does not take) stores nothing."""

    def __init__(self, payloads: Payloads, outbox: Outbox) -> None:
        self.payloads = payloads
        self.outbox = outbox

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        receiver, key = ctx.branch()
        news, entry = ctx.news, ctx.entry
        assert news is not None and news.reason is not None, "Notify runs after Wait"
        repeat = entry.repeat + 1 if entry is not None and news.reason == NotifyReason.REPEAT else 0
        # The explained alerts stay in the incident, firing, each naming its cause.
        shown = {**news.firing, **{fp: ctx.alerts[fp] for fp in news.causes}}
        payload = self._payload(ctx, news, shown, receiver.send_resolved)
        told_now = {
            fp: NotifiedAlert(
                a.starts_at,
                a.labels,
                self.payloads.annotations(a, ctx.muted.extra),
                news.causes.get(fp, ""),
            )
            for fp, a in shown.items()
        }
        after = Entry({**news.kept, **told_now}, ctx.now, repeat)
        sent = ctx.sent
        if payload:
            named = [f"{fp}:{cause}" for fp, cause in news.causes.items()]
            notification = self.payloads.notification(
                receiver, key, news.reason, payload, repeat, ctx.now, named
            )
            before = entry.to_json() if entry is not None else None
            if self.outbox.enqueue(
                notification, ctx.now, told_before=before, told_after=after.to_json()
            ):
                sent = (*sent, notification)
        return dataclasses.replace(ctx, after=after, sent=sent), list(shown.values())

    def _payload(
        self, ctx: NotifyContext, news: GroupNews, shown: dict[str, Alert], send_resolved: bool
    ) -> list[AlertPayload]:
        """The alerts as on the wire: the firing first, then (if the receiver takes them) the
        resolved, each by its start."""
        payload = [self.payloads.firing(a, ctx.muted.extra) for a in shown.values()]
        if send_resolved:
            payload += [
                self.payloads.resolved(fp, told, ctx.alerts.get(fp), ctx.now)
                for fp, told in news.resolved.items()
            ]
        payload.sort(key=lambda a: (a.status != "firing", a.starts_at))
        return payload


class SetNotifies:
    """Record in the notification log what the group's receiver has been told."""

    def __init__(self, nflog: NotifyLog) -> None:
        self.nflog = nflog

    def __call__(self, ctx: NotifyContext, alerts: list[Alert]) -> Passed:
        receiver, key = ctx.branch()
        assert ctx.after is not None, "SetNotifies runs after Notify"
        self.nflog.record(receiver.name, key, ctx.after)
        return ctx, alerts


def notify_pipeline(
    mute: MuteStage,
    routes: Sequence[ReceiverRoute],
    timers: GroupTimers,
    payloads: Payloads,
    nflog: NotifyLog,
    outbox: Outbox,
    *,
    group_by: list[str],
    repeat_interval_s: float,
    explainable: frozenset[str],
    hand_over: HandOver | None = None,
) -> Pipeline:
    """One evaluation's pipeline: mute, then per receiver and group: dedup, wait, notify,
    record (the module docstring's order)."""
    per_group = Pipeline(
        Dedup(nflog, repeat_interval_s),
        Wait(timers, explainable),
        Notify(payloads, outbox),
        SetNotifies(nflog),
    )
    return Pipeline(
        Mute(mute),
        StartWaits(timers),
        Route(
            routes,
            Group(group_by, nflog, per_group),
            HandOverStage(hand_over) if hand_over is not None else None,
        ),
    )
