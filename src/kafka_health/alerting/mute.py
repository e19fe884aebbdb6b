"""The muting stages, in Alertmanager's order: inhibit (a firing cause explains its
symptoms), time mute (a broker in maintenance), silence (an operator's matchers). Each adds
its reason to the alert's ``muted_by``; a muted alert stays firing, it is only not notified
on its own. Inhibition also names the cause: the annotations that turn a symptom's page into
an update of its cause's incident.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kafka_health.alerting.causes import name_causes, root_of
from kafka_health.alerting.engine import Alert
from kafka_health.alerting.inhibit import inhibitions
from kafka_health.alerting.maintenance import Maintenance
from kafka_health.alerting.rule_config import InhibitRuleConfig, RuleConfig
from kafka_health.alerting.silence import SilenceStore


@dataclass
class Muted:
    """What one evaluation's muting found."""

    extra: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per fingerprint, the annotations naming its cause."""
    roots: dict[str, str] = field(default_factory=dict)
    """Per inhibited fingerprint, the root cause's fingerprint (through chains)."""

    def explained(self, alert: Alert | None) -> bool:
        """Whether the alert is muted only by a cause (not a silence or maintenance) that is
        named."""
        return (
            alert is not None
            and alert.fingerprint in self.roots
            and bool(self.extra.get(alert.fingerprint, {}).get("cause"))
            and bool(alert.muted_by)
            and all(m.startswith("inhibited by ") for m in alert.muted_by)
        )


class MuteStage:
    """Inhibit, time mute, silence: one pass over the current alerts."""

    def __init__(
        self,
        rules: Mapping[str, RuleConfig],
        inhibit_rules: list[InhibitRuleConfig],
        maintenance: Maintenance,
        silences: SilenceStore,
    ) -> None:
        self.rules = rules
        self.inhibit_rules = inhibit_rules
        self.maintenance = maintenance
        self.silences = silences

    def apply(self, alerts: Mapping[str, Alert], now: float) -> Muted:
        inhibited = inhibitions(alerts.values(), self.inhibit_rules, now)
        explained = {t: s for t, (s, _) in inhibited.items()}
        causes = {t: rule.cause for t, (_, rule) in inhibited.items() if rule.cause}
        muted = Muted(
            name_causes(alerts, explained, causes), {t: root_of(t, explained) for t in explained}
        )
        for alert in alerts.values():
            alert.muted_by = []
            if alert.fingerprint in inhibited:
                source_fp, rule = inhibited[alert.fingerprint]
                alert.muted_by.append(f"inhibited by {alerts[source_fp].rule} ({rule.name})")
            reason = self.maintenance.mutes(alert, self.rules[alert.rule], now)
            if reason:
                alert.muted_by.append(reason)
            alert.muted_by.extend(
                f"silenced by {sid}" for sid in self.silences.muting(alert.labels, now)
            )
        return muted
