"""What the dashboard tests share: the dashboard's queries with Grafana's variables expanded,
the metric selectors in a PromQL expression, and the series names kafka-health exports,
derived from the code (the alert service's registry as the job wires it, the canary's and the
prober's, the shipper's), never from a list kept by hand."""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from prometheus_client import CollectorRegistry

from kafka_health.alerting.service import AlertService
from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.cluster_state.prober import ClusterStateMetrics
from kafka_health.config import MonitorConfig, from_mapping
from kafka_health.job.codegen import CodegenCompiles
from kafka_health.job.health import JobHealth
from kafka_health.job.parse_counts import ParseCounts
from kafka_health.job.rejected_counts import RejectedCounts
from kafka_health.job.sinks import build_sinks
from kafka_health.shipper.metrics import ShipperMetrics

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "dashboards" / "kafka-health.json"
RULES = REPO / "conf" / "alerts.yaml"

# Grafana's built-in variables, as Grafana would expand them for a 1 s scrape interval.
BUILTINS = {"__rate_interval": "5s", "__interval": "1s", "__range": "5m"}


def load_dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel, including those inside collapsed rows."""
    found = []
    for panel in dashboard["panels"]:
        found.append(panel)
        found.extend(panel.get("panels", []))
    return found


@dataclass(frozen=True)
class Query:
    panel: str
    ref: str
    expr: str  # as written, with Grafana variables

    @property
    def name(self) -> str:
        return f"{self.panel} [{self.ref}]"


def queries(dashboard: dict[str, Any]) -> list[Query]:
    return [
        Query(p["title"], t["refId"], t["expr"])
        for p in panels(dashboard)
        for t in p.get("targets", [])
    ]


def variable_queries(dashboard: dict[str, Any]) -> list[str]:
    """The PromQL inside the query variables' ``label_values(...)`` definitions."""
    found = []
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            query = var["query"]["query"] if isinstance(var["query"], dict) else var["query"]
            m = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", query.strip())
            assert m, f"variable {var['name']}: not label_values(series, label): {query}"
            found.append(m.group(1))
    return found


def expand(expr: str, dashboard: dict[str, Any], cluster: str) -> str:
    """``expr`` with the dashboard's variables as Grafana expands them (cluster given)."""
    values = dict(BUILTINS)
    for var in dashboard["templating"]["list"]:
        if var["type"] in ("textbox", "constant", "custom"):
            values[var["name"]] = str(var["query"]).split(",")[0].strip()
    values["cluster"] = cluster

    def sub(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name not in values:
            raise AssertionError(f"unknown variable ${name} in {expr}")
        return values[name]

    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)", sub, expr)


