"""Inhibition: a firing cause mutes the symptoms it explains (Alertmanager's inhibit rules,
with a time window, as a cause is often seen in one log and its symptoms in others)."""

from __future__ import annotations

from collections.abc import Iterable

from kafka_health.alerting.causes import hosted_by, only_listed_values
from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.rule_config import InhibitRuleConfig, matcher
from kafka_health.alerting.silence import matches_all


def _source_windows(
    source: Alert, rule: InhibitRuleConfig, now: float
) -> list[tuple[float, float]]:
    """When targets may start to be explained by the source: around each of its fired
    episodes, the earlier ones included (a broker that fails again still explains the
    symptoms its previous failure began, which may outlast that failure's window)."""
    episodes = list(source.earlier)
    if source.state != AlertState.PENDING:
        last_active = now if source.state == AlertState.FIRING else (source.ends_at or now)
        episodes.append((source.starts_at, last_active))
    return [(start - rule.lead_s, end + rule.window_s) for start, end in episodes]


def _explains(source: Alert, target: Alert, rule: InhibitRuleConfig, now: float) -> bool:
    if not target.active:
        return False
    if not matches_all([matcher(m) for m in rule.source_matchers], source.labels):
        return False
    if not matches_all([matcher(m) for m in rule.target_matchers], target.labels):
        return False
    if any(source.labels.get(k, "") != target.labels.get(k, "") for k in rule.equal):
        return False
    if any(source.labels.get(k, "") == target.labels.get(k, "") for k in rule.distinct):
        return False
    if not any(low <= target.starts_at <= high for low, high in _source_windows(source, rule, now)):
        return False
    if not only_listed_values(target, rule.target_only):
        return False
    return hosted_by(target, {source.broker_id} if source.broker_id else set(), rule.hosted)


def inhibitions(
    alerts: Iterable[Alert], rules: list[InhibitRuleConfig], now: float
) -> dict[str, tuple[str, InhibitRuleConfig]]:
    """For each inhibited alert: the earliest-starting source that explains it, and the rule."""
    by_rule: dict[str, list[Alert]] = {}
    for alert in alerts:
        by_rule.setdefault(alert.rule, []).append(alert)
    found: dict[str, tuple[Alert, InhibitRuleConfig]] = {}
    for rule in rules:
        sources = sorted(by_rule.get(rule.source, []), key=lambda a: a.starts_at)
        for target in (a for name in rule.targets for a in by_rule.get(name, [])):
            source = next((s for s in sources if _explains(s, target, rule, now)), None)
            if source is None:
                continue
            known = found.get(target.fingerprint)
            if known is None or source.starts_at < known[0].starts_at:
                found[target.fingerprint] = (source, rule)
    return {fp: (source.fingerprint, rule) for fp, (source, rule) in found.items()}
