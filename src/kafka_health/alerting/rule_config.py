"""The alert rules file (``conf/alerts.yaml``): typed, validated, every problem with its key.

A rule fires for each set of identifying labels (``by``) for which any of its conditions holds.
A condition reads one signal of :data:`kafka_health.model.SIGNALS`, keeps the series whose
labels equal ``match``, combines the series that share the identifying labels (``aggregate``)
and compares the result with ``threshold``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from kafka_health.alerting.config import Severity
from kafka_health.alerting.silence import Matcher, parse_matcher
from kafka_health.configuration.engine import parse_section
from kafka_health.errors import ConfigError, ConfigProblem
from kafka_health.model import SIGNALS, Unit

Op = Literal[">", ">=", "<", "<=", "==", "!="]
Aggregate = Literal["max", "min", "sum", "avg"]
Transform = Literal["value", "age", "remaining", "elapsed"]
MaintenanceMode = Literal["page", "own_broker", "any_broker", "hosted"]
HostedMode = Literal["no", "if_known", "required"]
RouteMode = Literal["no", "labels", "labels_and_severity"]

OPS: dict[str, Any] = {
    ">": float.__gt__,
    ">=": float.__ge__,
    "<": float.__lt__,
    "<=": float.__le__,
    "==": float.__eq__,
    "!=": float.__ne__,
}
_NAME = re.compile(r"[A-Z][A-Za-z0-9]{0,99}")
RUNBOOKS = "docs/runbooks.md"
"""The default ``runbook_base_url``: the runbooks' path in the repository."""


def runbook_link(base: str, ref: str) -> str:
    """A rule's ``runbook_url`` resolved against ``base``: ``#anchor`` is that section of the
    base's page; anything else (a whole URL, a link already resolved) stays as written."""
    return base + ref if base and ref.startswith("#") else ref


def _link_problems(value: str, path: str) -> list[ConfigProblem]:
    if any(c.isspace() for c in value) or "{" in value or "}" in value:
        return [ConfigProblem(path, "a link has no spaces or braces")]
    scheme = urllib.parse.urlsplit(value).scheme
    if scheme and scheme not in ("http", "https"):
        return [ConfigProblem(path, f"{scheme}: is not http(s)")]
    return []


@functools.lru_cache(maxsize=1024)
def matcher(text: str) -> Matcher:
    """A parsed matcher (cached: rules are evaluated every tick)."""
    return parse_matcher(text)


def _matcher_problems(
    texts: list[str], path: str, label_names: tuple[str, ...] | None
) -> list[ConfigProblem]:
    problems = []
    for i, text in enumerate(texts):
        try:
            m = matcher(text)
        except ValueError as exc:
            problems.append(ConfigProblem(f"{path}[{i}]", str(exc)))
            continue
        if label_names is not None and m.name not in label_names:
            problems.append(ConfigProblem(f"{path}[{i}]", f"the signal has no label {m.name!r}"))
    return problems