# ---------------------------------------------------------------------------------------------
# PromQL: the metric selectors of an expression

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
   |(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
   |(?P<variable>\$\{\w+(?::\w+)?\}|\$\w+)
   |(?P<duration>\d+(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*(?![\w:]))
   |(?P<number>0x[0-9a-fA-F]+|\d*\.?\d+(?:[eE][+-]?\d+)?)
   |(?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
   |(?P<op>=~|!~|!=|==|>=|<=|[-+*/%^=<>(){}\[\],@])
    """,
    re.VERBOSE,
)
AGGREGATIONS = {
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
    "bottomk", "topk", "quantile", "limitk", "limit_ratio",
}  # fmt: skip
LABEL_LISTS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan", "start", "end"}

Matcher = tuple[str, str, str]  # label, operator, value


@dataclass(frozen=True)
class Selector:
    metric: str | None
    matchers: tuple[Matcher, ...]


def tokens(expr: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None:
            raise ValueError(f"cannot read {expr[pos:]!r} in {expr!r}")
        pos = m.end()
        kind = m.lastgroup or ""
        if kind != "space":
            out.append((kind, m.group()))
    return out


def _unquote(text: str) -> str:
    body = text[1:-1]
    return body if text[0] == "`" else re.sub(r"\\(.)", r"\1", body)


def selectors(expr: str) -> list[Selector]:
    """Every vector selector of ``expr``: its metric name (None if only matchers) and matchers."""
    toks = tokens(expr)
    found: list[Selector] = []
    i = 0

    def skip_group(start: int, open_: str, close: str) -> int:
        depth = 0
        for j in range(start, len(toks)):
            if toks[j][1] == open_:
                depth += 1
            elif toks[j][1] == close:
                depth -= 1
                if depth == 0:
                    return j + 1
        raise ValueError(f"unbalanced {open_} in {expr!r}")

    def read_matchers(start: int) -> tuple[tuple[Matcher, ...], int]:
        end = skip_group(start, "{", "}")
        inner = toks[start + 1 : end - 1]
        matchers = []
        k = 0
        while k < len(inner):
            if inner[k][1] == ",":
                k += 1
                continue
            label, op, value = inner[k : k + 3]
            assert label[0] == "ident" and op[0] == "op" and value[0] == "string", inner
            matchers.append((label[1], op[1], _unquote(value[1])))
            k += 3
        return tuple(matchers), end

    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else ""
        if kind == "ident":
            lowered = text.lower()
            if lowered in LABEL_LISTS:
                i = skip_group(i + 1, "(", ")") if nxt == "(" else i + 1
            elif lowered in AGGREGATIONS or lowered in KEYWORDS or nxt == "(":
                i += 1
            else:
                matchers: tuple[Matcher, ...] = ()
                i += 1
                if nxt == "{":
                    matchers, i = read_matchers(i)
                found.append(Selector(text, matchers))
        elif text == "{":
            matchers, i = read_matchers(i)
            name = next((v for label, op, v in matchers if label == "__name__" and op == "="), None)
            found.append(Selector(name, matchers))
        elif text == "[":
            i = skip_group(i, "[", "]")
        else:
            i += 1
    return found


def metric_names(expr: str) -> set[str]:
    return {s.metric or "<no name>" for s in selectors(expr)}


# ---------------------------------------------------------------------------------------------
# What kafka-health exports


def job_config(state_dir: Path, cluster: str = "local", **alerting: Any) -> MonitorConfig:
    """A monitor config whose alert service uses the shipped rules and ``state_dir``."""
    raw: dict[str, Any] = {
        "cluster_name": cluster,
        "alerting": {
            "rules_file": str(RULES),
            "state_dir": str(state_dir),
            "exporter": {"host": "127.0.0.1", "port": None},
            **alerting,
        },
    }
    return from_mapping(raw)


def job_registry(config: MonitorConfig) -> tuple[AlertService, JobHealth, ParseCounts]:
    """The job's /metrics registry, wired by the job's own ``build_sinks``."""
    job = SimpleNamespace(
        health=JobHealth(),
        parse_counts=ParseCounts(),
        rejected_counts=RejectedCounts(),
        codegen_compiles=CodegenCompiles(lambda: 85),
    )
    sinks = build_sinks(config, job)  # type: ignore[arg-type]
    assert len(sinks) == 1 and isinstance(sinks[0], AlertService)
    return sinks[0], job.health, job.parse_counts


def canary_registry() -> tuple[CollectorRegistry, CanaryMetrics, ClusterStateMetrics]:
    """The canary's /metrics registry: its own metrics and the prober's (cluster_state on)."""
    registry = CollectorRegistry()
    return registry, CanaryMetrics(registry), ClusterStateMetrics(registry)


SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "gaugehistogram": ("_bucket", "_gcount", "_gsum"),
    "summary": ("", "_count", "_sum", "_created"),
    "info": ("_info",),
    "stateset": ("",),
    "unknown": ("",),
}


def series_names(registry: CollectorRegistry) -> set[str]:
    """Every series name a scrape of ``registry`` can show (labelled families included, even
    while they have no children yet)."""
    names: set[str] = set()
    for family in registry.collect():
        names.update(family.name + suffix for suffix in SUFFIXES[family.type])
        names.update(sample.name for sample in family.samples)
    return names


def exported_series_names() -> dict[str, set[str]]:
    """Series names by process: the job (alert service + job health + parse counts), the
    canary (+ prober) and the shipper."""
    with tempfile.TemporaryDirectory() as state:
        service, _health, _counts = job_registry(job_config(Path(state)))
        job = series_names(service.registry)
    canary, _metrics, _prober = canary_registry()
    return {
        "job": job,
        "canary": series_names(canary),
        "shipper": series_names(ShipperMetrics().registry),
    }
