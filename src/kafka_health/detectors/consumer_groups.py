"""Consumer groups: each round of the poller folded into per-group verdicts and series.

Pure: :meth:`ConsumerGroups.observe` takes a :class:`GroupsRound` (what the poller read every
``interval_s``), :meth:`ConsumerGroups.signals` the current time; no Spark, no Kafka, no I/O.
The rules and their precedence are :mod:`kafka_health.detectors.consumer_verdicts`'.

Series, and their counterparts in the ecosystem's exporters (ours carry the exporter's
``kafka_health_`` prefix):

=================================================  ==============================================
``kafka_health_consumergroup_max_lag_seconds``      kafka-lag-exporter
                                                    ``kafka_consumergroup_group_max_lag_seconds``
``kafka_health_consumergroup_max_lag``              kafka-lag-exporter ``..._group_max_lag``
``kafka_health_consumergroup_sum_lag``              kafka-lag-exporter ``..._group_sum_lag``
``kafka_health_consumergroup_lag_seconds``          kafka-lag-exporter ``..._group_lag_seconds``
``kafka_health_consumergroup_lag``                  kafka-lag-exporter ``..._group_lag``
``kafka_health_consumergroup_members``              kafka_exporter ``kafka_consumergroup_members``
``kafka_health_consumergroup_status``               Burrow's group status, one series (value 1)
                                                    for the current verdict
``kafka_health_..._deleted_unread_records_total``   klag-exporter's fell-behind-retention, counted
=================================================  ==============================================

Per group always (its lag and members left out while it is ``unseen``: unknown, not stale);
per partition only for groups not OK, at most ``max_partition_series`` series in all (the
groups in precedence order, the worst partitions first; the rest counted in
``consumergroup_partition_series_dropped``). At most ``max_groups`` groups are held (new ones
past it, and those the poller left out, ``GroupsRound.over_cap``, counted in
``consumer_groups_dropped``). A group absent from the successful rounds for
``forget_after_s`` leaves the monitor (deleted, or its offsets expired); a failed round makes
none leave. ``consumer_groups_last_round_timestamp`` and ``consumer_groups_round_failing``
show a blind poller; past three intervals without a successful round every group is unseen.

A group held up by a broker (:mod:`kafka_health.detectors.consumer_causes`: its coordinator or
the leader of partitions it waits on unhealthy) has its ``consumergroup_status`` and
``consumergroup_lag_objective_ratio`` series labelled with that ``broker_id`` (the others have
none): it pages in that broker's incident (BrokerHoldsUpConsumerGroups), not on its own. The
broker health is handed in (:meth:`ConsumerGroups.signals`' ``unhealthy``), so the detector
stays pure; the per-group series are computed once per round, the culprits at every call.

A round is folded in two steps, so the board's lock is not held while it is judged:
:meth:`ConsumerGroups.fold` (the costly part: every group's state updated and judged; one
thread folds at a time, the poller's) makes a :class:`Folded`, what the series are made of;
:meth:`ConsumerGroups.install` (under the board's lock) makes it the current one.
:meth:`ConsumerGroups.signals` and :meth:`ConsumerGroups.verdicts` read only the installed
one, never the groups' state the next fold updates.

What is kept from round to round: a group's label set (made once); its partitions' summary
(:class:`~kafka_health.detectors.consumer_verdicts.Scan`) and their named offsets while none
of its offsets changes. Its verdict is judged again every round (stalls, stops, rebalances and
rewinds age with the clock) and its series are made again at every round: each carries the
time of the observation behind it and the status ``for_s``, so none of a group observed again
is the same. (Keeping the series of a group with no new observation, after a failed round,
was measured: at 10,000 groups it cost more in the collector, every round, than it saved.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
    PartitionOffsets,
)
from kafka_health.detectors.consumer_causes import Culprits, Hold
from kafka_health.detectors.consumer_verdicts import PRECEDENCE, GroupTrack, Verdict, judge
from kafka_health.model import LabelSet, Signal, labels

BLIND_INTERVALS = 3.0
"""Intervals without a successful round after which every group is unseen."""
MAX_UNWATCHED_MEMO = 100_000
HELD_SERIES = ("consumergroup_status", "consumergroup_lag_objective_ratio")
"""The series that carry a held group's culprit (``broker_id``)."""


