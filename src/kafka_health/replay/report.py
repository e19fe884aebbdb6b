"""The replay's self-contained HTML report: a timeline per broker and the likely causal chain.

Drawn with plotly (plotly.js is embedded in the page: it opens with no network). One row per
broker: Full GC pauses (seconds) against the broker's session timeout line, session expiries
and fencing or failures, ISR shrinks and expands, leader changes; two cluster rows: under-
replicated and under-min-ISR partitions, and elections per minute; every notified alert as a
band over the rows of its broker (or all rows) from when it fired to when it resolved. Below
the plots: the pages in order, and the causal chain (each step's first time and the log lines
that support it); where the logs hold group coordinators' lines, the consumer groups (their
rebalances) and the loads of their offsets partitions that held them up.
"""

from __future__ import annotations

import html
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafka_health.config import MonitorConfig
from kafka_health.replay.engine import Replay
from kafka_health.replay.inputs import SourcedEvent

MARKERS = {
    "zk_session_expired": ("session expired", "x", "#d00000"),
    "broker_failure": ("broker failed / fenced", "x-thin", "#8b0000"),
    "controlled_shutdown": ("controlled shutdown", "triangle-down", "#777777"),
    "shutdown_signal": ("SIGTERM", "triangle-down-open", "#777777"),
    "isr_shrink": ("ISR shrink", "triangle-down", "#e8a317"),
    "isr_expand": ("ISR expand", "triangle-up", "#2e8b57"),
    "leader_change": ("leader change", "circle-open", "#4169e1"),
    "not_leader": ("NotLeaderOrFollower", "square-open", "#9932cc"),
    "group_rebalance_start": ("consumer group rebalance", "diamond-open", "#ff8c00"),
    "coordinator_load_start": ("offsets partition loading", "star-triangle-up-open", "#8b4513"),
}
CHAIN = [
    ("full_gc", "Full GC pauses on broker {b}"),
    ("zk_session_expired", "its ZooKeeper session expires"),
    ("broker_failure", "the controller declares broker {b} failed or fences it"),
    ("leader_change", "partition leaders move"),
    ("isr_shrink", "ISRs shrink"),
    ("not_leader", "clients get NotLeaderOrFollower"),
]
EVIDENCE_LINES = 3
MAX_GROUPS_SHOWN = 50
"""Groups in the report's table (the most rebalances first)."""


def _when(epoch_s: float) -> datetime:
    return datetime.fromtimestamp(epoch_s, tz=UTC)


def figure(replay: Replay, sourced: list[SourcedEvent], config: MonitorConfig) -> Any:
    """The plotly figure: a row per broker, then the cluster rows."""
    from plotly.subplots import make_subplots

    brokers = sorted({s.event.broker_id or "?" for s in sourced}, key=lambda b: (len(b), b))
    rows = len(brokers) + 2
    fig = make_subplots(
        rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.02,
        subplot_titles=[f"broker {b}" for b in brokers]
        + ["under-replicated / under-min-ISR partitions", "leader elections per minute"],
    )  # fmt: skip
    row_of = {b: i + 1 for i, b in enumerate(brokers)}
    timeouts: dict[str, float] = {}
    for s in sourced:
        e = s.event
        if e.type == "session_timeout" and e.session_timeout_ms:
            timeouts[e.broker_id or "?"] = e.session_timeout_ms / 1000
    shown: set[str] = set()
    for broker in brokers:
        row = row_of[broker]
        mine = [s for s in sourced if (s.event.broker_id or "?") == broker]
        gcs = [s for s in mine if s.event.type == "full_gc" and s.event.pause_s is not None]
        if gcs:
            fig.add_bar(
                x=[_when((s.event.event_ms or 0) / 1000) for s in gcs],
                y=[s.event.pause_s for s in gcs], name="Full GC pause (s)",
                marker_color="#444444", row=row, col=1, legendgroup="gc",
                showlegend="gc" not in shown, hovertext=[s.text for s in gcs],
            )  # fmt: skip
            shown.add("gc")
        timeout = timeouts.get(broker, config.job.session_timeout_ms / 1000)
        fig.add_hline(y=timeout, line_dash="dash", line_color="#d00000", row=row, col=1,
                      annotation_text=f"session timeout {timeout:g} s")  # fmt: skip
        for kind, (label, symbol, color) in MARKERS.items():
            found = [s for s in mine if s.event.type == kind]
            if not found:
                continue
            fig.add_scatter(
                x=[_when((s.event.event_ms or 0) / 1000) for s in found], y=[0.5] * len(found),
                mode="markers", marker={"symbol": symbol, "color": color, "size": 10},
                name=label, legendgroup=kind, showlegend=kind not in shown, row=row, col=1,
                hovertext=[s.text for s in found],
            )  # fmt: skip
            shown.add(kind)
    _cluster_rows(fig, replay, rows)
    _alert_bands(fig, replay, row_of, rows)
    fig.update_layout(height=220 * rows, title="kafka-health replay", hovermode="closest")
    return fig


