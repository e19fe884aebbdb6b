"""Payload formats, request headers, failure classification and backoff; no network."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json

import pytest

from kafka_health.alerting.notification import AlertPayload, Notification
from kafka_health.alerting.webhook import (
    DeliveryResult,
    HttpTransport,
    backoff_s,
    classify,
    incident_id,
    parse_retry_after,
    render,
)
from kafka_health.config import ReceiverConfig, Secret

T = 1_700_000_000.0
GC = AlertPayload(
    "firing",
    {"alertname": "FullGCPauseOverSessionTimeout", "severity": "critical", "broker_id": "3",
     "cluster": "prod"},
    {"summary": "Full GC pause on broker 3 longer than its session timeout",
     "cause": "Full GC on broker 3 paused it", "explains": "ZooKeeper session of broker 3 expired"},
    T, None, "aaaa",
)  # fmt: skip
URP = AlertPayload(
    "resolved",
    {"alertname": "UnderReplicatedPartitions", "severity": "warning", "broker_id": "3",
     "cluster": "prod"},
    {"summary": "2 partitions led by broker 3 are under-replicated"},
    T - 60, T, "bbbb",
)  # fmt: skip
NOTE = Notification(
    "pager", '{broker_id="3"}', {"broker_id": "3"}, "firing", "first", "key-1", [GC, URP], "prod",
    "http://monitor.example", T,
)  # fmt: skip
RECEIVER = ReceiverConfig(name="pager", url="http://127.0.0.1:9/x")


def test_alertmanager_v4_payload() -> None:
    body = json.loads(render(NOTE, RECEIVER))
    assert body["version"] == "4" and body["status"] == "firing" and body["receiver"] == "pager"
    assert body["groupKey"] == '{broker_id="3"}' and body["groupLabels"] == {"broker_id": "3"}
    assert body["commonLabels"] == {"broker_id": "3", "cluster": "prod"}
    assert body["truncatedAlerts"] == 0
    first, second = body["alerts"]
    assert first["status"] == "firing" and first["endsAt"] == "0001-01-01T00:00:00Z"
    assert first["startsAt"] == "2023-11-14T22:13:20.000Z" and first["fingerprint"] == "aaaa"
    assert second["status"] == "resolved" and second["endsAt"] == "2023-11-14T22:13:20.000Z"


def test_alertmanager_payload_truncates_to_max_alerts() -> None:
    body = json.loads(render(NOTE, dataclasses.replace(RECEIVER, max_alerts=1)))
    assert len(body["alerts"]) == 1 and body["truncatedAlerts"] == 1
    assert body["alerts"][0]["status"] == "firing", "firing alerts first"


def test_pagerduty_trigger_and_resolve_share_the_dedup_key() -> None:
    receiver = dataclasses.replace(RECEIVER, format="pagerduty", routing_key=Secret(env="X"))
    trigger = json.loads(render(NOTE, receiver, "R0UT1NG"))
    resolved = dataclasses.replace(NOTE, status="resolved", alerts=[URP])
    resolve = json.loads(render(resolved, receiver, "R0UT1NG"))
    assert trigger["event_action"] == "trigger" and resolve["event_action"] == "resolve"
    assert trigger["dedup_key"] == resolve["dedup_key"] and len(trigger["dedup_key"]) <= 255
    assert trigger["routing_key"] == "R0UT1NG"
    payload = trigger["payload"]
    assert payload["severity"] == "critical" and payload["source"] == "prod/broker-3"
    assert "cause: Full GC on broker 3" in payload["summary"] and len(payload["summary"]) <= 1024
    assert "payload" not in resolve


def test_slack_payload() -> None:
    body = json.loads(render(NOTE, dataclasses.replace(RECEIVER, format="slack")))
    tag = f"[incident {incident_id(NOTE)}] "
    assert body["text"].startswith(tag + "[FIRING:1] prod broker_id=3: FullGCPauseOverSessionTim")
    firing, resolved = body["attachments"]
    assert firing["color"] == "#d00000" and resolved["color"] == "#2eb886"
    assert "ZooKeeper session of broker 3 expired" in firing["text"]


MENTION, LINK = "<!channel>", "<https://example.com|click>"


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def test_slack_payload_escapes_every_value() -> None:
    """Labels, annotations and group labels holding Slack markup: shown, never acted on (no
    mention of the channel, no link), per Slack's escaping of &, < and >."""
    hostile = f"{MENTION} {LINK} & co"
    alert = dataclasses.replace(
        GC,
        labels={**GC.labels, "broker_id": hostile, f"x{MENTION}": hostile},
        annotations={k: hostile for k in
                     ("summary", "description", "candidates", "cause", "explains", "runbook")},
    )  # fmt: skip
    note = dataclasses.replace(
        NOTE, alerts=[alert, URP], group_labels={"broker_id": hostile}, cluster=hostile
    )
    body = json.loads(render(note, dataclasses.replace(RECEIVER, format="slack")))
    strings = _strings(body)
    assert strings and not [s for s in strings if "<" in s or ">" in s], "no markup left"
    raw = json.dumps(body)
    assert MENTION not in raw and "<https://" not in raw and "|click>" not in raw
    shown = "&lt;!channel&gt; &lt;https://example.com|click&gt; &amp; co"
    attachment = body["attachments"][0]
    assert shown in body["text"] and attachment["fallback"] == shown
    assert shown in attachment["title"] and attachment["text"].count(shown) == 5
    assert {"title": "x&lt;!channel&gt;", "value": shown, "short": True} in attachment["fields"]
    assert {"title": "broker_id", "value": shown, "short": True} in attachment["fields"]
    unchanged = json.loads(render(note, RECEIVER))
    assert unchanged["groupLabels"] == {"broker_id": hostile}, "other formats carry values as is"


