"""What the demo prints: one timeline line per notification its pager gets, one short status
line per interval, and nothing else: Python logging goes to a log file.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_health.dev.devcluster.state import BrokerStatus
from kafka_health.dev.faults.monitor import Sample
from kafka_health.dev.faults.receiver import Page

CAUSE_CHARS = 90
"""A cause is shown up to its first ``:`` or ``;`` (the gist; its explanation follows), and cut
at this length (the page itself has it whole)."""
FRESH_S = 60.0
"""A value is shown only while the query that computes it completed a batch this recently
(the fault runner's steady-state criterion uses the same bound)."""
PROCESS_WORDS = {"running": "up", "frozen": "frozen", "stopped": "down"}


def clock_time(at: float) -> str:
    """Local wall-clock time of an epoch timestamp, to the second."""
    return time.strftime("%H:%M:%S", time.localtime(at))


# ---------------------------------------------------------------------- the timeline


def timeline_line(page: Page, update: bool) -> str:
    """One notification: time, FIRING/UPDATED/RESOLVED, alert names, broker, short cause.

    ``update``: the page's group was already open (a later notification of one incident)."""
    kind = "RESOLVED" if page.status == "resolved" else "UPDATED" if update else "FIRING"
    firing = [a for a in page.alerts if a.get("status") == "firing"]
    shown = firing or page.alerts
    names = ", ".join(dict.fromkeys(_label(a, "alertname") or "?" for a in shown)) or "?"
    brokers = sorted({_label(a, "broker_id") for a in shown} - {""}, key=_broker_order)
    where = f" (broker {', '.join(brokers)})" if brokers else " (cluster)"
    line = f"{clock_time(page.at)} {kind:<8} {names}{where}"
    cause = _cause(firing)
    return line + (f": {_short(cause, CAUSE_CHARS)}" if cause else "")


@dataclass
class Timeline:
    """A receiver's ``on_page``: prints each notification as it arrives, in arrival order."""

    write: Callable[[str], None] = print
    _open: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, page: Page) -> None:
        with self._lock:
            update = page.group_key in self._open
            if page.status == "resolved":
                self._open.discard(page.group_key)
            else:
                self._open.add(page.group_key)
            self.write(timeline_line(page, update))


def _label(alert: dict[str, Any], name: str) -> str:
    return str((alert.get("labels") or {}).get(name, "") or "")


def _cause(firing: list[dict[str, Any]]) -> str:
    """The cause a firing alert carries; one that explains the others comes first."""
    notes = [a.get("annotations") or {} for a in firing]
    ordered = [n for n in notes if n.get("explains")] + [n for n in notes if not n.get("explains")]
    return next((str(n["cause"]) for n in ordered if n.get("cause")), "")


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    gist = min((text.find(mark) for mark in (": ", "; ") if mark in text), default=len(text))
    text = text[:gist]
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _broker_order(broker: str) -> tuple[int, str]:
    return (int(broker), "") if broker.isdigit() else (1 << 30, broker)


# ---------------------------------------------------------------------- the status line


@dataclass(frozen=True)
class Headline:
    """One value of the status line: a cluster-wide series of the job's /metrics and the
    queries whose batches compute it."""

    title: str
    metric: str
    queries: tuple[str, ...]
    fmt: str
    source: str = ""
    """The job's name for the data it reads (``signal_stale{source}``), when it tracks one."""


JOB_QUERY = "monitor"
"""The job's one streaming query (``kafka_health.job.app.QUERY``): every headline's source."""

HEADLINES = (
    Headline("canary", "kafka_health_canary_availability_ratio", (JOB_QUERY,), "{:.1%}",
             "canary"),
    Headline("under-replicated", "kafka_health_under_replicated_partitions", (JOB_QUERY,),
             "{:.0f}", "cluster_state"),
    Headline("under min ISR", "kafka_health_under_min_isr_partitions", (JOB_QUERY,), "{:.0f}",
             "cluster_state"),
    Headline("elections/min", "kafka_health_leader_elections_per_minute", (JOB_QUERY,), "{:g}"),
)  # fmt: skip


def brokers_text(statuses: Iterable[BrokerStatus]) -> str:
    """``brokers 1,2 up, 3 down``: the brokers by process state, in id order."""
    by_state: dict[str, list[str]] = {}
    for s in sorted(statuses, key=lambda s: s.broker_id):
        by_state.setdefault(PROCESS_WORDS[s.process], []).append(str(s.broker_id))
    parts = [f"{','.join(ids)} {state}" for state, ids in by_state.items()]
    return "brokers " + (", ".join(parts) if parts else "none")


def headline_values(metrics: dict[Sample, float], now: float) -> list[str]:
    """``title value`` per headline; ``?`` when the job does not report it, says its source
    is stale, or the queries that compute it completed no batch within ``FRESH_S`` (a number
    would be stale)."""
    last_batch = _by_label(metrics, "kafka_health_job_last_batch_timestamp", "query")
    stale = stale_sources(metrics)
    out = []
    for h in HEADLINES:
        value = metrics.get((h.metric, ()))
        fresh = h.source not in stale and all(
            now - last_batch.get(q, float("-inf")) <= FRESH_S for q in h.queries
        )
        out.append(f"{h.title} {h.fmt.format(value) if value is not None and fresh else '?'}")
    return out


def stale_sources(metrics: dict[Sample, float]) -> dict[str, float | None]:
    """Sources the job reports stale (``signal_stale`` 1), with their age in seconds."""
    ages = _by_label(metrics, "kafka_health_signal_age_seconds", "source")
    return {
        source: ages.get(source)
        for source, value in _by_label(metrics, "kafka_health_signal_stale", "source").items()
        if value > 0
    }


def _by_label(metrics: dict[Sample, float], name: str, label: str) -> dict[str, float]:
    return {
        dict(labels).get(label, ""): value
        for (sample, labels), value in metrics.items()
        if sample == name
    }


def status_line(
    statuses: Iterable[BrokerStatus],
    metrics: dict[Sample, float] | None,
    now: float,
    job_note: str = "",
) -> str:
    """The periodic line: time, brokers, then (with a monitor; ``metrics`` None: none runs)
    the headline values and a note about the job when it has one; the sources the job reports
    stale, with their age, on an indented second line."""
    parts = [f"{clock_time(now)} {brokers_text(statuses)}"]
    detail = ""
    if metrics is not None:
        parts += headline_values(metrics, now)
        stale = stale_sources(metrics)
        if stale:  # on a line of its own: the status line stays within a terminal's width
            detail = (
                "\n"
                + " " * 9
                + "stale: "
                + ", ".join(
                    f"{source}{'' if age is None else f' {age:.0f} s'}"
                    for source, age in sorted(stale.items())
                )
            )
    line = " | ".join(parts)
    if job_note and len(line) + 3 + len(job_note) <= STATUS_WIDTH:
        line += " | " + job_note
    elif job_note:  # a long note (a log folder's path) goes under the line
        detail = "\n" + " " * 9 + job_note + detail
    return line + detail


STATUS_WIDTH = 120
"""The status line's longest (a terminal's width); what does not fit goes on indented lines."""


# ---------------------------------------------------------------------- the noise


def log_to_file(path: Path, level: int = logging.INFO) -> None:
    """Send every Python log record and warning of this process to ``path`` (not the terminal):
    kafka-python's connection warnings while a broker is down belong in a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
