"""docs/configuration.md documents the ``consumer_groups`` section as the schema has it: every
key of it and of an objective, each with the schema's default, and examples the loader takes."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml

from kafka_health.config import parse_config
from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective

DOC = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"
ROW = re.compile(r"^\| `(\w+)` \| [^|]+ \| `([^`]+)` \| [^|]+ \|$", re.M)


def section() -> str:
    return DOC.read_text().split("\n## Consumer groups\n", 1)[1].split("\n## ", 1)[0]


def documented() -> dict[str, object]:
    """Key -> its documented default (the table cells, read as YAML)."""
    return {key: yaml.safe_load(default) for key, default in ROW.findall(section())}


@pytest.mark.parametrize("schema", [ConsumerGroupsConfig, GroupObjective])
def test_every_key_is_documented_with_its_default(schema: type) -> None:
    rows = documented()
    defaults = dataclasses.asdict(schema())
    missing = [key for key in defaults if key not in rows]
    assert not missing, f"not in docs/configuration.md: {missing}"
    wrong = {key: rows[key] for key, value in defaults.items() if rows[key] != value}
    assert not wrong, f"defaults in docs/configuration.md differ from the schema's: {wrong}"


def test_the_examples_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PAYMENTS_PAGERDUTY_KEY", "KAFKA_PAGERDUTY_KEY"):
        monkeypatch.setenv(name, "a-key")
    for name in ("PAYMENTS_SLACK_WEBHOOK", "SEARCH_SLACK_WEBHOOK"):
        monkeypatch.setenv(name, "https://hooks.slack.com/services/T0/B0/x")
    blocks = re.findall(r"```yaml\n(.*?)```", section(), flags=re.S)
    config = parse_config("".join(blocks))
    groups = config.consumer_groups
    assert groups.objective("payments-ledger-1").severity == "critical"
    assert groups.objective("search-suggest") == groups.default_objective
    assert not groups.watched("payments-ledger-test")
    assert [r.name for r in config.alerting.receivers][:2] == ["payments-pager", "payments-chat"]
