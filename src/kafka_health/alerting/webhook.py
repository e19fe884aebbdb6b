"""Webhook delivery: payload formats, one HTTP POST, and the classification of its outcome.

Formats: Alertmanager's webhook (version 4, the default), PagerDuty Events API v2 (one event
per group; ``dedup_key`` is the group, so an update and a resolve reach the incident the first
trigger opened) and Slack incoming webhooks. One fault is one incident: its first notification
names the symptom and its candidate causes, a later one (reason ``cause``) the cause, under the
same group key (Alertmanager format), ``dedup_key`` (PagerDuty) or incident tag (Slack: an
incoming webhook cannot edit a message, ``chat.update`` needs a bot token and the message's
``ts``; each update is a new message carrying the same ``[incident <id>]`` tag). Every
request carries ``Idempotency-Key`` (the same for every attempt of one notification), an
optional bearer token and an optional HMAC-SHA256 signature over
``<timestamp>.<body>``. No retry loop here: :func:`classify` says whether a failure is worth
retrying (Alertmanager's ``Retrier.Check``), :func:`backoff_s` how long to wait.
"""

from __future__ import annotations

import email.utils
import hashlib
import hmac
import http.client
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from kafka_health.alerting.config import ReceiverConfig
from kafka_health.alerting.http_exchange import InvalidRequest, Target, post
from kafka_health.alerting.notification import AlertPayload, Notification
from kafka_health.configuration.redact import safe_url
from kafka_health.configuration.secrets import resolve_value
from kafka_health.errors import ConfigError

log = logging.getLogger(__name__)

ZERO_TIME = "0001-01-01T00:00:00Z"
USER_AGENT = "kafka-health-alerting/0.1"
FAILURE_REASONS = (
    "timeout", "connection", "server_error", "rate_limited", "client_error", "invalid_request",
    "gave_up",
)  # fmt: skip
"""Why an attempt failed: no complete answer within ``timeout_s``; the connection failed or
the answer was malformed; 5xx or 408; 429; another 4xx or a 3xx; the request could not be
made (the URL or a secret unreadable or invalid, a header value with a line break); given up
after ``give_up_after_s``."""
SEVERITY_COLOR = {"critical": "#d00000", "warning": "#e8a317", "info": "#439fe0"}