def _series(replay: Replay, name: str) -> tuple[list[datetime], list[float]]:
    xs, ys = [], []
    for at, signals in replay.timeline:
        value = next((s.value for s in signals if s.name == name and not s.labels), None)
        if value is not None:
            xs.append(_when(at))
            ys.append(value)
    return xs, ys


def _cluster_rows(fig: Any, replay: Replay, rows: int) -> None:
    for name, color in (("under_replicated_partitions", "#e8a317"),
                        ("under_min_isr_partitions", "#d00000")):  # fmt: skip
        xs, ys = _series(replay, name)
        fig.add_scatter(x=xs, y=ys, mode="lines", line_shape="hv", name=name,
                        line_color=color, row=rows - 1, col=1)  # fmt: skip
    xs, ys = _series(replay, "leader_elections_per_minute")
    fig.add_scatter(x=xs, y=ys, mode="lines", line_shape="hv", name="elections / min",
                    line_color="#4169e1", row=rows, col=1)  # fmt: skip


def alert_intervals(replay: Replay) -> list[dict[str, Any]]:
    """Each notified alert instance: name, broker, fired (first notified) and resolved."""
    spans: dict[str, dict[str, Any]] = {}
    for n in replay.notifications:
        for a in n.alerts:
            key = f"{a['fingerprint']}@{a['starts_at']}"
            span = spans.setdefault(key, {
                "alert": a["alertname"], "broker": a["labels"].get("broker_id"),
                "fired": n.at, "resolved": None, "cause": "",
            })  # fmt: skip
            if a["status"] == "resolved":
                span["resolved"] = n.at
            elif a["cause"]:
                span["cause"] = a["cause"]
    return sorted(spans.values(), key=lambda s: s["fired"])


def _alert_bands(fig: Any, replay: Replay, row_of: dict[str, int], rows: int) -> None:
    end = replay.timeline[-1][0] if replay.timeline else None
    for span in alert_intervals(replay):
        targets = [row_of[span["broker"]]] if span["broker"] in row_of else range(1, rows + 1)
        until = span["resolved"] or end or span["fired"]
        for row in targets:
            fig.add_vrect(
                x0=_when(span["fired"]), x1=_when(until), fillcolor="#d00000", opacity=0.12,
                line_width=0, row=row, col=1,
                annotation_text=span["alert"] if row == next(iter(targets)) else None,
                annotation_position="top left",
            )  # fmt: skip


def causal_chain(sourced: list[SourcedEvent]) -> list[dict[str, Any]]:
    """The steps of the usual Kafka failure chain found in the logs, in time order, each with
    its first time and the first few log lines that show it."""
    by_type: dict[str, list[SourcedEvent]] = defaultdict(list)
    for s in sourced:
        by_type[s.event.type].append(s)
    steps = []
    for kind, text in CHAIN:
        found = by_type.get(kind, [])
        if kind == "full_gc":
            found = [s for s in found if (s.event.pause_s or 0) >= 1.0]
        if not found:
            continue
        brokers = sorted({s.event.broker_id or "?" for s in found})
        steps.append({
            "step": text.format(b=", ".join(brokers)), "first_at": found[0].event.event_ms,
            "count": len(found),
            "evidence": [f"{s.file}:{s.line}: {s.text}" for s in found[:EVIDENCE_LINES]],
        })  # fmt: skip
    return sorted(steps, key=lambda s: s["first_at"] or 0)


