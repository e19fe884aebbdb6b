"""The ``alerting`` section: the alert service's schema."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from kafka_health.configuration.secrets import Secret, url_secret
from kafka_health.configuration.urls import URL_FIELD, check_url
from kafka_health.errors import ConfigProblem

AlertFormat = Literal["alertmanager", "pagerduty", "slack", "alertmanager_api"]
"""``alertmanager_api`` hands every alert to Alertmanager as Prometheus does
(:mod:`~.alertmanager_api`); the others are webhook payloads of a group (:mod:`~.webhook`)."""
Severity = Literal["critical", "warning", "info"]


def _check_matchers(matchers: list[str], path: str) -> list[ConfigProblem]:
    from kafka_health.alerting.silence import parse_matcher  # no cycle: silence imports no config

    problems = []
    for i, text in enumerate(matchers):
        try:
            parse_matcher(text)
        except ValueError as exc:
            problems.append(ConfigProblem(f"{path}[{i}]", str(exc)))
    return problems


def _check_url_value(value: str | Secret, path: str, required: bool) -> list[ConfigProblem]:
    """A URL written in the config is checked now; one from a secret when it is read."""
    if isinstance(value, Secret):
        return value.check(path)
    return check_url(value, path, required)


@dataclass(frozen=True)
class ReceiverConfig:
    """Where notifications go: a URL, a payload format, which alerts (routing), how to retry.

    Routing: an alert goes to every receiver whose ``severities`` (empty: all) contain its
    severity and whose ``matchers`` (``label="value"``, ``!=``, ``=~``, ``!~``) all match.
    """

    name: str = ""
    url: str | Secret = field(default="", metadata=URL_FIELD)
    """An http(s) URL without user info, or a secret holding one (a Slack webhook URL is a
    credential); printed and logged as ``scheme://host[:port]`` only."""
    format: AlertFormat = "alertmanager"
    urls: list[str | Secret] = field(default_factory=list, metadata=URL_FIELD)
    """Format alertmanager_api: the other instances of the Alertmanager cluster ``url`` is one
    of (each an http(s) base URL, or a secret holding one); every instance gets every alert."""
    resend_s: float = 60.0
    """Format alertmanager_api: a firing alert is sent again this often (Prometheus's
    ``--rules.alert.resend-delay``), with ``endsAt`` 4 times this ahead."""
    severities: list[Severity] = field(default_factory=list)
    matchers: list[str] = field(default_factory=list)
    send_resolved: bool = True
    bearer_token: Secret | None = None
    hmac_secret: Secret | None = None
    """Signs ``<timestamp>.<body>`` with HMAC-SHA256 into ``X-Kafka-Health-Signature``."""
    routing_key: Secret | None = None
    """PagerDuty Events API v2 integration key (format: pagerduty)."""
    timeout_s: float = 10.0
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 15.0
    """A receiver that is back gets the page within this (fault suite, receiver-outage: 24 s
    after a 2-minute outage with 60 s); a retry every 15 s costs a pager nothing."""
    jitter: float = 0.2
    retry_after_max_s: float = 600.0
    give_up_after_s: float = 86400.0
    max_alerts: int = 50
    """At most this many alerts in one payload (0: all); the rest are counted as truncated."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", url_secret(self.url, "url"))
        object.__setattr__(
            self, "urls", [url_secret(u, f"urls[{i}]") for i, u in enumerate(self.urls)]
        )

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", self.name):
            problems.append(ConfigProblem(f"{path}.name", "1 to 64 letters, digits, _ . -"))
        problems.extend(_check_url_value(self.url, f"{path}.url", required=True))
        for i, url in enumerate(self.urls):
            problems.extend(_check_url_value(url, f"{path}.urls[{i}]", required=True))
        if self.urls and self.format != "alertmanager_api":
            problems.append(ConfigProblem(f"{path}.urls", "only for format alertmanager_api"))
        if self.format == "pagerduty" and self.routing_key is None:
            problems.append(ConfigProblem(f"{path}.routing_key", "required by format pagerduty"))
        for name in ("bearer_token", "hmac_secret", "routing_key"):
            secret = getattr(self, name)
            if secret is not None:
                problems.extend(secret.check(f"{path}.{name}"))
        problems.extend(_check_matchers(self.matchers, f"{path}.matchers"))
        for name in ("timeout_s", "backoff_initial_s", "give_up_after_s", "resend_s"):
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        if self.backoff_max_s < self.backoff_initial_s:
            problems.append(
                ConfigProblem(f"{path}.backoff_max_s", "must be at least backoff_initial_s")
            )
        if not 0 <= self.jitter <= 1:
            problems.append(ConfigProblem(f"{path}.jitter", "must be 0 to 1"))
        if self.retry_after_max_s < 0 or self.max_alerts < 0:
            name = "retry_after_max_s" if self.retry_after_max_s < 0 else "max_alerts"
            problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        return problems


@dataclass(frozen=True)
class SilenceConfig:
    """A silence written in the config: alerts matching every matcher are not notified."""

    matchers: list[str] = field(default_factory=list)
    starts_at: str = ""
    """ISO 8601 time, quoted in YAML (empty: already started)."""
    ends_at: str = ""
    comment: str = ""
    created_by: str = "config"

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not self.matchers:
            problems.append(ConfigProblem(f"{path}.matchers", "list at least one matcher"))
        problems.extend(_check_matchers(self.matchers, f"{path}.matchers"))
        for name in ("starts_at", "ends_at"):
            value = getattr(self, name)
            if not value and name == "starts_at":
                continue
            try:
                datetime.fromisoformat(value)
            except ValueError:
                problems.append(
                    ConfigProblem(f"{path}.{name}", f"{value!r} is not an ISO 8601 time")
                )
        return problems


@dataclass(frozen=True)
class ExporterConfig:
    """The Prometheus /metrics endpoint of the job's driver, and an optional Pushgateway."""

    host: str = "127.0.0.1"
    port: int | None = 9308
    """0 picks a free port, null turns the endpoint off."""
    max_series_per_signal: int = 2000
    pushgateway_url: str | Secret = field(default="", metadata=URL_FIELD)
    """An http(s) URL without user info, or a secret holding one (empty: no push)."""
    push_interval_s: float = 15.0
    push_job: str = "kafka-health"

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "pushgateway_url", url_secret(self.pushgateway_url, "pushgateway_url")
        )

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.port is not None and not 0 <= self.port <= 65535:
            problems.append(ConfigProblem(f"{path}.port", "must be 0 to 65535 or null"))
        if self.max_series_per_signal < 1:
            problems.append(ConfigProblem(f"{path}.max_series_per_signal", "must be at least 1"))
        problems.extend(
            _check_url_value(self.pushgateway_url, f"{path}.pushgateway_url", required=False)
        )
        if self.push_interval_s <= 0:
            problems.append(ConfigProblem(f"{path}.push_interval_s", "must be positive"))
        return problems