def test_updates_of_one_incident_carry_its_keys() -> None:
    """Slack's incoming webhooks cannot edit a message: an update is a new message with the
    same incident tag; PagerDuty's is a trigger with the same dedup_key; Alertmanager's the
    same groupKey."""
    symptom = dataclasses.replace(
        URP, status="firing", ends_at=None,
        annotations={"summary": "s", "candidates": "hung, long GC pause or network"},
    )  # fmt: skip
    first = dataclasses.replace(NOTE, alerts=[symptom], idempotency_key="k1")
    update = dataclasses.replace(NOTE, reason="cause", idempotency_key="k2")
    slack = dataclasses.replace(RECEIVER, format="slack")
    texts = [json.loads(render(n, slack))["text"] for n in (first, update)]
    assert "(possible causes: hung, long GC pause or network)" in texts[0]
    assert texts[1].startswith(f"[incident {incident_id(NOTE)}] update: ")
    assert texts[0].startswith(f"[incident {incident_id(NOTE)}] [FIRING")
    assert "(cause: Full GC on broker 3" in texts[1]
    pd = dataclasses.replace(RECEIVER, format="pagerduty", routing_key=Secret(env="X"))
    keys = {json.loads(render(n, pd, "R"))["dedup_key"] for n in (first, update)}
    assert len(keys) == 1
    groups = {json.loads(render(n, RECEIVER))["groupKey"] for n in (first, update)}
    assert groups == {'{broker_id="3"}'}


def test_rendering_is_deterministic() -> None:
    assert render(NOTE, RECEIVER) == render(Notification.from_json(NOTE.to_json()), RECEIVER)


def test_request_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KH_TOKEN", "t0ken")
    monkeypatch.setenv("KH_HMAC", "s3cret")
    receiver = dataclasses.replace(
        RECEIVER, bearer_token=Secret(env="KH_TOKEN"), hmac_secret=Secret(env="KH_HMAC")
    )
    req = HttpTransport(clock=lambda: T).prepare(receiver, NOTE)
    headers = {k.lower(): v for k, v in req.headers.items()}
    assert headers["authorization"] == "Bearer t0ken"
    assert headers["idempotency-key"] == "key-1"
    assert headers["x-kafka-health-timestamp"] == str(int(T))
    assert req.url == RECEIVER.url and req.body == render(NOTE, receiver)
    expected = hmac.new(b"s3cret", f"{int(T)}.".encode() + req.body, hashlib.sha256).hexdigest()
    assert headers["x-kafka-health-signature"] == f"sha256={expected}"


# (status, Retry-After, ok, retryable, reason, why)
CLASSIFY = [
    (200, None, True, False, "", "2xx is done"),
    (202, None, True, False, "", "PagerDuty answers 202"),
    (500, None, False, True, "server_error", "5xx is retried"),
    (503, "7", False, True, "server_error", "with Retry-After"),
    (429, "12", False, True, "rate_limited", "429 is retried after Retry-After"),
    (408, None, False, True, "server_error", "request timeout is retried"),
    (400, None, False, False, "client_error", "a bad payload will not get better"),
    (401, None, False, False, "client_error", "nor a bad token"),
    (404, None, False, False, "client_error", "nor a wrong URL"),
]  # fmt: skip


@pytest.mark.parametrize(("status", "retry_after", "ok", "retryable", "reason", "why"), CLASSIFY)
def test_classify(
    status: int, retry_after: str | None, ok: bool, retryable: bool, reason: str, why: str
) -> None:
    result = classify(status, retry_after, T)
    assert (result.ok, result.retryable, result.reason) == (ok, retryable, reason), why
    if retry_after:
        assert result.retry_after_s == float(retry_after)


def test_retry_after_as_http_date() -> None:
    assert parse_retry_after("Tue, 14 Nov 2023 22:13:50 GMT", T) == 30.0
    assert parse_retry_after("soon", T) is None


BACKOFF = ReceiverConfig(
    name="r", url="http://x/", backoff_initial_s=1, backoff_max_s=8, jitter=0.5
)

# (attempt, Retry-After, random, expected, why)
BACKOFFS = [
    (1, None, 0.5, 1.0, "first retry after the initial backoff"),
    (3, None, 0.5, 4.0, "doubles each attempt"),
    (10, None, 0.5, 8.0, "capped"),
    (1, None, 0.0, 0.5, "jitter: -50%"),
    (1, None, 1.0, 1.5, "jitter: +50%"),
    (1, 30.0, 0.5, 30.0, "never before Retry-After"),
    (1, 5000.0, 0.5, 600.0, "Retry-After capped by retry_after_max_s"),
]  # fmt: skip


@pytest.mark.parametrize(("attempt", "retry_after", "rand", "expected", "why"), BACKOFFS)
def test_backoff(
    attempt: int, retry_after: float | None, rand: float, expected: float, why: str
) -> None:
    assert backoff_s(attempt, BACKOFF, retry_after, lambda: rand) == pytest.approx(expected), why


def test_unresolvable_secret_keeps_the_notification() -> None:
    receiver = dataclasses.replace(RECEIVER, bearer_token=Secret(env="KH_SURELY_UNSET_VAR"))
    result = HttpTransport().send(receiver, NOTE)
    assert result == DeliveryResult(False, True, "invalid_request", error=result.error)
    assert "KH_SURELY_UNSET_VAR" in result.error, "names where the secret should come from"