@dataclass(slots=True)
class _Group:
    """One group as its series show it, at the end of a fold (the fold's own state, the
    :class:`GroupTrack`, moves on with the next round)."""

    verdict: Verdict
    since: tuple[str, float]
    """The verdict and since when (epoch seconds of the round that first judged it)."""
    latest: GroupObservation | None
    max_lag_s: float | None
    """``latest.max_lag_s``."""
    deleted_unread_total: int
    lag_objective_s: float
    error: str | None
    misses: int
    partitions: tuple[PartitionOffsets, ...]
    """Its partitions' newest offsets, for a group whose per-partition series are shown
    (neither ok nor unseen); empty for the others."""
    scope: LabelSet
    """``labels(group=...)``, made once per group."""


@dataclass(frozen=True)
class Folded:
    """A round folded (:meth:`ConsumerGroups.fold`), to be installed: every group held, in
    the order they were admitted, and the round's own figures."""

    round: GroupsRound | None
    groups: dict[str, _Group]
    last_ok_ms: int | None
    dropped: int
    forgotten: tuple[str, ...] = ()


_NONE = Folded(None, {}, None, 0)


@dataclass
class _Memo:
    """The per-group series of the installed fold ``view`` (``blind``: as a blind poller's),
    the groups not OK and where each one's :data:`HELD_SERIES` are in ``signals``."""

    view: Folded
    blind: bool
    signals: list[Signal]
    behind: dict[str, Verdict] = field(default_factory=dict)
    held_at: dict[str, list[int]] = field(default_factory=dict)


