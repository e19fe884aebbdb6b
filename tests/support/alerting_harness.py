"""A pre-wired alert service for the alerting tests: the shipped rules, a fake clock, and
notifications POSTed over real HTTP to a real webhook receiver (an ``http.server`` thread per
harness, shut down after each test by ``conftest.py``).

Time only moves when a test says so (``Harness.run``); nothing sleeps. What a test sees as sent
is what the receiver processed (by idempotency key), in the order it processed it. Tests that
script delivery failures use ``transport="fake"``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from prometheus_client import CollectorRegistry

from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.notification import Notification
from kafka_health.alerting.rule_config import (
    AlertRulesConfig,
    ConditionConfig,
    InhibitRuleConfig,
    RuleConfig,
    load_rules,
)
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.webhook import DeliveryResult, HttpTransport
from kafka_health.config import AlertingConfig, ExporterConfig, ReceiverConfig, SilenceConfig
from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver
from kafka_health.model import Signal, labels

Signals = Callable[[float], list[Signal]]
"""Test time -> the signals reported then."""

REPO = Path(__file__).resolve().parents[2]
RULES_FILE = REPO / "conf" / "alerts.yaml"
T0 = 1_700_000_000.0  # an arbitrary epoch second: every test's time 0


DISK_FULL = AlertRulesConfig(
    rules={
        "DiskFull": RuleConfig(
            severity="critical",
            any_of=[ConditionConfig(signal="disk_used_ratio", op=">", threshold=0.9)],
            summary="disk full",
        )
    }
)
"""One rule on one signal (``disk_used_ratio`` > 0.9 of a broker), for tests of delivery."""


WITH_A_CLUSTER_SYMPTOM = AlertRulesConfig(
    rules={
        **DISK_FULL.rules,
        "MonitorSlow": RuleConfig(
            severity="critical",
            any_of=[ConditionConfig(signal="batch_seconds", op=">", threshold=10)],
            summary="the monitor is slow",
        ),
    },
    inhibit_rules=[
        InhibitRuleConfig(
            name="disk-full-slows-the-monitor",
            source="DiskFull",
            targets=["MonitorSlow"],
            cause="Broker {broker_id}'s disk is full",
        ),
    ],
)
"""A broker's cause (DiskFull) that explains a cluster-wide symptom (MonitorSlow, no
``broker_id``: a group of its own in Alertmanager, as MonitorStalled is in the shipped rules)."""


@functools.cache
def shipped_rules() -> AlertRulesConfig:
    """conf/alerts.yaml, parsed once per test run (rules are immutable)."""
    return load_rules(RULES_FILE)


def sig(
    name: str, value: float, at: float, details: dict[str, Any] | None = None, **lbl: Any
) -> Signal:
    """A signal at test time ``at`` (seconds after T0)."""
    return Signal(name, labels(**lbl), float(value), T0 + at, details or {})


FULL_WINDOW_SENDS = 20
"""Canary sends per partition in the job's 20 s availability window, at one a second."""


def with_window_failures(signals: Iterable[Signal]) -> list[Signal]:
    """``signals`` with the failed probes behind each availability ratio below 1 that came
    without them: the job reports both together (``detectors/write_path``), and a test that
    gives only the ratio means a full window of ``FULL_WINDOW_SENDS`` sends."""
    out = list(signals)
    given = {
        tuple(kv for kv in s.labels if kv[0] != "error_class")
        for s in out
        if s.name == "canary_send_failures"
    }
    for s in list(out):
        if s.name == "canary_availability_ratio" and s.value < 1 and s.labels not in given:
            failed = float(round((1 - s.value) * FULL_WINDOW_SENDS))
            scope = labels(**dict(s.labels), error_class="Timeout")
            out.append(Signal("canary_send_failures", scope, failed, s.at))
    return out


def partitions(*replica_sets: tuple[int, ...]) -> dict[str, Any]:
    """Details listing partitions of topic t with the given replica sets."""
    return {
        "partitions": [
            {"topic": "t", "partition": i, "replicas": list(r), "isr": list(r[:1])}
            for i, r in enumerate(replica_sets)
        ]
    }


@dataclass
class FakeClock:
    now: float = T0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeTransport:
    """Records every attempt; ``results`` (if any) are returned in order, then success."""

    results: list[DeliveryResult] = field(default_factory=list)
    attempts: list[Notification] = field(default_factory=list)
    delivered: list[Notification] = field(default_factory=list)

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult:
        self.attempts.append(notification)
        result = self.results.pop(0) if self.results else DeliveryResult(True, status=200)
        if result.ok:
            self.delivered.append(notification)
        return result


