"""alerts/: the Prometheus rules and Alertmanager config, checked with the real promtool and
amtool (Debian packages prometheus and prometheus-alertmanager; scripts/install-system-deps.sh
installs them), and kept in line with conf/alerts.yaml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kafka_health.alerting.rule_config import load_rules
from tests.support.system_tools import run, tool

REPO = Path(__file__).resolve().parents[1]
ALERTS = REPO / "alerts"
RULE_FILE = ALERTS / "kafka-health.rules.yml"
TEST_FILES = sorted((ALERTS / "tests").glob("*.yml"))
THRESHOLD = re.compile(r"(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)?)")
META = {"KafkaBrokerInMaintenance", "KafkaHealthHeartbeatMissing", "KafkaHealthWatchdog"}


def prometheus_rules() -> dict[str, dict[str, object]]:
    groups = yaml.safe_load(RULE_FILE.read_text())["groups"]
    return {r["alert"]: r for g in groups for r in g["rules"] if "alert" in r}


def seconds(text: str | None) -> float:
    if not text:
        return 0.0
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return sum(float(n) * units[u] for n, u in re.findall(r"(\d+)([smhd])", str(text)))


def test_promtool_check_rules() -> None:
    result = run(tool("promtool"), "check", "rules", str(RULE_FILE))
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_test_rules() -> None:
    assert TEST_FILES, "alerts/tests/*.yml"
    result = run(tool("promtool"), "test", "rules", *map(str, TEST_FILES))
    assert result.returncode == 0, result.stdout + result.stderr


def test_amtool_check_config() -> None:
    result = run(tool("amtool"), "check-config", str(ALERTS / "alertmanager.yml"))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("labels", "receiver"),
    [
        (["alertname=UnderMinIsr", "severity=critical", "broker_id=1"], "pager"),
        (["alertname=FullGC", "severity=warning", "broker_id=1"], "chat"),
        (["alertname=KafkaHealthWatchdog", "severity=none"], "deadmansswitch"),
        (["alertname=KafkaBrokerInMaintenance", "severity=info", "broker_id=2"], "blackhole"),
    ],
)
def test_alertmanager_routes(labels: list[str], receiver: str) -> None:
    result = run(
        tool("amtool"), "config", "routes", "test",
        f"--config.file={ALERTS / 'alertmanager.yml'}", *labels,
    )  # fmt: skip
    assert result.stdout.strip() == receiver, result.stdout + result.stderr


def _mutations(value: float) -> list[float]:
    """A threshold moved by one step of its scale, both ways."""
    if value != int(value):
        step = 0.02
    elif value >= 10:
        step = value / 10
    else:
        step = 1.0
    return [value - step, value + step]


def _mutants() -> list[tuple[str, str, str, str]]:
    found = []
    for rule in prometheus_rules().values():
        expr = str(rule["expr"])
        for m in THRESHOLD.finditer(expr):
            for new in _mutations(float(m.group(2))):
                mutated = expr[: m.start(2)] + f"{new:g}" + expr[m.end(2) :]
                case = f"{rule['alert']} {m.group(0)} -> {new:g}"
                found.append((case, str(rule["alert"]), expr, mutated))
    return found


MUTANTS = _mutants()


@pytest.mark.parametrize(("case", "alert", "expr", "mutated"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_changed_threshold_fails_the_promtool_tests(
    case: str, alert: str, expr: str, mutated: str, tmp_path: Path
) -> None:
    """Each threshold is pinned by the tests: moving it either way makes promtool fail.
    (Only the test cases of the mutated rule run, to keep this quick.)"""
    data = yaml.safe_load(RULE_FILE.read_text())
    for group in data["groups"]:
        for rule in group["rules"]:
            if rule.get("expr") == expr:
                rule["expr"] = mutated
    (tmp_path / "kafka-health.rules.yml").write_text(yaml.safe_dump(data))
    (tmp_path / "tests").mkdir()
    written = []
    for test_file in TEST_FILES:
        tests = yaml.safe_load(test_file.read_text())
        tests["tests"] = [
            t for t in tests["tests"] if any(c["alertname"] == alert for c in t["alert_rule_test"])
        ]
        if tests["tests"]:
            (tmp_path / "tests" / test_file.name).write_text(yaml.safe_dump(tests))
            written.append(f"tests/{test_file.name}")
    assert written, f"no promtool test covers {alert}"
    result = run(tool("promtool"), "test", "rules", *written, cwd=tmp_path)
    assert result.returncode != 0, f"{case}: the promtool tests still pass"


def test_prometheus_rules_match_the_service_rules() -> None:
    """Same names, severities, for, keep_firing_for and thresholds as conf/alerts.yaml."""
    ours = load_rules(REPO / "conf" / "alerts.yaml").enabled()
    theirs = prometheus_rules()
    assert set(theirs) - META == set(ours)
    for name, rule in ours.items():
        prom = theirs[name]
        assert prom["labels"]["severity"] == rule.severity, name  # type: ignore[index]
        assert seconds(prom.get("for")) == rule.for_s, name  # type: ignore[arg-type]
        assert seconds(prom.get("keep_firing_for")) == rule.keep_firing_for_s, name  # type: ignore[arg-type]
        thresholds = {(op, float(v)) for op, v in THRESHOLD.findall(str(prom["expr"]))}
        for cond in rule.conditions():
            assert (cond.op, cond.threshold) in thresholds, (name, cond.signal)
            assert f"kafka_health_{cond.signal}" in str(prom["expr"]), (name, cond.signal)


AGGREGATION = re.compile(r"\b(sum|min|max|avg|count|topk|bottomk|quantile)\s*(by|without)?\s*\(")
LABEL_LIST = re.compile(r"\b(by|on|without|ignoring)\s*\(([^)]*)\)")


@pytest.mark.parametrize("name", sorted(prometheus_rules()))
def test_every_aggregation_keeps_the_cluster(name: str) -> None:
    """One Prometheus for many monitored clusters (issue 60.2): every aggregation is
    ``by (cluster, ...)`` and every match ``on (cluster, ...)``, so two clusters never merge."""
    expr = str(prometheus_rules()[name]["expr"])
    for m in AGGREGATION.finditer(expr):
        assert m.group(2) == "by", f"{name}: {m.group(0)} without by (cluster, ...): {expr}"
    for m in LABEL_LIST.finditer(expr):
        assert m.group(1) in ("by", "on"), f"{name}: {m.group(0)}"
        first = m.group(2).split(",")[0].strip()
        assert first == "cluster", f"{name}: {m.group(0)}"
