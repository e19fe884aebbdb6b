"""Ground truth for the consumer-side fault scenarios, and the checks of a page against it: pure,
no Kafka (the steps that read the cluster are in ``actions_consumer_faults``).

- **Time lag** (``consumer-slow``): the group's commits, each with the moment it had been
  acknowledged (:class:`Commit`), and the write time of every record the scenario's producer
  wrote (its own record timestamp, as the broker acknowledged it). A partition's true time lag at
  ``t`` is ``t`` minus the write time of the record at its committed offset (0 while that record
  is not written yet): it grows a second a second between commits and drops at each.
  :func:`first_crossing` finds the first moment it passed the objective on any partition.
- **Records deleted unread** (``retention-loss``): log start offset minus committed offset, per
  partition whose committed offset is below its log start (:func:`deleted_unread`).
- **The coordinator** (``coordinator-kill``): a FindCoordinator answer as a dict
  (:func:`coordinator_of`); and whether the killed broker's incident listed the group, with
  nothing paged for the group on its own (:func:`listing_findings`).
- **A page against the truth**: :func:`page_timing` says what is wrong with a page that came
  before its condition held, or too long after.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kafka_health.dev.faults.receiver import Page

Sample = tuple[str, tuple[tuple[str, str], ...]]
"""A /metrics sample's key, as ``monitor.scrape`` returns it."""


@dataclass(frozen=True)
class Commit:
    """A committed offset of one partition, acknowledged by the coordinator by ``at`` (epoch
    seconds, taken when the commit call returned)."""

    at: float
    partition: int
    offset: int


@dataclass(frozen=True)
class Crossing:
    """The first moment a partition's true time lag passed the objective: the record at its
    committed ``offset``, written at ``written_at``, had waited longer than the objective."""

    at: float
    partition: int
    offset: int
    written_at: float


@dataclass(frozen=True)
class LagTruth:
    """:func:`first_crossing`'s answer: the crossing (None: the lag never passed the objective
    in the window) and the stretches the truth does not cover (a committed offset whose record
    the scenario's producer did not write: written before it started, or its write not
    acknowledged), in words."""

    crossing: Crossing | None
    unknown: tuple[str, ...] = ()


def _by_partition(commits: Iterable[Commit]) -> dict[int, list[Commit]]:
    out: dict[int, list[Commit]] = {}
    for c in sorted(commits, key=lambda c: (c.partition, c.at)):
        out.setdefault(c.partition, []).append(c)
    return out


def _write_time(
    written: Mapping[int, float], last: int | None, offset: int
) -> tuple[float | None, bool]:
    """The write time of the record at ``offset`` (None: not written) and whether that is known:
    an offset at or below ``last`` (the producer's last write) that it did not write (written
    before it started, or a write not acknowledged) is not; one past it is not written yet."""
    if offset in written:
        return written[offset], True
    return None, last is None or offset > last


def first_crossing(
    commits: Iterable[Commit],
    written: Mapping[int, Mapping[int, float]],
    objective_s: float,
    since: float,
    until: float,
) -> LagTruth:
    """The first moment in ``[since, until]`` at which a partition's true time lag exceeded
    ``objective_s``.

    ``commits``: every commit of the group's partitions (before ``since`` too: the one in force
    then counts); ``written``: partition -> offset -> write time (epoch seconds) of the records
    written. Between a commit of offset ``c`` at ``t0`` and the partition's next commit at
    ``t1``, the lag is ``t - written[c]`` once record ``c`` exists, so it passes the objective
    at ``max(t0, written[c] + objective_s)`` if that comes before ``t1``."""
    found: Crossing | None = None
    unknown: list[str] = []
    for partition, ordered in _by_partition(commits).items():
        times = written.get(partition, {})
        last = max(times) if times else None
        for i, commit in enumerate(ordered):
            start = max(commit.at, since)
            end = ordered[i + 1].at if i + 1 < len(ordered) else until
            if end <= start:
                continue
            at_write, known = _write_time(times, last, commit.offset)
            if not known:
                unknown.append(
                    f"partition {partition}: the record at committed offset {commit.offset} "
                    f"was not written by the scenario's producer ({start:.1f}-{end:.1f})"
                )
                continue
            if at_write is None:
                continue  # nothing unread: no lag
            at = max(start, at_write + objective_s)
            if at < end:
                if found is None or at < found.at:
                    found = Crossing(at, partition, commit.offset, at_write)
                break
    return LagTruth(found, tuple(unknown))


def lag_at(
    t: float, commits: Iterable[Commit], written: Mapping[int, Mapping[int, float]]
) -> float | None:
    """The group's true (largest) time lag at ``t``; None without a commit before ``t``."""
    worst: float | None = None
    for partition, ordered in _by_partition(commits).items():
        before = [c for c in ordered if c.at <= t]
        if not before:
            continue
        at_write = written.get(partition, {}).get(before[-1].offset)
        lag = max(0.0, t - at_write) if at_write is not None and at_write <= t else 0.0
        worst = lag if worst is None else max(worst, lag)
    return worst


def page_timing(
    page_at: float | None, condition_at: float | None, late_s: float, early_s: float = 0.0
) -> str | None:
    """What is wrong with a page at ``page_at`` whose condition began to hold at
    ``condition_at`` (the truth): before it (``early_s`` of measurement slack allowed), or more
    than ``late_s`` after it. None: right (or no page: the bench counts it missed)."""
    if page_at is None:
        return None
    if condition_at is None:
        return "paged, but the truth never met the condition"
    if page_at < condition_at - early_s:
        return f"paged {condition_at - page_at:.1f} s before the condition held (the truth)"
    if page_at > condition_at + late_s:
        return (
            f"paged {page_at - condition_at:.1f} s after the condition held, more than {late_s:g} s"
        )
    return None