class ConsumerGroups:
    """Per-group verdicts and series from the poller's rounds."""

    name = "consumer_groups"

    def __init__(self, config: ConsumerGroupsConfig) -> None:
        self.config = config
        # The fold's own state (see the module docstring).
        self._groups: dict[str, GroupTrack] = {}
        self._since: dict[str, tuple[str, float]] = {}
        self._scopes: dict[str, LabelSet] = {}
        self._unwatched: set[str] = set()
        self._dropped = 0
        self._last_ok_ms: int | None = None
        self._forgotten: list[str] = []
        # What the series are made of: the installed fold.
        self._view = _NONE
        self._memo: _Memo | None = None
        self.culprits = Culprits()

    def observe(self, round_: GroupsRound) -> None:
        """Fold one round and install it (:meth:`fold`, then :meth:`install`)."""
        self.install(self.fold(round_))

    def fold(self, round_: GroupsRound) -> Folded:
        """Fold one round: each group's observation, the failed and the missing ones, every
        group judged. Changes nothing :meth:`signals` reads until :meth:`install`; one thread
        folds at a time, and installs each fold in the order they were made."""
        if round_.error is not None:
            for track in self._groups.values():
                track.missed(round_.at_ms, round_.error)
        else:
            self._last_ok_ms = round_.at_ms
            self._fold(round_)
        at = round_.at_ms / 1000
        cfg, since, scopes = self.config, self._since, self._scopes
        groups: dict[str, _Group] = {}
        for group, track in self._groups.items():
            verdict = judge(track, cfg)
            then = since.get(group)
            if then is None or then[0] != verdict.verdict:
                then = since[group] = (verdict.verdict, at)
            shown = verdict.verdict not in ("ok", "unseen")
            parts = tuple(t.offsets for t in track.partitions.values()) if shown else ()
            groups[group] = _Group(verdict, then, track.latest, track.max_lag_s,
                                   track.deleted_unread_total,
                                   track.objective.lag_objective_s, track.error, track.misses,
                                   parts, scopes[group])  # fmt: skip
        forgotten, self._forgotten = tuple(self._forgotten), []
        return Folded(round_, groups, self._last_ok_ms, self._dropped, forgotten)

    def install(self, folded: Folded) -> object:
        """Make ``folded`` what :meth:`signals` and :meth:`verdicts` show (cheap: under the
        board's lock). Returns what it replaces (the fold before and its series): the caller
        lets go of it after the lock, as freeing it costs more than the rest."""
        for group in folded.forgotten:
            self.culprits.forget(group)
        retired = (self._view, self._memo)
        self._view, self._memo = folded, None
        return retired

    def _fold(self, round_: GroupsRound) -> None:
        seen: set[str] = set()
        dropped = 0
        for obs in round_.groups:
            track = self._groups.get(obs.group) or self._admit(obs.group)
            if track is None:
                dropped += obs.group not in self._unwatched
                continue
            seen.add(obs.group)
            if obs.error is not None:
                track.missed(round_.at_ms, obs.error)
                track.absent_since_ms = None
            else:
                track.observe(obs, self.config)
        self._dropped = dropped + round_.over_cap
        forget_ms = round(self.config.forget_after_s * 1000)
        for group, track in list(self._groups.items()):
            if group in seen:
                continue
            track.missed(round_.at_ms, None)
            absent_since = track.absent_since_ms
            if absent_since is not None and round_.at_ms - absent_since > forget_ms:
                self._drop(group)
                self._forgotten.append(group)

    def _admit(self, group: str) -> GroupTrack | None:
        if group in self._unwatched:
            return None
        if not self.config.watched(group):
            if len(self._unwatched) >= MAX_UNWATCHED_MEMO:
                self._unwatched.clear()
            self._unwatched.add(group)
            return None
        if len(self._groups) >= self.config.max_groups:
            return None
        track = GroupTrack(group, self.config.objective(group))
        self._groups[group] = track
        self._scopes[group] = labels(group=group)
        return track

    def _drop(self, group: str) -> None:
        self._groups.pop(group, None)
        self._since.pop(group, None)
        self._scopes.pop(group, None)

    def forget(self, group: str) -> None:
        """The group leaves the monitor now: its state, verdict and series (not while a
        round is being folded)."""
        self._drop(group)
        view = self._view
        if group in view.groups:
            groups = {g: v for g, v in view.groups.items() if g != group}
            self._view = replace(view, groups=groups)
        self._memo = None
        self.culprits.forget(group)

    def groups(self) -> list[str]:
        return sorted(self._view.groups)

    def verdicts(self, now_s: float) -> dict[str, Verdict]:
        """Every group's verdict (a blind poller's groups are unseen), with ``for_s``."""
        view = self._view
        blind = self._blind(view, now_s)
        return {group: _shown(g, blind, now_s) for group, g in view.groups.items()}

    def _blind(self, view: Folded, now_s: float) -> bool:
        if view.last_ok_ms is None:
            return view.round is not None
        return now_s - view.last_ok_ms / 1000 > BLIND_INTERVALS * self.config.interval_s

    def signals(self, now_s: float, unhealthy: Mapping[int, str] | None = None) -> list[Signal]:
        """The rounds' health, the per-group series and the capped per-partition ones.

        ``unhealthy``: broker id -> why, the brokers unhealthy now
        (:func:`~kafka_health.detectors.consumer_causes.unhealthy_brokers`, from the board);
        a group not OK that one of them holds up gets its ``broker_id``."""
        view = self._view
        blind = self._blind(view, now_s)
        memo = self._memo
        if memo is None or memo.view is not view or memo.blind != blind:
            memo = self._memo = self._group_signals(view, blind, now_s)
        holds = self.culprits.update(memo.behind, unhealthy or {}, now_s)
        out = memo.signals
        if holds:
            out = list(out)
            for group, hold in holds.items():
                for i in memo.held_at.get(group, ()):
                    out[i] = _held(out[i], hold, group, memo.behind[group])
        return _round_signals(view) + out

    def _group_signals(self, view: Folded, blind: bool, now_s: float) -> _Memo:
        """Every group's series (:func:`_verdict_at`'s verdict at ``now_s``), then the
        per-partition ones."""
        memo = _Memo(view, blind, [])
        out = memo.signals
        groups = view.groups
        last_s = view.round.at_ms / 1000 if view.round is not None else 0.0
        for group in sorted(groups):
            g = groups[group]
            verdict, d, for_s = _verdict_at(g, blind, now_s)
            name = verdict.verdict
            obs = g.latest
            at = obs.at_ms / 1000 if obs is not None else last_s
            scope = g.scope
            held = [len(out)]  # where its HELD_SERIES are
            out.append(Signal("consumergroup_status", (("group", group), ("verdict", name)),
                               1.0, at, _status_details(group, verdict, d, for_s)))  # fmt: skip
            out.append(Signal("consumergroup_deleted_unread_records_total", scope,
                              float(g.deleted_unread_total), at))  # fmt: skip
            if name != "unseen" and obs is not None:
                out.append(Signal("consumergroup_max_lag", scope, float(d["max_lag"]), at))
                out.append(Signal("consumergroup_sum_lag", scope, float(d["sum_lag"]), at))
                out.append(Signal("consumergroup_members", scope, float(obs.members), at))
                lag_s = g.max_lag_s
                if lag_s is not None:
                    out.append(Signal("consumergroup_max_lag_seconds", scope, lag_s, at))
                    held.append(len(out))
                    out.append(Signal("consumergroup_lag_objective_ratio", scope,
                                      lag_s / g.lag_objective_s, at,
                                      _status_details(group, verdict, d, for_s)))  # fmt: skip
            if name != "ok":
                memo.behind[group] = Verdict(name, {**d, "for_s": for_s}, verdict.holds)
                memo.held_at[group] = held
        out += self._partition_signals(groups if not blind else {}, last_s)
        return memo

    def _partition_signals(self, groups: Mapping[str, _Group], last_s: float) -> list[Signal]:
        budget = self.config.max_partition_series
        dropped = 0
        out: list[Signal] = []
        order = sorted(
            (PRECEDENCE.index(g.verdict.verdict), group)
            for group, g in groups.items()
            if g.verdict.verdict not in ("ok", "unseen")
        )
        for _rank, group in order:
            g = groups[group]
            at = g.latest.at_ms / 1000 if g.latest is not None else 0.0
            parts = sorted(
                (p for p in g.partitions if p.lag is not None),
                key=lambda p: (-(p.lag_s or 0.0), -(p.lag or 0), p.topic, p.partition),
            )
            for p in parts:
                scope = labels(group=group, topic=p.topic, partition=p.partition)
                series = [Signal("consumergroup_lag", scope, float(p.lag or 0), at)]
                if p.lag_s is not None:
                    series.append(Signal("consumergroup_lag_seconds", scope, p.lag_s, at))
                taken = series[: max(0, budget)]
                budget -= len(taken)
                dropped += len(series) - len(taken)
                out += taken
        out.append(Signal("consumergroup_partition_series_dropped", (), float(dropped), last_s))
        return out


