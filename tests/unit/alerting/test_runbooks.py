"""Every rule links to its runbook: conf/alerts.yaml and alerts/kafka-health.rules.yml carry a
``runbook_url`` whose anchor is a section of docs/runbooks.md (headings slugged as GitHub
does), every section is a rule's, and the page a receiver gets carries the link (the real
alert service, a real webhook receiver, the Slack rendering of the same notification)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml
from tests.support.alerting_harness import Harness, shipped_rules, sig

from kafka_health.alerting.rule_config import RUNBOOKS, parse_rules, runbook_link
from kafka_health.alerting.webhook import render
from kafka_health.errors import ConfigError

REPO = Path(__file__).resolve().parents[3]
RUNBOOKS_MD = REPO / "docs" / "runbooks.md"
RULES_FILE = REPO / "conf" / "alerts.yaml"
PROMETHEUS_FILE = REPO / "alerts" / "kafka-health.rules.yml"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def sections() -> dict[str, str]:
    """Anchor -> heading of every heading of docs/runbooks.md (fenced code left out)."""
    text = re.sub(r"```.*?```", "", RUNBOOKS_MD.read_text(), flags=re.S)
    return {slug(h): h for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def rule_sections() -> set[str]:
    """The headings of the runbooks' rule sections (level 3)."""
    text = re.sub(r"```.*?```", "", RUNBOOKS_MD.read_text(), flags=re.S)
    return set(re.findall(r"^### (.+)$", text, flags=re.M))


def prometheus_rules() -> list[dict[str, object]]:
    groups = yaml.safe_load(PROMETHEUS_FILE.read_text())["groups"]
    return [r for g in groups for r in g["rules"] if "alert" in r]


def anchor_of(url: str) -> str:
    page, _, anchor = url.partition("#")
    assert page == RUNBOOKS and anchor, url
    return anchor


def test_slug_is_githubs() -> None:
    assert slug("FullGCPauseOverSessionTimeout") == "fullgcpauseoversessiontimeout"
    assert slug("Writes: the canary") == "writes-the-canary"


def test_every_service_rule_links_to_its_section() -> None:
    raw = yaml.safe_load(RULES_FILE.read_text())
    rules = shipped_rules().rules
    anchors = sections()
    assert raw["rules"].keys() == rules.keys() and len(rules) >= 24
    for name, rule in rules.items():
        assert raw["rules"][name].get("runbook_url") == f"#{name.lower()}", name
        assert rule.runbook_url == f"docs/runbooks.md#{name.lower()}", name
        assert anchor_of(rule.runbook_url) in anchors, f"no section for {name}"
        assert rule.runbook, f"{name}: the short next step stays"


def test_every_prometheus_rule_links_to_its_section() -> None:
    service = shipped_rules().rules
    anchors = sections()
    rules = prometheus_rules()
    assert len(rules) >= 27
    for rule in rules:
        name = str(rule["alert"])
        url = rule["annotations"]["runbook_url"]  # type: ignore[index]
        assert url == f"docs/runbooks.md#{name.lower()}", name
        assert anchor_of(url) in anchors, f"no section for {name}"
        if name in service:
            assert url == service[name].runbook_url, f"{name}: both files link the same section"


def test_every_rule_section_is_a_rule() -> None:
    names = set(shipped_rules().rules) | {str(r["alert"]) for r in prometheus_rules()}
    assert rule_sections() == names


def test_runbook_base_url_makes_the_links_absolute() -> None:
    base = "https://git.example.com/kafka-health/blob/main/docs/runbooks.md"
    text = RULES_FILE.read_text().replace(
        "runbook_base_url: docs/runbooks.md", f"runbook_base_url: {base}"
    )
    rules = parse_rules(text)
    assert rules.rules["UnderMinIsr"].runbook_url == base + "#underminisr"
    again = dataclasses.replace(rules, rules=dict(rules.rules))  # resolving twice is a no-op
    assert again.rules["UnderMinIsr"].runbook_url == base + "#underminisr"
    assert runbook_link(base, "https://wiki.example.com/x#y") == "https://wiki.example.com/x#y"


@pytest.mark.parametrize(
    ("yaml_text", "key"),
    [
        ("runbook_base_url: ftp://h/runbooks.md\nrules: {}", "runbook_base_url"),
        ("runbook_base_url: 'docs/runbooks.md#x'\nrules: {}", "runbook_base_url"),
        (
            "rules:\n  R:\n    summary: s\n    runbook_url: '#a b'\n"
            "    any_of: [{signal: full_gc_count}]",
            "rules.R.runbook_url",
        ),
    ],
)
def test_a_bad_link_is_a_config_error(yaml_text: str, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_rules(yaml_text)
    assert key in str(err.value)


def _fire_full_gc(tmp_path: Path, base: str | None = None) -> Harness:
    rules = shipped_rules()
    if base is not None:
        rules = parse_rules(
            RULES_FILE.read_text().replace(
                "runbook_base_url: docs/runbooks.md", f"runbook_base_url: {base}"
            )
        )
    h = Harness(tmp_path, rules=rules)
    h.run(0, 10, lambda t: [sig("full_gc_count", 1, t, broker_id=1)])
    assert h.pages(), "FullGC paged"
    return h


def _received_annotations(h: Harness) -> dict[str, str]:
    from tests.support.alerting_harness import ReceiverTransport

    assert isinstance(h.transport, ReceiverTransport)
    bodies = h.transport.state.bodies("/pager")
    alerts = [a for b in bodies for a in b["alerts"] if a["labels"]["alertname"] == "FullGC"]
    assert alerts, bodies
    annotations: dict[str, str] = alerts[0]["annotations"]
    return annotations


def test_the_page_carries_the_runbook_link(tmp_path: Path) -> None:
    annotations = _received_annotations(_fire_full_gc(tmp_path))
    assert annotations["runbook_url"] == "docs/runbooks.md#fullgc"
    assert annotations["runbook"].startswith("A healthy G1 broker"), "the short step stays"


def test_the_page_carries_the_configured_base(tmp_path: Path) -> None:
    base = "https://runbooks.example.com/kafka/runbooks.md"
    h = _fire_full_gc(tmp_path, base)
    assert _received_annotations(h)["runbook_url"] == base + "#fullgc"
    slack = dataclasses.replace(h.config.receivers[0], format="slack")
    body = json.loads(render(h.pages()[0], slack))
    text = "\n".join(a["text"] for a in body["attachments"])
    assert f"Runbook link: {base}#fullgc" in text
    assert "Runbook: A healthy G1 broker" in text
