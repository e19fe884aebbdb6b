"""The dedup stage (Alertmanager's ``DedupStage``): one group's alerts against what its
receiver was last told (:mod:`kafka_health.alerting.notify_log`) -> what to notify, and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.mute import Muted
from kafka_health.alerting.notify_log import Entry, NotifiedAlert, NotifyReason, needs_update


@dataclass
class GroupNews:
    """What changed in one group since its receiver was last told."""

    reason: NotifyReason | None
    firing: dict[str, Alert] = field(default_factory=dict)
    """Firing and not muted: each notified as it is."""
    kept: dict[str, NotifiedAlert] = field(default_factory=dict)
    """Told before, still firing, now muted: stay in the incident as told."""
    resolved: dict[str, NotifiedAlert] = field(default_factory=dict)
    """Told before, no longer firing (or a new instance): their resolution is owed."""
    causes: dict[str, str] = field(default_factory=dict)
    """Told alerts a cause now explains (fingerprint -> root): the incident names it."""


def group_news(
    entry: Entry | None,
    members: list[Alert],
    alerts: Mapping[str, Alert],
    mutes: Muted,
    repeat_interval_s: float,
    now: float,
) -> GroupNews:
    """Compare the group's ``members`` (and every alert ``entry`` told of) with ``entry``."""
    news = GroupNews(None)
    news.firing = {
        a.fingerprint: a for a in members if a.state == AlertState.FIRING and not a.muted_by
    }
    muted = {a.fingerprint for a in members if a.state == AlertState.FIRING and a.muted_by}
    for fp, told in (entry.firing if entry else {}).items():
        current = alerts.get(fp)
        same = current is not None and current.starts_at == told.starts_at
        if same and current is not None and current.state == AlertState.FIRING:
            if fp in muted:
                news.kept[fp] = told
        else:
            news.resolved[fp] = told
    news.causes = {fp: mutes.roots[fp] for fp in news.kept if mutes.explained(alerts.get(fp))}
    news.reason = needs_update(
        entry,
        {fp: a.starts_at for fp, a in news.firing.items()},
        set(news.resolved),
        repeat_interval_s,
        now,
        news.causes,
    )
    return news