@dataclass
class ReceiverTransport:
    """HTTP to the real receiver; records attempts. ``delivered`` is what the receiver
    processed, in its order, each checked against what was sent."""

    state: ReceiverState
    path: str
    http: HttpTransport
    attempts: list[Notification] = field(default_factory=list)

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult:
        self.attempts.append(notification)
        return self.http.send(receiver, notification)

    @property
    def delivered(self) -> list[Notification]:
        by_key = {n.idempotency_key: n for n in self.attempts}
        with self.state.lock:
            got = [r for r in self.state.processed.values() if r.path == self.path]
        result = []
        for received in got:
            sent = by_key[received.key]
            on_the_wire = [(a["fingerprint"], a["status"]) for a in received.body["alerts"]]
            assert on_the_wire == [(a.fingerprint, a.status) for a in sent.alerts]
            assert received.headers["x-kafka-health-reason"] == sent.reason
            result.append(sent)
        return result


_RECEIVERS = contextlib.ExitStack()


def start_receiver() -> tuple[ReceiverState, str]:
    """A real webhook receiver (a thread) until ``stop_receivers()``."""
    state = ReceiverState()
    return state, _RECEIVERS.enter_context(webhook_receiver(state))


def stop_receivers() -> None:
    """Shut down every receiver started since the last call (after each test)."""
    _RECEIVERS.close()


PAGER = ReceiverConfig(name="pager", url="http://127.0.0.1:1/alerts")


def alerting_config(state_dir: Path, **overrides: Any) -> AlertingConfig:
    base = AlertingConfig(
        rules_file=str(RULES_FILE),
        state_dir=str(state_dir),
        receivers=[PAGER],
        exporter=ExporterConfig(port=None),
    )
    return dataclasses.replace(base, **overrides)


class Harness:
    """One service on a state directory; ``restart()`` makes a new one on the same directory."""

    def __init__(
        self,
        state_dir: Path,
        rules: AlertRulesConfig | None = None,
        silences: list[SilenceConfig] | None = None,
        transport: Literal["http", "fake"] = "http",
        **overrides: Any,
    ) -> None:
        self.state_dir = state_dir
        self.rules = rules if rules is not None else shipped_rules()
        self.clock = FakeClock()
        self.transport: ReceiverTransport | FakeTransport
        if transport == "http" and "receivers" not in overrides:
            state, url = start_receiver()
            path = "/pager"
            overrides["receivers"] = [dataclasses.replace(PAGER, url=url + path, timeout_s=5.0)]
            self.transport = ReceiverTransport(state, path, HttpTransport(self.clock))
        else:
            self.transport = FakeTransport()
        self.config = alerting_config(state_dir, silences=silences or [], **overrides)
        self.service = self._new_service()

    def _new_service(self) -> AlertService:
        service = AlertService(
            self.config,
            self.rules,
            cluster="test",
            clock=self.clock,
            transport=self.transport,
            registry=CollectorRegistry(),
            rand=lambda: 0.5,
        )
        service.open()
        return service

    def restart(self) -> None:
        """A new process on the same state (what survives a kill -9 is what is on disk)."""
        self.service = self._new_service()

    def tick(self, t: float, signals: Iterable[Signal] = (), snapshot: bool = False) -> None:
        """Submit ``signals`` (``snapshot``: publish them as the job's whole set, as the job
        does), evaluate and deliver at test time ``t``."""
        self.clock.now = T0 + t
        if snapshot:
            self.service.publish(with_window_failures(signals))
        else:
            self.service.submit(with_window_failures(signals))
        self.service.step()
        self.service.deliver()

    def run(
        self,
        start: float,
        end: float,
        signals: Callable[[float], Iterable[Signal]],
        step: float = 5,
        snapshot: bool = False,
    ) -> None:
        """Tick every ``step`` seconds from ``start`` to ``end`` inclusive."""
        t = start
        while t <= end:
            self.tick(t, signals(t), snapshot)
            t += step

    # What happened

    def alerts(self, rule: str) -> list[Alert]:
        return [a for a in self.service.engine.alerts.values() if a.rule == rule]

    def firing(self, rule: str) -> bool:
        return any(a.state == AlertState.FIRING for a in self.alerts(rule))

    @property
    def sent(self) -> list[Notification]:
        return self.transport.delivered

    def pages(self) -> list[Notification]:
        """Notifications that told of new firing alerts (not reminders or resolutions)."""
        return [n for n in self.sent if n.reason in ("first", "new_alerts")]

    def resolutions(self, rule: str | None = None) -> list[Notification]:
        return [
            n
            for n in self.sent
            if any(
                a.status == "resolved" and (rule is None or a.labels["alertname"] == rule)
                for a in n.alerts
            )
        ]

    def incidents(self) -> dict[str, list[Notification]]:
        """The notifications of each group key (one incident each), in delivery order."""
        found: dict[str, list[Notification]] = {}
        for n in self.sent:
            found.setdefault(n.group_key, []).append(n)
        return found

    def updates(self) -> list[Notification]:
        """Notifications that name a cause of alerts already notified (same incident)."""
        return [n for n in self.sent if n.reason == "cause"]

    def paged_rules(self) -> list[str]:
        """The rule of each alert instance (fingerprint, start) that was paged, once each."""
        seen: dict[tuple[str, float], str] = {}
        for n in self.pages():
            for a in n.alerts:
                if a.status == "firing":
                    seen.setdefault((a.fingerprint, a.starts_at), a.labels["alertname"])
        return list(seen.values())