@dataclass(frozen=True)
class ConditionConfig:
    """``aggregate(signal{matchers}) by (rule.by)`` compared with ``threshold``.

    ``matchers`` select series by label as in Alertmanager (``quantile="0.99"``,
    ``broker_id!=""``: only per-broker series; an absent label is ``""``).

    ``transform``: ``value`` as reported; ``age``: now minus the value (timestamp signals);
    ``remaining``: the value minus now (timestamps ahead: the time left until a certificate
    expires);
    ``elapsed``: the value plus the time since it was reported (``*_age_seconds`` signals keep
    growing when nothing new arrives). ``range_s`` > 0 combines the values of the last
    ``range_s`` seconds of event time (one per window end) with ``range_func``; ``sum``
    divides by ``window_overlap`` (the job's window / slide), so sliding windows count each
    event once.
    """

    signal: str = ""
    matchers: list[str] = field(default_factory=list)
    aggregate: Aggregate = "max"
    transform: Transform = "value"
    range_s: float = 0.0
    range_func: Aggregate = "max"
    window_overlap: float = 1.0
    op: Op = ">"
    threshold: float = 0.0
    also: list[ConditionConfig] = field(default_factory=list)
    """Conditions that must hold too, for the same ``by`` labels (Prometheus: ``and on``):
    CanaryWriteFailure's availability counts only with two failed probes at least, so that
    one failure of the few sends a fresh window holds is not a page."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = [
            problem
            for i, extra in enumerate(self.also)
            for problem in extra.check(f"{path}.also[{i}]")
        ]
        spec = SIGNALS.get(self.signal)
        if spec is None:
            problems.append(
                ConfigProblem(f"{path}.signal", f"{self.signal!r} is not a known signal")
            )
            return problems
        problems += _matcher_problems(self.matchers, f"{path}.matchers", spec.labels)
        if self.transform in ("age", "remaining") and spec.unit != Unit.TIMESTAMP:
            problems.append(
                ConfigProblem(f"{path}.transform", f"{self.transform} needs a timestamp signal")
            )
        if self.transform == "elapsed" and spec.unit != Unit.SECONDS:
            problems.append(ConfigProblem(f"{path}.transform", "elapsed needs a seconds signal"))
        if self.range_s < 0:
            problems.append(ConfigProblem(f"{path}.range_s", "must not be negative"))
        if self.window_overlap < 1:
            problems.append(ConfigProblem(f"{path}.window_overlap", "must be at least 1"))
        return problems


def _with_also(cond: ConditionConfig, path: str) -> list[tuple[str, ConditionConfig]]:
    """``cond`` and its ``also`` conditions, nested ones too, each with its config path."""
    found = [(path, cond)]
    for i, extra in enumerate(cond.also):
        found += _with_also(extra, f"{path}.also[{i}]")
    return found


@dataclass(frozen=True)
class RuleConfig:
    """One alert rule; ``maintenance`` says which alerts of a broker in maintenance are muted:
    ``page`` none, ``own_broker`` its own, ``any_broker`` all while any broker is in
    maintenance, ``hosted`` those whose partitions (in the details) all have a replica on it."""

    enabled: bool = True
    severity: Severity = "warning"
    any_of: list[ConditionConfig] = field(default_factory=list)
    by: list[str] = field(default_factory=lambda: ["broker_id"])
    for_s: float = 0.0
    keep_firing_for_s: float = 0.0
    maintenance: MaintenanceMode = "page"
    maintenance_only: dict[str, list[str]] = field(default_factory=dict)
    """Maintenance mutes the alert only if each value of these labels among its triggering
    series is listed (acks: ["1"]: acks=1 writes lost while their leader is restarted are
    what acks=1 means; lost acks=all writes page even then)."""
    maintenance_lookback_s: float = 0.0
    """How long before its condition holds its fault can begin (BrokerNotAnswering: its
    threshold less a ping interval). Until the job has read the broker logs up to then (at most
    ``alerting.maintenance_wait_s``), a controlled shutdown that would mute it may still be on
    its way, and the alert waits. 0 (the default): it does not wait."""
    maintenance_lookback_only: dict[str, list[str]] = field(default_factory=dict)
    """The wait applies only if each value of these labels among its triggering series is
    listed (BrokerNotAnswering: reason [refused]: a controlled shutdown closes the port, it
    never leaves a ping unanswered, so a timeout has no shutdown line to wait for)."""
    context: list[str] = field(default_factory=list)
    """Signals whose non-zero series with the same identifying labels add their details and
    label values to the alert (e.g. the error classes of canary failures)."""
    labels: dict[str, str] = field(default_factory=dict)
    route_from_details: RouteMode = "no"
    """``labels``: the alert also carries the labels of its series' ``route`` detail (a
    consumer group's owners, e.g. ``team``, so a receiver routes the page to them);
    ``labels_and_severity``: and the severity it names (the group's objective's)."""
    summary: str = ""
    candidates: str = ""
    """What may cause it, shown on the first page before a cause is known (a template)."""
    description: str = ""
    runbook: str = ""
    runbook_url: str = ""
    """The rule's runbook section, ``#<rule name in lower case>`` of ``runbook_base_url``
    (resolved when the file is read: the annotation carries the whole link)."""

    def conditions(self) -> list[ConditionConfig]:
        """Every condition the rule reads: ``any_of`` and, within them, their ``also``."""
        return [c for cond in self.any_of for _, c in _with_also(cond, "")]

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not self.any_of:
            problems.append(ConfigProblem(f"{path}.any_of", "list at least one condition"))
        for i, cond in enumerate(self.any_of):
            for where, c in _with_also(cond, f"{path}.any_of[{i}]"):
                spec = SIGNALS.get(c.signal)
                for label in self.by:
                    if spec is not None and label not in spec.labels:
                        problems.append(
                            ConfigProblem(f"{where}.signal", f"{c.signal} has no label {label!r}")
                        )
        for i, name in enumerate(self.context):
            spec = SIGNALS.get(name)
            if spec is None:
                problems.append(ConfigProblem(f"{path}.context[{i}]", f"{name!r} is not a signal"))
            elif not set(self.by) <= set(spec.labels):
                problems.append(
                    ConfigProblem(f"{path}.context[{i}]", f"{name} lacks a label of {self.by}")
                )
        for name in ("for_s", "keep_firing_for_s", "maintenance_lookback_s"):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        if self.maintenance == "own_broker" and "broker_id" not in self.by:
            problems.append(ConfigProblem(f"{path}.maintenance", "own_broker needs by: broker_id"))
        if self.maintenance_only and self.maintenance == "page":
            problems.append(
                ConfigProblem(f"{path}.maintenance_only", "needs a maintenance other than page")
            )
        for key in ("maintenance_only", "maintenance_lookback_only"):
            for label, values in getattr(self, key).items():
                if not values:
                    problems.append(
                        ConfigProblem(f"{path}.{key}.{label}", "list at least one value")
                    )
        if self.maintenance_lookback_only and self.maintenance_lookback_s <= 0:
            problems.append(
                ConfigProblem(f"{path}.maintenance_lookback_only", "needs maintenance_lookback_s")
            )
        for key in self.labels:
            if key in ("alertname", "severity") or key in self.by:
                problems.append(ConfigProblem(f"{path}.labels.{key}", "is set by the rule"))
        if not self.summary.strip():
            problems.append(ConfigProblem(f"{path}.summary", "is required"))
        problems += _link_problems(self.runbook_url, f"{path}.runbook_url")
        return problems


@dataclass(frozen=True)
class InhibitRuleConfig:
    """A firing ``source`` alert explains (and mutes) ``targets`` alerts that start within
    ``window_s`` after it (or ``lead_s`` before it: logs arrive out of order), share the
    ``equal`` labels and differ in the ``distinct`` ones; the source's page names them.
    ``target_only``: the target's triggering series (and context) must have the label, each
    value listed (only NotEnoughReplicas...).
    ``hosted``: the target's partitions (details) must have a replica on the source's broker.
    ``source_matchers`` / ``target_matchers`` narrow either side by label."""

    name: str = ""
    source: str = ""
    targets: list[str] = field(default_factory=list)
    source_matchers: list[str] = field(default_factory=list)
    target_matchers: list[str] = field(default_factory=list)
    equal: list[str] = field(default_factory=list)
    distinct: list[str] = field(default_factory=list)
    """Labels the source and the target must NOT share (the failed broker's own symptoms are
    its own page, not something it explains on others)."""
    window_s: float = 600.0
    lead_s: float = 60.0
    target_only: dict[str, list[str]] = field(default_factory=dict)
    hosted: HostedMode = "no"
    cause: str = ""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not self.name.strip():
            problems.append(ConfigProblem(f"{path}.name", "is required"))
        if not self.targets:
            problems.append(ConfigProblem(f"{path}.targets", "list at least one rule"))
        problems += _matcher_problems(self.source_matchers, f"{path}.source_matchers", None)
        problems += _matcher_problems(self.target_matchers, f"{path}.target_matchers", None)
        if self.window_s < 0 or self.lead_s < 0:
            problems.append(ConfigProblem(f"{path}.window_s", "windows must not be negative"))
        return problems


@dataclass(frozen=True)
class AlertRulesConfig:
    """The whole rules file."""

    rules: dict[str, RuleConfig] = field(default_factory=dict)
    inhibit_rules: list[InhibitRuleConfig] = field(default_factory=list)
    runbook_base_url: str = RUNBOOKS
    """Where docs/runbooks.md is read (a web page of it, e.g. the repository's
    ``https://<git host>/<repo>/blob/main/docs/runbooks.md``): each rule's ``runbook_url``
    (``#anchor``) is joined to it. The default is the path in the repository."""

    def __post_init__(self) -> None:
        base = self.runbook_base_url
        resolved = {
            name: dataclasses.replace(rule, runbook_url=runbook_link(base, rule.runbook_url))
            for name, rule in self.rules.items()
        }
        object.__setattr__(self, "rules", resolved)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = _link_problems(self.runbook_base_url, "runbook_base_url")
        if "#" in self.runbook_base_url:
            problems.append(ConfigProblem("runbook_base_url", "the page, without a #anchor"))
        for name in self.rules:
            if not _NAME.fullmatch(name):
                problems.append(
                    ConfigProblem(f"rules.{name}", "a rule name is CamelCase letters and digits")
                )
        for i, inhibit in enumerate(self.inhibit_rules):
            for key, names in (("source", [inhibit.source]), ("targets", inhibit.targets)):
                for name in names:
                    if name not in self.rules:
                        problems.append(
                            ConfigProblem(f"inhibit_rules[{i}].{key}", f"no rule named {name!r}")
                        )
        return problems

    def enabled(self) -> dict[str, RuleConfig]:
        return {name: rule for name, rule in self.rules.items() if rule.enabled}


def parse_rules(text: str, source: str = "<rules>") -> AlertRulesConfig:
    """Validate YAML text of a rules file; raise ``ConfigError`` listing every problem."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError([ConfigProblem(source, f"not valid YAML: {exc}")]) from exc
    return parse_section(AlertRulesConfig, raw if raw is not None else {})


def load_rules(path: str | Path) -> AlertRulesConfig:
    """Read and validate a rules file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            [ConfigProblem("alerting.rules_file", f"cannot read {path}: {exc.strerror}")]
        ) from exc
    return parse_rules(text, str(path))
