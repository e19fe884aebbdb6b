"""The notification pipeline's stages, each on its own and chained: one signature, run in
order, a halt ending only its own branch."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.group import GroupTimers
from kafka_health.alerting.notify_log import Entry, NotifiedAlert, NotifyLog, NotifyReason
from kafka_health.alerting.outbox import Outbox
from kafka_health.alerting.payloads import Payloads
from kafka_health.alerting.pipeline import (
    Dedup,
    Group,
    Notify,
    NotifyContext,
    Pipeline,
    ReceiverRoute,
    Route,
    SetNotifies,
    Wait,
)
from kafka_health.alerting.silence import parse_matcher
from kafka_health.config import ReceiverConfig

T = 1_700_000_000.0
PAGER = ReceiverConfig(name="pager", url="http://127.0.0.1:1/alerts")
CHAT = ReceiverConfig(name="chat", url="http://127.0.0.1:1/chat", severities=["warning"])


def alert(fp: str, broker: str, severity: str = "critical") -> Alert:
    labels = {"alertname": "BrokerFailed", "broker_id": broker, "severity": severity}
    return Alert("BrokerFailed", fp, labels, AlertState.FIRING, T, T, fired_at=T)


class Seen:
    """A stage that records what reached it, and halts its branch when told to."""

    def __init__(self, halt_on: str = "") -> None:
        self.calls: list[tuple[str, str, list[str]]] = []
        self.halt_on = halt_on

    def __call__(
        self, ctx: NotifyContext, alerts: list[Alert]
    ) -> tuple[NotifyContext, list[Alert]]:
        receiver = ctx.receiver.name if ctx.receiver is not None else ""
        self.calls.append((receiver, ctx.group_key, [a.fingerprint for a in alerts]))
        return dataclasses.replace(ctx, halted=ctx.group_key == self.halt_on), alerts


def context(*alerts: Alert, now: float = T) -> NotifyContext:
    return NotifyContext(now, {a.fingerprint: a for a in alerts})


def test_a_pipeline_runs_its_stages_in_order_until_one_halts() -> None:
    halting, after = Seen(halt_on="g"), Seen(halt_on="never")
    grouped = dataclasses.replace(context(), group_key="g")
    ctx, _ = Pipeline(halting, after)(grouped, [])
    assert ctx.halted and len(halting.calls) == 1 and after.calls == []
    other = dataclasses.replace(context(), group_key="h")
    ctx, _ = Pipeline(halting, after)(other, [])
    assert not ctx.halted and len(halting.calls) == 2 and len(after.calls) == 1


def test_route_and_group_fan_out_per_receiver_then_per_group_key_in_order(
    tmp_path: Path,
) -> None:
    a, b, c = alert("a", "3"), alert("b", "1", "warning"), alert("c", "3", "warning")
    nflog = NotifyLog(tmp_path / "nflog.json")
    nflog.record("pager", '{broker_id="7"}', Entry({"z": NotifiedAlert(T, {})}, T))
    nflog.record("pager", '{broker_id="8"}', Entry({}, T))  # nothing firing told: no group
    seen = Seen(halt_on='{broker_id="1"}')  # a halted branch does not stop the next one
    routes = [ReceiverRoute(PAGER, ()), ReceiverRoute(CHAT, (parse_matcher("broker_id!=3"),))]
    ctx, alerts = Route(routes, Group(["broker_id"], nflog, seen))(context(a, b, c), [a, b, c])
    assert seen.calls == [
        ("pager", '{broker_id="1"}', ["b"]),
        ("pager", '{broker_id="3"}', ["a", "c"]),
        ("pager", '{broker_id="7"}', []),  # its resolution may be owed
        ("chat", '{broker_id="1"}', ["b"]),
    ]
    assert not ctx.halted and ctx.receiver is None and alerts == [a, b, c]


def per_group(tmp_path: Path) -> tuple[Pipeline, NotifyLog, Outbox]:
    nflog = NotifyLog(tmp_path / "nflog.json")
    outbox = Outbox(tmp_path / "outbox", 3600, T)
    timers = GroupTimers(group_wait_s=10, group_interval_s=60)
    payloads = Payloads("local", ["broker_id"], "")
    stages = Pipeline(
        Dedup(nflog, repeat_interval_s=14_400),
        Wait(timers, explainable=frozenset({"BrokerFailed"})),
        Notify(payloads, outbox),
        SetNotifies(nflog),
    )
    return stages, nflog, outbox


def group_context(*alerts: Alert, now: float) -> NotifyContext:
    return dataclasses.replace(context(*alerts, now=now), receiver=PAGER, group_key="g")


def test_a_group_waits_then_is_notified_once_and_the_log_records_it(tmp_path: Path) -> None:
    stages, nflog, outbox = per_group(tmp_path)
    a = alert("a", "3")
    waiting, _ = stages(group_context(a, now=T), [a])
    assert waiting.halted and waiting.sent == () and nflog.get("pager", "g") is None
    sent, shown = stages(group_context(a, now=T + 10), [a])
    assert not sent.halted and [n.reason for n in sent.sent] == [NotifyReason.FIRST]
    assert [e.notification.group_key for e in outbox.pending()] == ["g"]
    assert shown == [a]
    told = nflog.get("pager", "g")
    assert told is not None and set(told.firing) == {"a"} and told.notified_at == T + 10
    again, _ = stages(group_context(a, now=T + 20), [a])
    assert again.halted and again.sent == (), "nothing new: deduplicated"


def test_a_resolution_the_receiver_does_not_take_is_recorded_but_not_sent(
    tmp_path: Path,
) -> None:
    stages, nflog, outbox = per_group(tmp_path)
    nflog.record("pager", "g", Entry({"a": NotifiedAlert(T, {})}, T))
    quiet = dataclasses.replace(group_context(now=T + 120), receiver=dataclasses.replace(
        PAGER, send_resolved=False))  # fmt: skip
    ctx, _ = stages(quiet, [])
    assert ctx.sent == () and outbox.pending() == []
    told = nflog.get("pager", "g")
    assert told is not None and told.firing == {} and told.notified_at == T + 120