def deleted_unread(log_start: Mapping[int, int], committed: Mapping[int, int]) -> dict[int, int]:
    """Per partition: the records deleted before the group read them (log start offset minus
    committed offset, where the committed offset is below the log start)."""
    return {
        p: start - committed[p]
        for p, start in sorted(log_start.items())
        if p in committed and committed[p] < start
    }


def coordinator_of(answer: Mapping[str, Any], group: str) -> int | None:
    """The coordinator's node id in a FindCoordinator answer (``to_dict()`` of kafka-python's
    response: v4+ a ``coordinators`` row per key, v0-3 the fields at the top), or None when the
    answer has an error or no coordinator for ``group``."""
    rows = answer.get("coordinators")
    if rows:
        for row in rows:
            if row.get("key") == group:
                return _node(row)
        return None
    return _node(answer)


def _node(row: Mapping[str, Any]) -> int | None:
    if row.get("error_code"):
        return None
    node = row.get("node_id")
    return int(node) if isinstance(node, int) and node >= 0 else None


def config_value(answer: Mapping[str, Any], kind: str, name: str, key: str) -> str | None:
    """A config's value in kafka-python's ``describe_configs`` answer
    (``{kind: {name: {key: {"value": ...}}}}``); None when absent."""
    entry = answer.get(kind, {}).get(name, {}).get(key)
    if not isinstance(entry, Mapping):
        return None
    value = entry.get("value")
    return None if value is None else str(value)


def metric(metrics: Mapping[Sample, float], name: str, **want: str) -> float | None:
    """The value of the first sample ``name`` whose labels include ``want`` (None: none)."""
    for (sample, lbl), value in metrics.items():
        if sample == name and all(dict(lbl).get(k) == v for k, v in want.items()):
            return value
    return None


# ------------------------------------------------------------------ pages


def first_firing(
    pages: Sequence[Page], alertname: str, **want: str
) -> tuple[Page, dict[str, Any]] | None:
    """The first notification carrying ``alertname`` firing with the labels ``want``, and that
    alert."""
    for page in pages:
        for alert in page.firing():
            labels = alert.get("labels", {})
            if labels.get("alertname") == alertname and all(
                labels.get(k) == v for k, v in want.items()
            ):
                return page, alert
    return None


def names_group(alert: Mapping[str, Any], group: str) -> bool:
    """The alert names ``group`` (in its labels, summary, description or details: a listing
    of the groups a broker holds up names them there)."""
    if alert.get("labels", {}).get("group") == group:
        return True
    annotations = alert.get("annotations", {})
    text = " ".join(str(annotations.get(k, "")) for k in ("summary", "description", "details"))
    if re.search(rf"(?<![\w.-]){re.escape(group)}(?![\w.-])", text):
        return True
    details = annotations.get("details")
    if isinstance(details, str):
        try:
            held = json.loads(details).get("groups_held", [])
        except (ValueError, AttributeError):
            return False
        return group in held
    return False


def listing_findings(
    pages: Sequence[Page], broker: int, group: str
) -> tuple[dict[str, Any], list[str]]:
    """``coordinator-kill``'s pages judged: the incident about ``broker`` (the killed
    coordinator) must list ``group`` (BrokerHoldsUpConsumerGroups on that broker naming it),
    while that incident was open, from its first page on (one incident, not a second one opened
    after the first was resolved); nothing may page about the group on its own (an alert with its
    ``group`` label). Returns notes for the report and what is wrong."""
    notes: dict[str, Any] = {}
    wrong: list[str] = []
    about = str(broker)
    keys = [
        p.group_key
        for p in pages
        if p.status == "firing"
        and any(a.get("labels", {}).get("broker_id") == about for a in p.firing())
    ]
    notes["broker_incidents"] = len(set(keys))
    if len(set(keys)) > 1:
        wrong.append(f"{len(set(keys))} incidents about broker {broker}, not one")
    listed: tuple[Page, dict[str, Any]] | None = None
    for page in pages:
        for alert in page.firing():
            labels = alert.get("labels", {})
            if (
                labels.get("alertname") == "BrokerHoldsUpConsumerGroups"
                and labels.get("broker_id") == about
                and names_group(alert, group)
            ):
                listed = page, alert
                break
        if listed is not None:
            break
    if listed is None:
        wrong.append(
            f"broker {broker}'s incident never listed group {group} "
            "(no BrokerHoldsUpConsumerGroups naming it)"
        )
    else:
        page, alert = listed
        notes["listed_at"] = page.at
        notes["listed_summary"] = str(alert.get("annotations", {}).get("summary", ""))
        first = next((p for p in pages if p.group_key == page.group_key), page)
        notes["listed_after_first_page_s"] = round(page.at - first.at, 1)
        reopened = [
            p.at
            for p in pages
            if p.group_key == page.group_key and p.status == "resolved" and p.at < page.at
        ]
        if reopened:
            wrong.append(
                f"broker {broker}'s incident was resolved before it listed group {group}: the "
                "listing opened a second incident"
            )
    own = sorted(
        {
            str(a.get("labels", {}).get("alertname"))
            for p in pages
            for a in p.firing()
            if a.get("labels", {}).get("group") == group
        }
    )
    notes["group_paged_on_its_own"] = own
    if own:
        wrong.append(f"group {group} paged on its own: {', '.join(own)}")
    return notes, wrong
