"""Each stage of the alert pipeline on its own: mute, dedup, payloads, retry."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry
from tests.support.alerting_harness import RULES_FILE

from kafka_health.alerting.dedup import group_news
from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.maintenance import Maintenance
from kafka_health.alerting.mute import Muted, MuteStage
from kafka_health.alerting.notification import Notification
from kafka_health.alerting.notify_log import Entry, NotifiedAlert, NotifyReason
from kafka_health.alerting.outbox import Outbox
from kafka_health.alerting.payloads import Payloads
from kafka_health.alerting.retry import Dropped, RetryStage
from kafka_health.alerting.rule_config import load_rules
from kafka_health.alerting.silence import SilenceStore, configured_silences
from kafka_health.alerting.webhook import DeliveryResult
from kafka_health.config import ReceiverConfig

T = 1_700_000_000.0


def alert(rule: str, fp: str, broker: str = "3", state: AlertState = AlertState.FIRING) -> Alert:
    labels = {"alertname": rule, "broker_id": broker, "severity": "critical"}
    return Alert(rule, fp, labels, state, T, T, fired_at=T)


def test_mute_inhibits_the_symptom_names_its_cause_and_silences_by_matcher(
    tmp_path: Path,
) -> None:
    rules = load_rules(RULES_FILE)
    gc = alert("FullGCPauseOverSessionTimeout", "gc")
    failed = alert("BrokerFailed", "failed")
    other = alert("BrokerFailed", "other", broker="1")
    silences = SilenceStore(
        tmp_path / "silences.json",
        configured_silences([(["broker_id=1"], "", "2099-01-01T00:00:00Z", "upgrade", "ops")]),
    )
    stage = MuteStage(rules.rules, rules.inhibit_rules, Maintenance(3600), silences)
    muted = stage.apply({a.fingerprint: a for a in (gc, failed, other)}, T + 1)
    assert gc.muted_by == [] and muted.roots == {"failed": "gc"}
    assert failed.muted_by[0].startswith("inhibited by FullGCPauseOverSessionTimeout")
    assert muted.extra["failed"]["cause"] == "FullGCPauseOverSessionTimeout"
    assert muted.extra["gc"]["cause"].startswith("Full GC on broker 3 paused it")
    assert muted.extra["gc"]["explains"] == "BrokerFailed"
    assert muted.explained(failed) and not muted.explained(other)
    assert [m.split(" ", 2)[:2] for m in other.muted_by] == [["silenced", "by"]]


def test_dedup_owes_the_resolution_of_what_was_told_and_no_longer_fires() -> None:
    told = Entry({"a": NotifiedAlert(T, {}), "b": NotifiedAlert(T, {})}, T)
    a = alert("BrokerFailed", "a")
    news = group_news(told, [a], {"a": a}, Muted(), 14_400, T + 30)
    assert news.reason == NotifyReason.RESOLVED and set(news.resolved) == {"b"}
    assert set(news.firing) == {"a"} and news.kept == {}
    quiet = group_news(Entry({"a": NotifiedAlert(T, {})}, T), [a], {"a": a}, Muted(), 14_400, T)
    assert quiet.reason is None


def test_payloads_carry_the_cluster_and_a_stable_key() -> None:
    payloads = Payloads("prod", ["broker_id"], "http://kafka-health")
    a = alert("BrokerFailed", "a")
    a.details = {"partitions": ["t-0"] * 1000}
    firing = payloads.firing(a, {"a": {"cause": "Full GC"}})
    assert firing.labels["cluster"] == "prod" and firing.annotations["cause"] == "Full GC"
    assert len(firing.annotations["details"]) <= 2000
    receiver = ReceiverConfig(name="pager", url="http://x/")
    one = payloads.notification(receiver, '{broker_id="3"}', NotifyReason.FIRST, [firing], 0, T)
    two = payloads.notification(receiver, '{broker_id="3"}', NotifyReason.FIRST, [firing], 0, T + 9)
    assert one.idempotency_key == two.idempotency_key and one.group_labels == {"broker_id": "3"}


class Answers:
    def __init__(self, *results: DeliveryResult) -> None:
        self.results = list(results)

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult:
        return self.results.pop(0) if self.results else DeliveryResult(True, status=200)


def test_retry_backs_off_then_delivers_and_hands_back_a_refusal(tmp_path: Path) -> None:
    receiver = ReceiverConfig(name="pager", url="http://x/")
    outbox = Outbox(tmp_path, 3600, T)
    retry = RetryStage(
        [receiver],
        Answers(DeliveryResult(False, True, "server_error", 500, error="HTTP 500"),
                DeliveryResult(False, False, "client_error", 400, error="HTTP 400")),
        CollectorRegistry(), clock=lambda: T, rand=lambda: 0.5,
    )  # fmt: skip
    dropped: list[Dropped] = []
    outbox.enqueue(Notification("pager", "{}", {}, "firing", "first", "k1", []), T)
    assert retry.deliver(outbox, T, dropped.append) == 0
    assert retry.deliver(outbox, T, dropped.append) == 0, "not before its backoff"
    later = outbox.next_attempt_at()
    assert later is not None and later > T
    assert retry.deliver(outbox, later, dropped.append) == 0
    assert [(d.reason, d.hold) for d in dropped] == [("rejected", True)]
    outbox.enqueue(Notification("pager", "{}", {}, "firing", "first", "k2", []), T)
    assert retry.deliver(outbox, later, dropped.append) == 1
    assert retry.delivered_total.labels("pager")._value.get() == 1
