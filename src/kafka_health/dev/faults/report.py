"""Summaries of fault-bench runs: percentiles per scenario, a table, the JSON document."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kafka_health.dev.faults.runner import RunResult


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..1) of ``values``; None when empty."""
    if not values:
        return None
    ranked = sorted(values)
    return ranked[max(0, math.ceil(q * len(ranked)) - 1)]


def summarize(results: Sequence[RunResult]) -> dict[str, dict[str, Any]]:
    """Per scenario: runs, p50/p95/max latency of the page, missed, unexpected, duplicates;
    with ``--via-alertmanager`` also the page behind Alertmanager (:func:`via_alertmanager`)."""
    summary: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(r.scenario for r in results):
        runs = [r for r in results if r.scenario == name]
        latencies = [r.latency_s for r in runs if r.latency_s is not None]
        causes = [r.cause_latency_s for r in runs if r.cause_latency_s is not None]
        resolutions = [r.resolved_after_s for r in runs if r.resolved_after_s is not None]
        summary[name] = {
            "runs": len(runs),
            "p50_s": percentile(latencies, 0.50),
            "p95_s": percentile(latencies, 0.95),
            "max_s": max(latencies) if latencies else None,
            "missed": sum(1 for r in runs if r.missed),
            "unexpected": sum(len(r.unexpected_pages) for r in runs),
            "duplicates": sum(r.duplicates for r in runs),
            "wrong": sum(1 for r in runs if r.wrong),
            "errors": sum(1 for r in runs if r.error),
            "cause_p50_s": percentile(causes, 0.50),
            "resolved_p50_s": percentile(resolutions, 0.50),
            "unresolved": sum(1 for r in runs if r.resolved_after_s is None),
            "budget_p50": {
                stage: percentile([r.budget[stage] for r in runs if stage in r.budget], 0.50)
                for stage in ("detect_s", "for_s", "group_wait_and_delivery_s")
            },
        }
        if any(r.via_alertmanager is not None for r in runs):
            summary[name].update(via_alertmanager(runs))
    return summary


def via_alertmanager(runs: Sequence[RunResult]) -> dict[str, Any]:
    """The page behind Alertmanager in the same runs: p50/p95/max of its latency (from the
    same fault instant as the direct page's), missed, its duplicates (Alertmanager's repeats),
    the p50 of its extra seconds over the direct page of the same run, of its group wait and
    delivery, and of its resolution after the undo."""
    vias = [(r, r.via_alertmanager) for r in runs if r.via_alertmanager is not None]
    latencies = [v.latency_s for _, v in vias if v.latency_s is not None]
    extra = [
        round(v.latency_s - r.latency_s, 1)
        for r, v in vias
        if v.latency_s is not None and r.latency_s is not None
    ]
    waits = [v.group_wait_and_delivery_s for _, v in vias]
    resolutions = [v.resolved_after_s for _, v in vias if v.resolved_after_s is not None]
    return {
        "am_p50_s": percentile(latencies, 0.50),
        "am_p95_s": percentile(latencies, 0.95),
        "am_max_s": max(latencies) if latencies else None,
        "am_missed": sum(1 for _, v in vias if v.missed),
        "am_duplicates": sum(v.duplicates for _, v in vias),
        "am_incidents_max": max((v.incidents for _, v in vias), default=None),
        "am_extra_p50_s": percentile(extra, 0.50),
        "am_group_wait_and_delivery_p50_s": percentile([w for w in waits if w is not None], 0.5),
        "am_resolved_p50_s": percentile(resolutions, 0.50),
    }


def document(results: Sequence[RunResult], meta: dict[str, Any]) -> dict[str, Any]:
    return {"meta": meta, "runs": [r.to_json() for r in results], "summary": summarize(results)}


def write_json(path: Path, results: Sequence[RunResult], meta: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document(results, meta), indent=2) + "\n", encoding="utf-8")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


COLUMNS = (
    ("scenario", None), ("runs", "runs"), ("p50 s", "p50_s"), ("p95 s", "p95_s"),
    ("max s", "max_s"), ("missed", "missed"), ("unexpected", "unexpected"),
    ("dup", "duplicates"), ("wrong", "wrong"), ("errors", "errors"),
    ("cause p50 s", "cause_p50_s"),
    ("resolved p50 s", "resolved_p50_s"), ("unresolved", "unresolved"),
)  # fmt: skip
AM_COLUMNS = (
    ("AM p50 s", "am_p50_s"), ("AM p95 s", "am_p95_s"), ("AM max s", "am_max_s"),
    ("AM missed", "am_missed"), ("AM dup", "am_duplicates"),
    ("AM incidents max", "am_incidents_max"), ("AM-direct p50 s", "am_extra_p50_s"),
)  # fmt: skip
"""The page behind Alertmanager, beside the direct one (only when the runs went through it)."""


def table(summary: dict[str, dict[str, Any]]) -> str:
    """A plain-text table, one row per scenario; the ``AM_COLUMNS`` too when any scenario went
    through Alertmanager."""
    columns = list(COLUMNS)
    if any("am_p50_s" in s for s in summary.values()):
        columns.extend(AM_COLUMNS)
    rows = [[title for title, _ in columns]]
    for name, s in summary.items():
        rows.append([name] + [_cell(s.get(key)) for _, key in columns[1:] if key is not None])
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
    )
