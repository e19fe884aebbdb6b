"""The README and docs/ say what the code does: every link resolves, every alert rule and every
command is documented where the README sends a reader, and the Quickstart's two commands exist."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
import yaml

from kafka_health.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_slug_matches_github() -> None:
    assert slug("A transport cluster for the monitor's own topics") == (
        "a-transport-cluster-for-the-monitors-own-topics"
    )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto: not checked here
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        if not path.exists() or (path.suffix == ".md" and anchor and anchor not in anchors(path)):
            broken.append(target)
    assert not broken, f"{doc.name}: {broken}"


def test_docs_alerts_names_every_rule() -> None:
    rules = yaml.safe_load((REPO / "conf" / "alerts.yaml").read_text())["rules"]
    text = (REPO / "docs" / "alerts.md").read_text()
    missing = [name for name in rules if f"`{name}`" not in text]
    assert rules and not missing, f"rules not listed in docs/alerts.md: {missing}"


def test_docs_operations_lists_every_command() -> None:
    parser = build_parser()
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = (REPO / "docs" / "operations.md").read_text()
    missing = [name for name in commands if f"`kafka-health {name}" not in text]
    assert len(commands) > 10 and not missing, f"not in docs/operations.md: {missing}"


def test_readme_quickstart_is_the_two_scripts() -> None:
    text = (REPO / "README.md").read_text()
    quickstart = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", quickstart, flags=re.S)
    assert blocks == ["bash scripts/demo.sh\nbash scripts/test.sh\n"]
    for script in ("scripts/demo.sh", "scripts/test.sh"):
        assert (REPO / script).is_file(), script
    assert "exec bash scripts/test.sh" in (REPO / ".ci" / "run").read_text()