def _round_signals(view: Folded) -> list[Signal]:
    out = []
    if view.last_ok_ms is not None:
        at = view.last_ok_ms / 1000
        out.append(Signal("consumer_groups_last_round_timestamp", (), at, at))
    last = view.round
    if last is not None:
        at = last.at_ms / 1000
        failing = 1.0 if last.error is not None else 0.0
        details = {"error": last.error, "duration_s": last.duration_s}
        out.append(Signal("consumer_groups_round_failing", (), failing, at, details))
        out.append(Signal("consumer_groups_dropped", (), float(view.dropped), at))
    return out


def _verdict_at(g: _Group, blind: bool, now_s: float) -> tuple[Verdict, dict[str, Any], float]:
    """The group's verdict (unseen while the poller is ``blind``), its details and how long
    it has held at ``now_s`` (``for_s``, not in the details: the caller adds it)."""
    verdict = g.verdict
    if blind and verdict.verdict != "unseen":
        # what judge(blind=True) makes of the same evidence
        details = {**verdict.details, "last_known": verdict.holds[0], "error": g.error,
                   "misses": g.misses}  # fmt: skip
        verdict = Verdict("unseen", details, ("unseen", *verdict.holds))
    since = g.since
    for_s = now_s - since[1] if since[0] == verdict.verdict else 0.0
    return verdict, verdict.details, for_s


def _shown(g: _Group, blind: bool, now_s: float) -> Verdict:
    verdict, d, for_s = _verdict_at(g, blind, now_s)
    return Verdict(verdict.verdict, {**d, "for_s": for_s}, verdict.holds)


def _held(signal: Signal, hold: Hold, group: str, verdict: Verdict) -> Signal:
    """``signal`` of a group held up by ``hold.broker_id``: labelled with it, and why."""
    scope = labels(**dict(signal.labels), broker_id=hold.broker_id)
    details = {**signal.details, **hold.details(group, verdict)}
    return Signal(signal.name, scope, signal.value, signal.at, details)


def _status_details(
    group: str, verdict: Verdict, d: dict[str, Any], for_s: float
) -> dict[str, Any]:
    """The verdict's evidence ``d`` and ``for_s``, and ``route``: the objective's severity and
    owners' labels, which the alert rules that route by them put on the page."""
    route = {"severity": d.get("severity"), "labels": d.get("labels") or {}}
    return {"group": group, "verdict": verdict.verdict, "holds": list(verdict.holds), **d,
            "for_s": for_s, "route": route}  # fmt: skip
