"""Signals + now -> alerts: pending, firing, resolved, one per fingerprint (rule + labels).

The engine owns the lifecycle (Prometheus's ``for`` and ``keep_firing_for``) and nothing else:
muting, grouping and sending happen downstream. ``keep_firing_for`` is hysteresis on both
sides: a firing alert stays firing through gaps shorter than it, and a pending alert keeps its
start through such gaps, so a signal flapping on and off pages once and resolves once.

Alerts are capped per rule (``max_alerts_per_rule``, :data:`MAX_ALERTS_PER_RULE`): while a
rule holds that many active alerts, a label set it matches anew gets none, and each such
match is counted (:meth:`Engine.dropped`, exported as
``kafka_health_alerts_dropped_total{rule}``, once per evaluation that refuses it). The alerts
already active go on; a place frees when one resolves. Series are capped before this, where
they enter the store (:mod:`.store`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kafka_health.alerting.rule_config import (
    OPS,
    AlertRulesConfig,
    ConditionConfig,
    RuleConfig,
    matcher,
)
from kafka_health.alerting.silence import matches_all
from kafka_health.alerting.store import Series, SignalStore
from kafka_health.model import SIGNAL_SOURCE, Signal

MAX_DETAIL_ITEMS = 50
MAX_ALERTS_PER_RULE = 1000
"""Active alerts a rule may hold (a fault of 200 brokers' four log kinds is 800)."""
log = logging.getLogger(__name__)


class AlertState(StrEnum):
    PENDING = "pending"
    FIRING = "firing"
    RESOLVED = "resolved"


def fingerprint(rule: str, identifying: Mapping[str, str]) -> str:
    """A stable 16-hex-digit hash of the rule name and identifying labels."""
    text = json.dumps([rule, sorted(identifying.items())], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Alert:
    """One alert instance. ``starts_at`` is when its condition began to hold (as Prometheus's
    activeAt); ``fired_at`` when it became firing; ``ends_at`` when it resolved."""

    rule: str
    fingerprint: str
    labels: dict[str, str]
    state: AlertState
    starts_at: float
    last_true_at: float
    value: float = 0.0
    fired_at: float | None = None
    ends_at: float | None = None
    annotations: dict[str, str] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    label_values: dict[str, list[str]] = field(default_factory=dict)
    """Values of the non-identifying labels among the series that triggered it."""
    earlier: list[tuple[float, float]] = field(default_factory=list)
    """(starts_at, ends_at) of this fingerprint's recent fired episodes before this one: a
    cause that fires again still explains the symptoms that began in its earlier episode."""
    muted_by: list[str] = field(default_factory=list)
    """Why it is not notified now (silence, inhibition, maintenance); computed each tick."""

    @property
    def active(self) -> bool:
        return self.state != AlertState.RESOLVED

    @property
    def broker_id(self) -> str:
        return self.labels.get("broker_id", "")

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "muted_by"}
        data["state"] = self.state.value
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Alert:
        known = {f.name for f in dataclasses.fields(Alert)} - {"muted_by"}
        fields = {k: v for k, v in data.items() if k in known}
        fields["state"] = AlertState(fields["state"])
        fields["earlier"] = [(float(s), float(e)) for s, e in fields.get("earlier", [])]
        return Alert(**fields)


@dataclass(frozen=True)
class Match:
    """One identifying label set for which a rule's condition holds now."""

    identifying: dict[str, str]
    value: float
    threshold: float
    series: list[Series]


ROUTE_SEVERITIES = ("info", "warning", "critical")


def _route(series: list[Series], identifying: set[str], with_severity: bool) -> dict[str, str]:
    """The labels (and severity) a series' ``route`` detail asks for (the first that has one):
    never ``alertname`` or an identifying label, a severity only of :data:`ROUTE_SEVERITIES`."""
    for one in series:
        route = one.signal.details.get("route")
        if not isinstance(route, dict):
            continue
        labels = {
            str(k): str(v)
            for k, v in (route.get("labels") or {}).items()
            if k not in identifying and k not in ("alertname", "severity")
        }
        if with_severity and route.get("severity") in ROUTE_SEVERITIES:
            labels["severity"] = str(route["severity"])
        return labels
    return {}


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


def render(template: str, values: Mapping[str, Any]) -> str:
    """``str.format`` with missing keys empty and bad templates returned as written."""
    try:
        return string.Formatter().vformat(template, (), _Blank(values))
    except (ValueError, IndexError, KeyError, AttributeError, TypeError):
        return template


def _combine(values: list[float], how: str) -> float:
    if how == "sum":
        return sum(values)
    if how == "min":
        return min(values)
    if how == "avg":
        return sum(values) / len(values)
    return max(values)


def range_value(cond: ConditionConfig, history: dict[float, float], now: float) -> float | None:
    """A range condition's value of one series: its recent values combined (None: none)."""
    recent = [v for at, v in history.items() if at >= now - cond.range_s]
    if not recent:
        return None
    combined = _combine(recent, cond.range_func)
    return combined / cond.window_overlap if cond.range_func == "sum" else combined


def series_value(cond: ConditionConfig, series: Series, now: float) -> float | None:
    """The value one series contributes to a condition now (None: nothing in range)."""
    if cond.range_s > 0:
        return range_value(cond, series.history, now)
    value = series.signal.value
    if cond.transform == "age":
        return now - value
    if cond.transform == "remaining":
        return value - now
    if cond.transform == "elapsed":
        return value + max(0.0, now - series.received_at)
    return value


def evaluate_condition(
    cond: ConditionConfig, by: list[str], store: SignalStore, now: float
) -> list[Match]:
    """The identifying label sets for which ``cond`` holds at ``now``."""
    groups: dict[tuple[tuple[str, str], ...], list[tuple[Series, float]]] = {}
    selectors = [matcher(m) for m in cond.matchers]
    candidates = store.series(cond.signal)
    if cond.range_s > 0:  # a series absent from the latest snapshot still has its history
        present = {s.signal.labels for s in candidates}
        candidates += [
            Series(Signal(cond.signal, lbl, 0.0, now), now, values)
            for lbl, values in store.history(cond.signal)
            if lbl not in present
        ]
    for series in candidates:
        sig = series.signal
        if cond.matchers and not matches_all(selectors, dict(sig.labels)):
            continue
        value = series_value(cond, series, now)
        if value is None:
            continue
        key = tuple((label, sig.label(label)) for label in by)
        groups.setdefault(key, []).append((series, value))
    compare = OPS[cond.op]
    matches = []
    for key, members in groups.items():
        value = _combine([v for _, v in members], cond.aggregate)
        if compare(float(value), float(cond.threshold)):
            triggering = [s for s, v in members if compare(float(v), float(cond.threshold))]
            identifying = {k: v for k, v in key if v != ""}
            matches.append(
                Match(identifying, value, cond.threshold, triggering or [s for s, _ in members])
            )
    for extra in cond.also:  # each must hold for the same labels too
        holding = [m.identifying for m in evaluate_condition(extra, by, store, now)]
        matches = [m for m in matches if m.identifying in holding]
    return matches


def _merge_details(series: list[Series], by: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    details: dict[str, Any] = {}
    label_values: dict[str, set[str]] = {}
    for s in series:
        for key, value in s.signal.details.items():
            if isinstance(value, list):
                merged = details.setdefault(key, [])
                if isinstance(merged, list):
                    merged.extend(v for v in value if v not in merged)
                    del merged[MAX_DETAIL_ITEMS:]
            else:
                details.setdefault(key, value)
        for key, value in s.signal.labels:
            if key not in by:
                label_values.setdefault(key, set()).add(value)
    return details, {k: sorted(v) for k, v in label_values.items()}


def stale_sources(store: SignalStore) -> set[str]:
    """The sources the job reports stale (``signal_stale``): their values are unknown."""
    return {s.signal.label("source") for s in store.series("signal_stale") if s.signal.value > 0}


def rule_sources(rule: RuleConfig) -> set[str]:
    """The sources whose values a rule's conditions read."""
    return {SIGNAL_SOURCE[c.signal] for c in rule.conditions() if c.signal in SIGNAL_SOURCE}


MAX_EARLIER_EPISODES = 5


def _earlier_episodes(
    resolved: Alert | None, now: float, retention_s: float
) -> list[tuple[float, float]]:
    """The fired episodes of a resolved alert (its own and those it kept) that a new episode
    of the same fingerprint keeps: at most MAX_EARLIER_EPISODES, ended within retention_s."""
    if resolved is None or resolved.ends_at is None:
        return []
    episodes = [*resolved.earlier, (resolved.starts_at, resolved.ends_at)]
    return [e for e in episodes if now - e[1] <= retention_s][-MAX_EARLIER_EPISODES:]


class Engine:
    """Evaluates enabled rules against a signal store; holds the alerts by fingerprint."""

    def __init__(
        self,
        rules: AlertRulesConfig,
        resolved_retention_s: float = 86400.0,
        max_alerts_per_rule: int = MAX_ALERTS_PER_RULE,
    ) -> None:
        self.rules = rules.enabled()
        self.resolved_retention_s = resolved_retention_s
        self.max_alerts_per_rule = max_alerts_per_rule
        self.alerts: dict[str, Alert] = {}
        self._adopt: dict[str, float] = {}
        self._dropped: dict[str, int] = {}

    def evaluate(self, store: SignalStore, now: float) -> list[Alert]:
        """Advance every alert to ``now``; return the alerts whose state changed."""
        changed: list[Alert] = []
        seen: set[str] = set()
        active: dict[str, int] = {}
        for alert in self.alerts.values():
            if alert.active:
                active[alert.rule] = active.get(alert.rule, 0) + 1
        for name, rule in self.rules.items():
            refused = 0
            for match in self._matches(rule, store, now):
                fp = fingerprint(name, match.identifying)
                known = self.alerts.get(fp)
                if known is None or not known.active:
                    if active.get(name, 0) >= self.max_alerts_per_rule:
                        refused += 1
                        continue
                    active[name] = active.get(name, 0) + 1
                seen.add(fp)
                if self._on_true(name, rule, fp, match, store, now):
                    changed.append(self.alerts[fp])
            if refused:
                if name not in self._dropped:
                    log.warning(
                        "rule %s holds %d alerts, its cap: %d more label sets match and get "
                        "none (kafka_health_alerts_dropped_total)",
                        name, self.max_alerts_per_rule, refused,
                    )  # fmt: skip
                self._dropped[name] = self._dropped.get(name, 0) + refused
        self._adopt = {}
        blind = stale_sources(store)
        for fp, alert in list(self.alerts.items()):
            if fp in seen:
                continue
            rule_config = self.rules.get(alert.rule)
            if rule_config is None:  # the rule was removed or disabled
                del self.alerts[fp]
                continue
            if alert.state == AlertState.FIRING and blind & rule_sources(rule_config):
                continue  # its values are unknown, not healthy: it holds until they return
            if self._on_false(alert, rule_config, now):
                changed.append(alert)
            expired = alert.ends_at is not None and now - alert.ends_at > self.resolved_retention_s
            if expired and fp in self.alerts:
                del self.alerts[fp]
        return changed

    def _matches(self, rule: RuleConfig, store: SignalStore, now: float) -> list[Match]:
        found: dict[str, Match] = {}
        for cond in rule.any_of:
            for match in evaluate_condition(cond, rule.by, store, now):
                key = json.dumps(sorted(match.identifying.items()))
                found.setdefault(key, match)  # the first condition that holds names the value
        return list(found.values())

    def _on_true(
        self, name: str, rule: RuleConfig, fp: str, match: Match, store: SignalStore, now: float
    ) -> bool:
        alert = self.alerts.get(fp)
        changed = False
        if alert is None or alert.state == AlertState.RESOLVED:
            labels = {"alertname": name, "severity": rule.severity, **match.identifying}
            labels.update(rule.labels)
            if rule.route_from_details != "no":
                with_severity = rule.route_from_details == "labels_and_severity"
                labels.update(_route(match.series, set(match.identifying), with_severity))
            start = self._adopt.get(fp, now) if alert is None else now
            earlier = _earlier_episodes(alert, now, self.resolved_retention_s)
            alert = Alert(
                name, fp, labels, AlertState.PENDING, starts_at=start, last_true_at=now,
                earlier=earlier,
            )  # fmt: skip
            self.alerts[fp] = alert
            changed = True
        alert.last_true_at = now
        alert.value = match.value
        context = [
            series
            for signal in rule.context
            for series in store.series(signal)
            if series.signal.value > 0
            and all(series.signal.label(k) == match.identifying.get(k, "") for k in rule.by)
        ]
        alert.details, alert.label_values = _merge_details([*match.series, *context], rule.by)
        shown = {k: ", ".join(map(str, v)) if isinstance(v, list) else v
                 for k, v in alert.details.items()}  # fmt: skip
        shown.update({k: ", ".join(v) for k, v in alert.label_values.items()})
        values: dict[str, Any] = {
            **shown, **alert.labels, "value": match.value, "threshold": match.threshold,
            "rule": name,
            "where": f"broker {alert.broker_id}" if alert.broker_id else "the cluster",
        }  # fmt: skip
        alert.annotations = {
            key: render(template, values)
            for key, template in (
                ("summary", rule.summary),
                ("candidates", rule.candidates),
                ("description", rule.description),
                ("runbook", rule.runbook),
                ("runbook_url", rule.runbook_url),
            )
            if template
        }
        if alert.state == AlertState.PENDING and now - alert.starts_at >= rule.for_s:
            alert.state = AlertState.FIRING
            alert.fired_at = now
            changed = True
        return changed

    def _on_false(self, alert: Alert, rule: RuleConfig, now: float) -> bool:
        if now - alert.last_true_at < rule.keep_firing_for_s:
            return False
        if alert.state == AlertState.PENDING:
            del self.alerts[alert.fingerprint]
            return True
        if alert.state == AlertState.FIRING:
            alert.state = AlertState.RESOLVED
            alert.ends_at = now
            return True
        return False

    def active(self) -> list[Alert]:
        return [a for a in self.alerts.values() if a.active]

    def dropped(self) -> dict[str, int]:
        """Matches refused by the per-rule cap so far, per rule (counted per evaluation)."""
        return dict(self._dropped)

    def to_json(self) -> list[dict[str, Any]]:
        return [a.to_json() for a in self.alerts.values()]

    def adopt(self, starts: Mapping[str, float]) -> None:
        """Starts of alerts a receiver was told are firing: an alert found firing at the next
        evaluation without saved state (a lost state file) keeps its start, so it is the same
        alert to the notification log and is not paged again."""
        self._adopt = dict(starts)

    def restore(self, data: list[dict[str, Any]]) -> None:
        for item in data:
            try:
                alert = Alert.from_json(item)
            except (KeyError, TypeError, ValueError) as exc:
                log.error("skipping a saved alert that cannot be read (%s): %s", exc, item)
                continue
            if alert.rule in self.rules:
                self.alerts[alert.fingerprint] = alert