@dataclass(frozen=True)
class AlertingConfig:
    """The alert service on the job's driver: rules, lifecycle timing, receivers, silences.

    Grouping: alerts with the same ``group_by`` labels (one broker) make one notification,
    sent ``group_wait_s`` after the group's first alert, updates at most every
    ``group_interval_s``, and a reminder every ``repeat_interval_s`` while still firing.
    """

    enabled: bool = True
    rules_file: str = "conf/alerts.yaml"
    state_dir: str = "var/alerting"
    tick_s: float = 0.5
    """How often rules are evaluated between pushes. A condition that holds once time passes
    (a broker silent for more than 5 s) is seen up to one tick late: 1 s put a hung broker's
    page at 7.1 s in 1 of 3 runs (target 7 s); a tick costs about 0.25 ms of CPU. The job
    publishes its signals on the same tick."""
    signal_ttl_s: float = 60.0
    """A series given by ``submit`` (partial updates) and not reported again for this long is
    gone. The job publishes full snapshots: its series go at once, and a stale source's values
    are left out of them by the job (``signal_stale``)."""
    group_by: list[str] = field(default_factory=lambda: ["broker_id", "group"])
    group_wait_s: float = 1.0
    """The first page's wait when a cause could still explain its alerts: a cause seen within
    it is on the first page; one seen later updates the same incident at once."""
    root_group_wait_s: float = 0.5
    """The first page's wait when all its alerts are root causes (no inhibit rule targets
    them): no cause can come later."""
    group_interval_s: float = 10.0
    repeat_interval_s: float = 14400.0
    resolved_retention_s: float = 86400.0
    maintenance_window_s: float = 900.0
    """How long a broker that logged a controlled shutdown is in maintenance."""
    maintenance_wait_s: float = 3.0
    """At most this long after its condition began, an alert a maintenance could mute waits
    for the job to read the broker logs up to its fault (``maintenance_lookback_s``)."""
    restart_budget_s: float = 120.0
    """How long a broker whose port refused while the metadata showed a controlled shutdown
    (``broker_shutdown_evidence``) is in maintenance, unless it answers again first: a
    restart's time, not the log window's (a crash through the shutdown hooks looks planned)."""
    external_url: str = field(default="", metadata=URL_FIELD)
    receivers: list[ReceiverConfig] = field(default_factory=list)
    silences: list[SilenceConfig] = field(default_factory=list)
    exporter: ExporterConfig = field(default_factory=ExporterConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        positive = ("tick_s", "signal_ttl_s", "group_interval_s", "repeat_interval_s")
        for name in positive:
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        for name in (
            "group_wait_s",
            "root_group_wait_s",
            "resolved_retention_s",
            "maintenance_window_s",
            "maintenance_wait_s",
            "restart_budget_s",
        ):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        for name in ("rules_file", "state_dir"):
            if not getattr(self, name).strip():
                problems.append(ConfigProblem(f"{path}.{name}", "is required"))
        names = [r.name for r in self.receivers]
        for i, name in enumerate(names):
            if name and names.index(name) != i:
                problems.append(ConfigProblem(f"{path}.receivers[{i}].name", f"{name!r} repeated"))
        for i, label in enumerate(self.group_by):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", label):
                problems.append(ConfigProblem(f"{path}.group_by[{i}]", "not a label name"))
        return problems