def rfc3339(epoch: float | None) -> str:
    if epoch is None:
        return ZERO_TIME
    return (
        datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def _common(maps: list[dict[str, str]]) -> dict[str, str]:
    if not maps:
        return {}
    first = maps[0]
    return {k: v for k, v in first.items() if all(m.get(k) == v for m in maps[1:])}


def _limited(notification: Notification, limit: int) -> tuple[list[AlertPayload], int]:
    alerts = sorted(notification.alerts, key=lambda a: (a.status != "firing", a.starts_at))
    if limit and len(alerts) > limit:
        return alerts[:limit], len(alerts) - limit
    return alerts, 0


def alertmanager_payload(n: Notification, receiver: ReceiverConfig) -> dict[str, Any]:
    """Alertmanager webhook payload, version 4."""
    alerts, truncated = _limited(n, receiver.max_alerts)
    return {
        "version": "4",
        "groupKey": n.group_key,
        "truncatedAlerts": truncated,
        "status": n.status,
        "receiver": n.receiver,
        "groupLabels": n.group_labels,
        "commonLabels": _common([a.labels for a in alerts]),
        "commonAnnotations": _common([a.annotations for a in alerts]),
        "externalURL": n.external_url,
        "alerts": [
            {
                "status": a.status,
                "labels": a.labels,
                "annotations": a.annotations,
                "startsAt": rfc3339(a.starts_at),
                "endsAt": rfc3339(a.ends_at),
                "generatorURL": n.external_url,
                "fingerprint": a.fingerprint,
            }
            for a in alerts
        ],
    }


def title(n: Notification) -> str:
    """One line naming the group and its alerts; a named cause comes first."""
    firing = [a for a in n.alerts if a.status == "firing"]
    shown = firing or n.alerts
    where = ", ".join(f"{k}={v}" for k, v in n.group_labels.items()) or "cluster"
    names = ", ".join(dict.fromkeys(a.labels.get("alertname", "?") for a in shown))
    count = f":{len(firing)}" if firing else ""
    text = f"[{n.status.upper()}{count}] {n.cluster} {where}: {names}"
    roots = [a.annotations["cause"] for a in firing if a.annotations.get("explains")]
    causes = roots or [a.annotations["cause"] for a in firing if a.annotations.get("cause")]
    candidates = [a.annotations["candidates"] for a in firing if a.annotations.get("candidates")]
    if causes:
        text += f" (cause: {causes[0]})"
    elif candidates:
        text += f" (possible causes: {candidates[0]})"
    return text


def incident_id(n: Notification) -> str:
    """A short stable id of the notification's group: the same for every update of it."""
    return hashlib.sha256(f"{n.cluster}/{n.group_key}".encode()).hexdigest()[:8]


def _source(n: Notification) -> str:
    cluster = n.cluster or "kafka"
    broker = n.group_labels.get("broker_id")
    return f"{cluster}/broker-{broker}" if broker else cluster


def pagerduty_payload(
    n: Notification, receiver: ReceiverConfig, routing_key: str
) -> dict[str, Any]:
    """PagerDuty Events API v2: trigger while anything fires, else resolve; one per group."""
    dedup_key = hashlib.sha256(f"{n.cluster}/{n.group_key}".encode()).hexdigest()
    action = "trigger" if n.status == "firing" else "resolve"
    event: dict[str, Any] = {
        "routing_key": routing_key,
        "event_action": action,
        "dedup_key": dedup_key,
    }
    if action == "trigger":
        alerts, truncated = _limited(n, receiver.max_alerts)
        firing = [a for a in alerts if a.status == "firing"]
        severities = [a.labels.get("severity", "") for a in firing]
        severity = next(
            (s for s in ("critical", "error", "warning", "info") if s in severities), "error"
        )
        event["payload"] = {
            "summary": title(n)[:1024],
            "source": _source(n),
            "severity": severity,
            "timestamp": rfc3339(min(a.starts_at for a in firing) if firing else n.created_at),
            "component": "kafka",
            "group": n.cluster,
            "class": ",".join(dict.fromkeys(a.labels.get("alertname", "") for a in firing)),
            "custom_details": {
                "alerts": [
                    {"status": a.status, "labels": a.labels, "annotations": a.annotations}
                    for a in alerts
                ],
                "truncated_alerts": truncated,
            },
        }
        if n.external_url:
            event["links"] = [{"href": n.external_url, "text": "kafka-health"}]
    return event


def slack_escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as Slack's formatting rules ask (``&amp;`` first): a value can then
    neither mention (``<!channel>``) nor link (``<https://...|click>``), only be shown."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_payload(n: Notification, receiver: ReceiverConfig) -> dict[str, Any]:
    """Slack incoming webhook: a text line plus one attachment per alert; every value from
    labels, annotations or the group escaped (:func:`slack_escape`)."""
    esc = slack_escape
    alerts, truncated = _limited(n, receiver.max_alerts)
    attachments = []
    for a in alerts:
        color = SEVERITY_COLOR.get(a.labels.get("severity", ""), "#439fe0")
        fields = [
            {"title": esc(k), "value": esc(v), "short": True}
            for k, v in a.labels.items()
            if k not in ("alertname", "severity")
        ]
        text_parts = [
            a.annotations.get(k, "") for k in ("description", "candidates", "cause", "explains")
        ]
        if a.annotations.get("runbook"):
            text_parts.append("Runbook: " + a.annotations["runbook"])
        if a.annotations.get("runbook_url"):
            text_parts.append("Runbook link: " + a.annotations["runbook_url"])
        attachments.append(
            {
                "fallback": esc(a.annotations.get("summary", a.labels.get("alertname", ""))),
                "color": "#2eb886" if a.status == "resolved" else color,
                "title": esc(
                    f"[{a.status}] {a.labels.get('alertname', '')}: "
                    f"{a.annotations.get('summary', '')}"
                ),
                "text": esc("\n".join(p for p in text_parts if p)),
                "fields": fields,
                "ts": int(a.starts_at),
            }
        )
    update = " update:" if n.reason == "cause" else ""
    text = f"[incident {incident_id(n)}]{update} " + esc(title(n))
    text += f" (+{truncated} more)" if truncated else ""
    return {"text": text, "attachments": attachments}


def render(n: Notification, receiver: ReceiverConfig, routing_key: str = "") -> bytes:
    """The request body for ``receiver``'s format (deterministic: the same bytes each attempt)."""
    if receiver.format == "pagerduty":
        body: dict[str, Any] = pagerduty_payload(n, receiver, routing_key)
    elif receiver.format == "slack":
        body = slack_payload(n, receiver)
    else:
        body = alertmanager_payload(n, receiver)
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>`` of HMAC-SHA256 over ``<timestamp>.<body>``."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


@dataclass(frozen=True)
class DeliveryResult:
    """The outcome of one attempt: done, worth retrying, or not."""

    ok: bool
    retryable: bool = False
    reason: str = ""
    status: int | None = None
    retry_after_s: float | None = None
    error: str = ""


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def classify(status: int, retry_after: str | None, now: float) -> DeliveryResult:
    """2xx done; 429 and 5xx (and 408) retried, honouring Retry-After; other codes final."""
    if 200 <= status < 300:
        return DeliveryResult(True, status=status)
    wait = parse_retry_after(retry_after, now)
    if status == 429:
        return DeliveryResult(False, True, "rate_limited", status, wait, f"HTTP {status}")
    if status >= 500 or status == 408:
        return DeliveryResult(False, True, "server_error", status, wait, f"HTTP {status}")
    return DeliveryResult(False, False, "client_error", status, None, f"HTTP {status}")


def backoff_s(
    attempt: int, receiver: ReceiverConfig, retry_after_s: float | None, rand: Callable[[], float]
) -> float:
    """Exponential backoff with jitter for attempt ``attempt`` (1 after the first failure);
    never sooner than Retry-After (capped by ``retry_after_max_s``)."""
    growth = 2.0 ** max(0, attempt - 1)
    base = min(receiver.backoff_max_s, receiver.backoff_initial_s * growth)
    delay = base * (1 + receiver.jitter * (2 * rand() - 1))
    if retry_after_s is not None:
        delay = max(delay, min(retry_after_s, receiver.retry_after_max_s))
    return max(0.0, delay)


class Transport(Protocol):
    """Sends one notification to one receiver (the real one is HTTP; tests may fake it)."""

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult: ...


@dataclass(frozen=True)
class Prepared:
    """A request ready to send: the URL (possibly a secret: never logged), body, headers."""

    url: str
    body: bytes
    headers: dict[str, str]


def failed_attempt(exc: Exception) -> DeliveryResult:
    """A retryable failure for an exception raised while preparing or sending a request. The
    error names what happened, never the URL or a header value (messages of ``ValueError``
    and ``InvalidURL`` quote them): it is logged and stored in the outbox."""
    if isinstance(exc, InvalidRequest | ConfigError):
        return DeliveryResult(False, True, "invalid_request", error=str(exc))
    if isinstance(exc, TimeoutError):
        return DeliveryResult(False, True, "timeout", error="timed out")
    if isinstance(exc, OSError):
        what = exc.strerror or type(exc).__name__
        return DeliveryResult(False, True, "connection", error=f"{type(exc).__name__}: {what}")
    if isinstance(exc, http.client.HTTPException) and not isinstance(exc, http.client.InvalidURL):
        return DeliveryResult(False, True, "connection", error=f"bad answer ({type(exc).__name__})")
    return DeliveryResult(False, True, "invalid_request", error=type(exc).__name__)


@dataclass
class HttpTransport:
    """POSTs within one deadline per request (:mod:`.http_exchange`); the URL and secrets are
    resolved once per receiver and kept in memory. Never raises: every exception is a
    failed attempt (:func:`failed_attempt`). No redirect is followed: a webhook is an exit,
    not an entrance, and a 3xx is a refusal, counted and the page sent again (``classify``)."""

    clock: Callable[[], float] = time.time
    _values: dict[tuple[str, str], str] = field(default_factory=dict)

    def _value(self, receiver: ReceiverConfig, name: str) -> str:
        key = (receiver.name, name)
        if key not in self._values:
            self._values[key] = resolve_value(getattr(receiver, name))
        return self._values[key]

    def check(self, receivers: list[ReceiverConfig]) -> None:
        """Resolve every URL and secret now, so a missing one fails at start (``ConfigError``);
        warn once per receiver whose credentials would cross the network in clear text."""
        for receiver in receivers:
            for name in ("url", "bearer_token", "hmac_secret", "routing_key"):
                self._value(receiver, name)
            url = self._value(receiver, "url")
            exposed = [n for n in ("bearer_token", "routing_key") if getattr(receiver, n)]
            if exposed and url[:7].lower() == "http://":
                log.warning(
                    "receiver %s sends its %s over plain http:// to %s: anyone on the path can "
                    "read it; use https://", receiver.name, " and ".join(exposed),
                    safe_url(url),
                )  # fmt: skip
            self._route(receiver.name, url)

    @staticmethod
    def _route(name: str, url: str) -> None:
        """Log the proxy a receiver's pages go through (the environment's, as urllib took
        it); warn now when that proxy cannot be used, every attempt would fail."""
        try:
            proxy = Target.parse(url).proxy
        except InvalidRequest as exc:  # quotes neither the URL nor the proxy's
            log.warning("receiver %s: %s; its notifications will fail", name, exc)
            return
        if proxy:
            log.info("receiver %s is reached through the proxy %s", name, proxy.shown)

    def prepare(self, receiver: ReceiverConfig, n: Notification) -> Prepared:
        body = render(n, receiver, self._value(receiver, "routing_key"))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Idempotency-Key": n.idempotency_key,
            "X-Kafka-Health-Reason": n.reason,
        }
        token = self._value(receiver, "bearer_token")
        if token:
            headers["Authorization"] = f"Bearer {token}"
        key = self._value(receiver, "hmac_secret")
        if key:
            stamp = str(int(self.clock()))
            headers["X-Kafka-Health-Timestamp"] = stamp
            headers["X-Kafka-Health-Signature"] = signature(key, stamp, body)
        return Prepared(self._value(receiver, "url"), body, headers)

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult:
        try:
            req = self.prepare(receiver, notification)
            answer = post(req.url, req.body, req.headers, receiver.timeout_s)
        except Exception as exc:  # any of them fails this attempt alone, retried
            return failed_attempt(exc)
        return classify(answer.status, answer.retry_after, self.clock())
