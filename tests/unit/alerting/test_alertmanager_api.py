"""Receivers of format alertmanager_api: the exact ``POST /api/v2/alerts`` body, and the
schedule of sends (at once, re-sent every ``resend_s`` with ``endsAt`` 4 re-sends ahead, the
resolution with its end until taken, never re-sent, every instance on its own) on a fake
clock."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from tests.support.alerting_harness import DISK_FULL, T0, WITH_A_CLUSTER_SYMPTOM, FakeClock

from kafka_health.alerting.alertmanager_api import Handed, api_body, due_at
from kafka_health.alerting.http_exchange import Answer
from kafka_health.alerting.rule_config import AlertRulesConfig
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.silence import parse_matcher
from kafka_health.config import AlertingConfig, ExporterConfig, ReceiverConfig
from kafka_health.configuration.engine import build
from kafka_health.configuration.redact import to_redacted_dict
from kafka_health.configuration.secrets import Secret
from kafka_health.errors import ConfigProblem
from kafka_health.model import Signal, labels

AM = "http://am-a.example:9093"
AM_B = "http://am-b.example:9093/prefix/"


def test_body_is_prometheus_postable_alerts() -> None:
    firing = Handed({"alertname": "DiskFull", "broker_id": "1", "empty": ""}, {"summary": "s"}, T0)
    resolved = Handed({"alertname": "DiskFull", "broker_id": "2"}, {}, T0, ends_at=T0 + 30.5)
    body = api_body([firing, resolved], "http://dash.example/", T0 + 10, resend_s=60.0)
    assert json.loads(body) == [
        {
            "labels": {"alertname": "DiskFull", "broker_id": "1"},
            "annotations": {"summary": "s"},
            "startsAt": "2023-11-14T22:13:20.000Z",
            "endsAt": "2023-11-14T22:17:30.000Z",  # sent at T0+10, 4 x 60 s ahead
            "generatorURL": "http://dash.example/",
        },
        {
            "labels": {"alertname": "DiskFull", "broker_id": "2"},
            "annotations": {},
            "startsAt": "2023-11-14T22:13:20.000Z",
            "endsAt": "2023-11-14T22:13:50.500Z",
            "generatorURL": "http://dash.example/",
        },
    ]
    assert body == json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()


@dataclass
class FakeAlertmanagers:
    """Every POST by URL; an URL in ``down`` refuses the connection."""

    posts: list[tuple[str, list[dict[str, Any]], dict[str, str]]] = field(default_factory=list)
    down: set[str] = field(default_factory=set)

    def __call__(
        self, url: str, body: bytes, headers: Mapping[str, str], timeout_s: float
    ) -> Answer:
        if url in self.down:
            raise ConnectionRefusedError(111, "Connection refused")
        self.posts.append((url, json.loads(body), dict(headers)))
        return Answer(200, None)

    def to(self, base: str) -> list[list[dict[str, Any]]]:
        url = base.rstrip("/") + "/api/v2/alerts"
        return [alerts for u, alerts, _ in self.posts if u == url]


RULES = DISK_FULL


def service(
    tmp_path: Path, clock: FakeClock, fake: FakeAlertmanagers, rules: AlertRulesConfig = RULES,
    **receiver: Any,
) -> AlertService:  # fmt: skip
    config = AlertingConfig(
        state_dir=str(tmp_path),
        receivers=[ReceiverConfig(name="am", url=AM, format="alertmanager_api", **receiver)],
        exporter=ExporterConfig(port=None),
        external_url="http://dash.example/",
    )
    svc = AlertService(
        config, rules, cluster="c1", clock=clock, registry=CollectorRegistry(), rand=lambda: 0.5
    )
    svc.hand_over.send = fake
    svc.open()
    return svc


def disk(value: float, at: float, broker: str = "1") -> Signal:
    return Signal("disk_used_ratio", labels(broker_id=broker), value, at)


def run(svc: AlertService, clock: FakeClock, t: float, value: float | None = None) -> None:
    clock.now = T0 + t
    if value is not None:
        svc.submit([disk(value, clock.now)])
    svc.step(clock.now)
    svc.deliver(clock.now)


def ends(alerts: list[dict[str, Any]]) -> list[str]:
    return [a["endsAt"] for a in alerts]


def test_sent_at_once_resent_every_resend_s_resolution_with_its_end(tmp_path: Path) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers()
    svc = service(tmp_path, clock, fake, resend_s=60.0)
    run(svc, clock, 0, 0.95)
    assert len(fake.posts) == 1  # no group wait: handed over as it fires
    url, alerts, headers = fake.posts[0]
    assert url == AM + "/api/v2/alerts"
    assert headers["Content-Type"] == "application/json"
    assert alerts[0]["labels"] == {
        "alertname": "DiskFull", "broker_id": "1", "cluster": "c1", "severity": "critical",
    }  # fmt: skip
    assert alerts[0]["annotations"]["summary"] == "disk full"
    assert ends(alerts) == ["2023-11-14T22:17:20.000Z"]  # T0 + 240
    assert svc.outbox is not None and svc.outbox.pending() == []  # not the webhook path
    for t in range(1, 60):
        run(svc, clock, t, 0.95)
    assert len(fake.posts) == 1
    run(svc, clock, 60, 0.95)
    assert len(fake.posts) == 2
    assert ends(fake.posts[1][1]) == ["2023-11-14T22:18:20.000Z"]  # T0 + 60 + 240
    assert svc.hand_over.next_at("am#0") == T0 + 120
    run(svc, clock, 75, 0.5)  # resolves: sent at once with its end
    assert len(fake.posts) == 3
    assert ends(fake.posts[2][1]) == ["2023-11-14T22:14:35.000Z"]  # T0 + 75
    assert svc.hand_over.next_at("am#0") is None
    for t in range(76, 75 + 900 + 61, 30):
        run(svc, clock, t)
    # Taken: never re-sent (a re-send re-creates Alertmanager's flushed group, which would hold
    # the broker's next page until its group_interval tick).
    assert len(fake.posts) == 3
    assert svc.hand_over.alerts["am"] == {}  # forgotten after RESOLVED_RESEND_S
    delivered = svc.registry.get_sample_value(
        "kafka_health_notifications_total", {"receiver": "am"}
    )
    assert delivered == len(fake.posts)


def test_due_at_firing_resent_resolution_sent_until_taken() -> None:
    firing = Handed({"alertname": "DiskFull"}, {}, T0)
    resolved = Handed({"alertname": "DiskFull"}, {}, T0, ends_at=T0 + 5, version=1)
    assert due_at(firing, None, 60.0) == 0.0  # never sent
    assert due_at(firing, (0, T0 + 1), 60.0) == T0 + 61  # re-sent every resend_s
    assert due_at(resolved, (0, T0 + 1), 60.0) == 0.0  # the resolution: a new version, at once
    assert due_at(resolved, None, 60.0) == 0.0
    assert due_at(resolved, (1, T0 + 5), 60.0) is None  # taken: never again


def test_a_failed_resolution_is_retried_until_taken(tmp_path: Path) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers()
    svc = service(tmp_path, clock, fake, resend_s=60.0, backoff_max_s=4.0)
    run(svc, clock, 0, 0.95)
    fake.down.add(AM + "/api/v2/alerts")
    run(svc, clock, 10, 0.5)  # resolves while Alertmanager is down
    assert len(fake.posts) == 1
    assert svc.hand_over.next_at("am#0") == pytest.approx(T0 + 11.0)  # backoff_initial_s
    fake.down.clear()
    run(svc, clock, 11)
    assert len(fake.posts) == 2 and ends(fake.posts[1][1]) == ["2023-11-14T22:13:30.000Z"]
    for t in range(12, 400, 20):
        run(svc, clock, t)
    assert len(fake.posts) == 2


def test_a_resolution_during_a_monitor_restart_is_sent(tmp_path: Path) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers()
    svc = service(tmp_path, clock, fake)
    run(svc, clock, 0, 0.95)
    svc = service(tmp_path, clock, fake)  # a new process on the same state directory
    run(svc, clock, 5, 0.5)
    assert [ends(alerts) for _, alerts, _ in fake.posts] == [
        ["2023-11-14T22:17:20.000Z"], ["2023-11-14T22:13:25.000Z"],
    ]  # fmt: skip


def test_every_instance_gets_every_alert_one_down_holds_back_no_other(tmp_path: Path) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers(down={AM_B.rstrip("/") + "/api/v2/alerts"})
    svc = service(tmp_path, clock, fake, urls=[AM_B], resend_s=60.0, backoff_max_s=4.0)
    assert sorted(svc.hand_over.instances) == ["am#0", "am#1"]
    run(svc, clock, 0, 0.95)
    assert len(fake.to(AM)) == 1 and fake.to(AM_B) == []
    failed = {"receiver": "am", "reason": "connection"}
    assert svc.registry.get_sample_value("kafka_health_notifications_failed_total", failed) == 1
    assert svc.hand_over.next_at("am#1") == pytest.approx(T0 + 1.0)  # backoff_initial_s
    fake.down.clear()
    run(svc, clock, 1, 0.95)
    assert len(fake.to(AM_B)) == 1 and len(fake.to(AM)) == 1  # each on its own schedule
    assert ends(fake.to(AM_B)[0]) == ["2023-11-14T22:17:21.000Z"]


def test_muted_alerts_stay_with_the_monitor(tmp_path: Path) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers()
    svc = service(tmp_path, clock, fake)
    svc.silences.add([parse_matcher('broker_id="2"')], T0, T0 + 3600, "test", "ops", T0)
    clock.now = T0
    svc.submit([disk(0.95, T0, "2")])
    svc.step(T0)
    svc.deliver(T0)
    assert fake.posts == []  # silenced by the monitor: not handed over
    run(svc, clock, 1, 0.95)  # broker 1 fires and is handed over
    assert len(fake.posts) == 1
    svc.silences.add([parse_matcher('broker_id="1"')], T0 + 2, T0 + 3600, "test", "ops", T0)
    run(svc, clock, 2, 0.95)  # silenced now: ended at once in Alertmanager
    assert ends(fake.posts[1][1]) == ["2023-11-14T22:13:22.000Z"]
    clock.now = T0 + 3
    svc.submit([disk(0.5, clock.now, "2")])  # broker 2, never handed over, resolves
    svc.step(clock.now)
    svc.deliver(clock.now)
    assert len(fake.posts) == 2  # no resolution: it would open its group in Alertmanager


def test_config_urls_only_for_the_api_format_and_redacted() -> None:
    problems: list[ConfigProblem] = []
    built = build(
        ReceiverConfig,
        {"name": "am", "url": AM, "format": "alertmanager_api", "urls": [AM_B, {"env": "AM_C"}]},
        "alerting.receivers[0]",
        problems,
    )
    assert problems == []
    assert isinstance(built.urls[1], Secret) and built.urls[1].key.endswith("urls[1]")
    assert to_redacted_dict(built)["urls"] == [
        "http://am-b.example:9093", "<redacted> (env AM_C)",
    ]  # fmt: skip
    wrong = ReceiverConfig(name="w", url=AM, urls=[AM_B])
    assert [p.path for p in wrong.check("r")] == ["r.urls"]
    bad = ReceiverConfig(name="b", url=AM, format="alertmanager_api", urls=["ftp://x"], resend_s=0)
    assert [p.path for p in bad.check("r")] == ["r.urls[0]", "r.resend_s"]


def slow(value: float, at: float) -> Signal:
    return Signal("batch_seconds", labels(), value, at)


def step(svc: AlertService, clock: FakeClock, t: float, signals: list[Signal]) -> None:
    clock.now = T0 + t
    svc.submit(signals)
    svc.step(clock.now)
    svc.deliver(clock.now)


def names(post: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(a["labels"]["alertname"], a["endsAt"]) for a in post]


def test_a_symptom_explained_by_its_firing_cause_is_held_back(tmp_path: Path) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers()
    svc = service(tmp_path, clock, fake, WITH_A_CLUSTER_SYMPTOM, resend_s=60.0)
    step(svc, clock, 0, [disk(0.95, T0)])
    step(svc, clock, 1, [disk(0.95, T0 + 1), slow(30, T0 + 1)])
    step(svc, clock, 2, [disk(0.95, T0 + 2), slow(30, T0 + 2)])
    # Only the cause, updated to name what it explains: the symptom, muted by it, would open
    # a cluster-wide group of its own in Alertmanager (a second page for one fault).
    posts = [alerts for _, alerts, _ in fake.posts]
    assert [[a["labels"]["alertname"] for a in alerts] for alerts in posts] == [
        ["DiskFull"], ["DiskFull"],
    ]  # fmt: skip
    assert posts[1][0]["annotations"]["explains"] == "the monitor is slow"
    step(svc, clock, 3, [disk(0.5, T0 + 3), slow(30, T0 + 3)])  # the cause resolves first
    step(svc, clock, 4, [disk(0.5, T0 + 4), slow(30, T0 + 4)])
    # The symptom stays explained by its cause while it lasts (as the direct receivers keep
    # it): only the cause's resolution goes out, and nothing when the symptom ends.
    step(svc, clock, 5, [disk(0.5, T0 + 5), slow(1, T0 + 5)])
    assert [names(alerts) for _, alerts, _ in fake.posts[2:]] == [
        [("DiskFull", "2023-11-14T22:13:23.000Z")],
    ]  # fmt: skip


def test_a_symptom_handed_over_before_its_cause_stays_with_the_cause_named(
    tmp_path: Path,
) -> None:
    clock, fake = FakeClock(), FakeAlertmanagers()
    svc = service(tmp_path, clock, fake, WITH_A_CLUSTER_SYMPTOM, resend_s=60.0)
    step(svc, clock, 0, [slow(30, T0)])
    step(svc, clock, 1, [slow(30, T0 + 1), disk(0.95, T0 + 1)])
    sent = [sorted(a["labels"]["alertname"] for a in alerts) for _, alerts, _ in fake.posts]
    assert sent == [["MonitorSlow"], ["DiskFull", "MonitorSlow"]]
    (explained,) = [a for a in fake.posts[1][1] if a["labels"]["alertname"] == "MonitorSlow"]
    assert explained["endsAt"] == "2023-11-14T22:17:21.000Z"  # still firing: not ended
    assert explained["annotations"]["cause"] == "disk full"  # its cause's summary