def _page_row(span: dict[str, Any]) -> str:
    resolved = "" if span["resolved"] is None else f"{_when(span['resolved']):%H:%M:%S}"
    return (
        f"<tr><td>{_when(span['fired']):%Y-%m-%d %H:%M:%S}</td>"
        f"<td>{html.escape(span['alert'])}</td>"
        f"<td>{html.escape(str(span['broker'] or 'cluster'))}</td>"
        f"<td>{resolved}</td><td>{html.escape(span['cause'])}</td></tr>"
    )


def _groups_section(replay: Replay) -> str:
    """The consumer groups and the loads that held them up, or nothing without group lines."""
    if not replay.consumer_groups and not replay.coordinator_loads:
        return ""
    shown = sorted(replay.consumer_groups, key=lambda g: (-g["rebalances"], g["group"]))
    rows = "".join(
        f"<tr><td>{html.escape(g['group'])}</td><td>{g['coordinator']}</td>"
        f"<td>{'' if g['offsets_partition'] is None else g['offsets_partition']}</td>"
        f"<td>{g['rebalances']}</td><td>{g['new_generations']}</td>"
        f"<td>{g['members_failed']}</td><td>{g['longest_unstable_s']:.0f}</td>"
        f"<td>{html.escape(g['state'])}</td></tr>"
        for g in shown[:MAX_GROUPS_SHOWN]
    )
    more = len(shown) - MAX_GROUPS_SHOWN
    loads = "".join(
        f"<tr><td>{html.escape(load['broker_id'])}</td><td>{html.escape(load['partition'])}</td>"
        f"<td>{_when(load['started_at']):%Y-%m-%d %H:%M:%S}</td>"
        f"<td>{'not finished in the logs' if load['ended_at'] is None else load['ended']}</td>"
        f"<td>{load['loading_s']:.0f}</td><td>"
        + html.escape(", ".join(f"{h['group']} ({h['state']})" for h in load["held"]) or "none")
        + "</td></tr>"
        for load in replay.coordinator_loads
    )
    return (
        "<h2>Consumer groups (the coordinators' lines)</h2><p>Rebalances are judged by the "
        "live rules (ConsumerGroupRebalancing, BrokerHoldsUpConsumerGroups). Lag, lagging, "
        "stalled, stopped, rewound and records deleted unread need committed and log-end "
        "offsets, which broker logs do not hold.</p><table><tr><th>group</th>"
        "<th>coordinator</th><th>offsets partition</th><th>rebalances</th>"
        "<th>new generations</th><th>members failed</th><th>longest not Stable (s)</th>"
        f"<th>last state</th></tr>{rows}</table>"
        + (f"<p>... and {more} more groups</p>" if more > 0 else "")
        + "<h2>Offsets loads that held groups up</h2><table><tr><th>broker</th>"
        "<th>partition</th><th>began (UTC)</th><th>ended</th><th>loading (s)</th>"
        f"<th>groups held up (state when it began)</th></tr>{loads}</table>"
    )


def write_report(
    path: Path, replay: Replay, sourced: list[SourcedEvent], config: MonitorConfig
) -> None:
    """The HTML page, self-contained (plotly.js inline)."""
    fig = figure(replay, sourced, config)
    plot = fig.to_html(full_html=False, include_plotlyjs=True)
    pages = "".join(_page_row(s) for s in alert_intervals(replay))
    chain = "".join(
        f"<li><b>{_when((s['first_at'] or 0) / 1000):%Y-%m-%d %H:%M:%S}</b> "
        f"{html.escape(s['step'])} ({s['count']}x)<pre>"
        + html.escape("\n".join(s["evidence"]))
        + "</pre></li>"
        for s in causal_chain(sourced)
    )
    still = ", ".join(html.escape(a["alertname"]) for a in replay.open_at_end) or "none"
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>kafka-health replay</title>"
        "<style>body{font-family:sans-serif;margin:1em}td,th{padding:2px 8px;text-align:left}"
        "pre{font-size:11px;background:#f4f4f4;padding:4px;overflow-x:auto}</style></head>"
        f"<body><h1>kafka-health replay</h1><p>{replay.events} events; still firing at the "
        f"end of the input: {still}</p>{plot}<h2>Pages</h2><table><tr><th>fired (UTC)</th>"
        f"<th>alert</th><th>broker</th><th>resolved</th><th>cause</th></tr>{pages}</table>"
        f"<h2>Likely causal chain</h2><ol>{chain}</ol>{_groups_section(replay)}</body></html>",
        encoding="utf-8",
    )
