"""The alerting config section and the rules file: every problem named by key path."""

from __future__ import annotations

import pytest

from kafka_health.alerting.rule_config import parse_rules
from kafka_health.config import parse_config
from kafka_health.errors import ConfigError


def problems(text: str, rules: bool = False) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_rules(text) if rules else parse_config(text)
    return [str(p) for p in caught.value.problems]


R = "alerting:\n  receivers:\n  - "  # a receiver's YAML follows, one flow mapping
X = "rules:\n  X:\n    summary: s\n"  # rule X's other keys follow
GC = "    any_of: [{signal: full_gc_count}]\n"

# (case, YAML, expected problem, why)
CONFIG = [
    ("inline secret", R + "{name: p, url: 'http://x/', bearer_token: abc}\n",
     "alerting.receivers[0].bearer_token: secrets are never inline", "tokens from env/file"),
    ("bad url", R + "{name: p, url: 'ftp://x'}\n",
     "alerting.receivers[0].url: is not an http(s) URL", "webhooks are HTTP"),
    ("user info", R + "{name: p, url: 'https://u:pw@x/'}\n",
     "alerting.receivers[0].url: carries user info", "credentials are not in URLs"),
    ("bad port", R + "{name: p, url: 'https://x:70000/'}\n",
     "alerting.receivers[0].url: has an invalid port", "ports are 1 to 65535"),
    ("pushgateway user info", "alerting:\n  exporter: {pushgateway_url: 'http://u:pw@x/'}\n",
     "alerting.exporter.pushgateway_url: carries user info", "the Pushgateway too"),
    ("pagerduty key", R + "{name: p, url: 'http://x/', format: pagerduty}\n",
     "alerting.receivers[0].routing_key: required by format pagerduty", "PD needs its key"),
    ("bad matcher", R + "{name: p, url: 'http://x/', matchers: [broker]}\n",
     "alerting.receivers[0].matchers[0]: 'broker' is not a matcher", "matchers are parsed"),
    ("bad severity", R + "{name: p, url: 'http://x/', severities: [page]}\n",
     "alerting.receivers[0].severities[0]: 'page' is not one of", "a fixed set"),
    ("repeated receiver", R + "{name: p, url: 'http://x/'}\n  - {name: p, url: 'http://y/'}\n",
     "alerting.receivers[1].name: 'p' repeated", "unique"),
    ("silence time", "alerting:\n  silences:\n  - {matchers: [broker_id=1], ends_at: tomorrow}\n",
     "alerting.silences[0].ends_at: 'tomorrow' is not an ISO 8601 time", "times are ISO 8601"),
    ("port", "alerting:\n  exporter: {port: 70000}\n",
     "alerting.exporter.port: must be 0 to 65535", "ports"),
    ("tick", "alerting:\n  tick_s: 0\n", "alerting.tick_s: must be positive", "the tick runs"),
]  # fmt: skip

RULES = [
    ("unknown signal", X + "    any_of: [{signal: gc_count}]\n",
     "rules.X.any_of[0].signal: 'gc_count' is not a known signal", "the catalogue is the contract"),
    ("unknown label", X + "    by: [topic]\n" + GC,
     "rules.X.any_of[0].signal: full_gc_count has no label 'topic'", "labels from the catalogue"),
    ("matcher label", X + "    any_of: [{signal: full_gc_count, matchers: ['kind=gc']}]\n",
     "rules.X.any_of[0].matchers[0]: the signal has no label 'kind'", "matchers too"),
    ("no condition", X, "rules.X.any_of: list at least one condition", "a rule needs a condition"),
    ("bad op", X + "    any_of: [{signal: full_gc_count, op: '=>'}]\n",
     "rules.X.any_of[0].op: '=>' is not one of", "operators are a fixed set"),
    ("negative for", X + "    for_s: -1\n" + GC, "rules.X.for_s: must not be negative", "times"),
    ("unknown signal in also", X + "    any_of: [{signal: full_gc_count, also: [{signal: gc}]}]\n",
     "rules.X.any_of[0].also[0].signal: 'gc' is not a known signal", "also is checked too"),
    ("label in also", X + "    by: [broker_id]\n"
     "    any_of: [{signal: full_gc_count, also: [{signal: signal_stale}]}]\n",
     "rules.X.any_of[0].also[0].signal: signal_stale has no label 'broker_id'", "and its labels"),
    ("age of a count", X + "    any_of: [{signal: full_gc_count, transform: age}]\n",
     "rules.X.any_of[0].transform: age needs a timestamp signal", "age is for timestamps"),
    ("no summary", "rules:\n  X:\n" + GC, "rules.X.summary: is required", "a page says what"),
    ("rule name", "rules:\n  full_gc:\n    summary: s\n" + GC,
     "rules.full_gc: a rule name is CamelCase", "names are alert names"),
    ("inhibit ref", "inhibit_rules:\n  - {name: i, source: Nope, targets: [FullGC]}\n",
     "inhibit_rules[0].source: no rule named 'Nope'", "references are checked"),
    ("lookback only without a lookback", X + "    maintenance: any_broker\n"
     "    maintenance_lookback_only: {reason: [refused]}\n" + GC,
     "rules.X.maintenance_lookback_only: needs maintenance_lookback_s", "it narrows the wait"),
    ("empty lookback only", X + "    maintenance: any_broker\n    maintenance_lookback_s: 1\n"
     "    maintenance_lookback_only: {kind: []}\n" + GC,
     "rules.X.maintenance_lookback_only.kind: list at least one value", "a listed value"),
    ("typo", X + "    for: 10\n" + GC,
     "rules.X.for: unknown key (did you mean 'for_s'?)", "typos are not ignored"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "expected", "why"), CONFIG, ids=[c[0] for c in CONFIG])
def test_alerting_config_problem(case: str, text: str, expected: str, why: str) -> None:
    assert any(p.startswith(expected) for p in problems(text)), (why, problems(text))


@pytest.mark.parametrize(("case", "text", "expected", "why"), RULES, ids=[c[0] for c in RULES])
def test_rules_file_problem(case: str, text: str, expected: str, why: str) -> None:
    found = problems(text, rules=True)
    assert any(p.startswith(expected) for p in found), (why, found)


def test_receiver_with_secrets_from_env_and_file() -> None:
    config = parse_config(
        "alerting:\n  receivers:\n  - name: pager\n    url: https://events.pagerduty.com/v2/enqueue\n"
        "    format: pagerduty\n    routing_key: {env: PD_KEY}\n    hmac_secret: {file: /s}\n"
        "    severities: [critical]\n"
    )
    [receiver] = config.alerting.receivers
    assert receiver.format == "pagerduty" and receiver.severities == ["critical"]
