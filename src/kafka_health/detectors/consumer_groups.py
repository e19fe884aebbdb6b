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
``kafka_health_consumergroup_deleted_unread_...``   klag-exporter's fell-behind-retention, counted
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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import GroupsRound
from kafka_health.detectors.consumer_causes import Culprits, Hold
from kafka_health.detectors.consumer_verdicts import PRECEDENCE, GroupTrack, Verdict, judge
from kafka_health.model import Signal, labels

BLIND_INTERVALS = 3.0
"""Intervals without a successful round after which every group is unseen."""
MAX_UNWATCHED_MEMO = 100_000
HELD_SERIES = ("consumergroup_status", "consumergroup_lag_objective_ratio")
"""The series that carry a held group's culprit (``broker_id``)."""


@dataclass
class _Memo:
    """The per-group series of the newest round (``blind``: as a blind poller's), the groups
    not OK and where each one's :data:`HELD_SERIES` are in ``signals``."""

    blind: bool
    signals: list[Signal]
    behind: dict[str, Verdict] = field(default_factory=dict)
    held_at: dict[str, list[int]] = field(default_factory=dict)


class ConsumerGroups:
    """Per-group verdicts and series from the poller's rounds."""

    name = "consumer_groups"

    def __init__(self, config: ConsumerGroupsConfig) -> None:
        self.config = config
        self._groups: dict[str, GroupTrack] = {}
        self._verdicts: dict[str, Verdict] = {}
        self._since: dict[str, tuple[str, float]] = {}
        self._unwatched: set[str] = set()
        self._dropped = 0
        self._last_ok_ms: int | None = None
        self._last_round: GroupsRound | None = None
        self._memo: _Memo | None = None
        self.culprits = Culprits()

    def observe(self, round_: GroupsRound) -> None:
        """Fold one round: each group's observation, the failed and the missing ones."""
        self._memo, self._last_round = None, round_
        if round_.error is not None:
            for track in self._groups.values():
                track.missed(round_.at_ms, round_.error)
        else:
            self._last_ok_ms = round_.at_ms
            self._fold(round_)
        for group, track in self._groups.items():
            self._judged(group, judge(track, self.config), round_.at_ms / 1000)

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
                self.forget(group)

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
        return track

    def _judged(self, group: str, verdict: Verdict, at: float) -> None:
        before = self._since.get(group)
        if before is None or before[0] != verdict.verdict:
            self._since[group] = (verdict.verdict, at)
        self._verdicts[group] = verdict

    def forget(self, group: str) -> None:
        """The group leaves the monitor: its state, verdict and series."""
        self._memo = None
        self._groups.pop(group, None)
        self._verdicts.pop(group, None)
        self._since.pop(group, None)
        self.culprits.forget(group)

    def groups(self) -> list[str]:
        return sorted(self._groups)

    def verdicts(self, now_s: float) -> dict[str, Verdict]:
        """Every group's verdict (a blind poller's groups are unseen), with ``for_s``."""
        blind = self._blind(now_s)
        out = {}
        for group, verdict in self._verdicts.items():
            if blind and verdict.verdict != "unseen":
                verdict = judge(self._groups[group], self.config, blind=True)
            since = self._since[group]
            for_s = now_s - since[1] if since[0] == verdict.verdict else 0.0
            out[group] = Verdict(verdict.verdict, {**verdict.details, "for_s": for_s},
                                 verdict.holds)  # fmt: skip
        return out

    def _blind(self, now_s: float) -> bool:
        if self._last_ok_ms is None:
            return self._last_round is not None
        return now_s - self._last_ok_ms / 1000 > BLIND_INTERVALS * self.config.interval_s

    def signals(self, now_s: float, unhealthy: Mapping[int, str] | None = None) -> list[Signal]:
        """The rounds' health, the per-group series and the capped per-partition ones.

        ``unhealthy``: broker id -> why, the brokers unhealthy now
        (:func:`~kafka_health.detectors.consumer_causes.unhealthy_brokers`, from the board);
        a group not OK that one of them holds up gets its ``broker_id``."""
        blind = self._blind(now_s)
        memo = self._memo
        if memo is None or memo.blind != blind:
            memo = self._memo = self._group_signals(blind, self.verdicts(now_s))
        holds = self.culprits.update(memo.behind, unhealthy or {}, now_s)
        out = memo.signals
        if holds:
            out = list(out)
            for group, hold in holds.items():
                for i in memo.held_at.get(group, ()):
                    out[i] = _held(out[i], hold, group, memo.behind[group])
        return self._round_signals(now_s) + out

    def _round_signals(self, now_s: float) -> list[Signal]:
        out = []
        if self._last_ok_ms is not None:
            at = self._last_ok_ms / 1000
            out.append(Signal("consumer_groups_last_round_timestamp", (), at, at))
        last = self._last_round
        if last is not None:
            at = last.at_ms / 1000
            failing = 1.0 if last.error is not None else 0.0
            details = {"error": last.error, "duration_s": last.duration_s}
            out.append(Signal("consumer_groups_round_failing", (), failing, at, details))
            out.append(Signal("consumer_groups_dropped", (), float(self._dropped), at))
        return out

    def _group_signals(self, blind: bool, verdicts: dict[str, Verdict]) -> _Memo:
        memo = _Memo(blind, [])
        out = memo.signals
        for group in sorted(verdicts):
            verdict = verdicts[group]
            first = len(out)
            out += self._one_group(group, verdict)
            if verdict.verdict != "ok":
                memo.behind[group] = verdict
                memo.held_at[group] = [
                    i for i in range(first, len(out)) if out[i].name in HELD_SERIES
                ]
        out += self._partition_signals(verdicts)
        return memo

    def _one_group(self, group: str, verdict: Verdict) -> list[Signal]:
        track = self._groups[group]
        obs = track.latest
        at = obs.at_ms / 1000 if obs is not None else (self._last_round_s() or 0.0)
        g = labels(group=group)
        out = [
            Signal("consumergroup_status", labels(group=group, verdict=verdict.verdict), 1.0,
                   at, _status_details(group, verdict)),
            Signal("consumergroup_deleted_unread_records", g,
                   float(track.deleted_unread_total), at),
        ]  # fmt: skip
        if verdict.verdict == "unseen" or obs is None:
            return out
        d = verdict.details
        out += [
            Signal("consumergroup_max_lag", g, float(d["max_lag"]), at),
            Signal("consumergroup_sum_lag", g, float(d["sum_lag"]), at),
            Signal("consumergroup_members", g, float(obs.members), at),
        ]
        if obs.max_lag_s is not None:
            out.append(Signal("consumergroup_max_lag_seconds", g, obs.max_lag_s, at))
            objective = track.objective.lag_objective_s
            out.append(Signal("consumergroup_lag_objective_ratio", g, obs.max_lag_s / objective,
                              at, _status_details(group, verdict)))  # fmt: skip
        return out

    def _last_round_s(self) -> float | None:
        return self._last_round.at_ms / 1000 if self._last_round is not None else None

    def _partition_signals(self, verdicts: dict[str, Verdict]) -> list[Signal]:
        budget = self.config.max_partition_series
        dropped = 0
        out: list[Signal] = []
        order = sorted(
            (PRECEDENCE.index(v.verdict), group)
            for group, v in verdicts.items()
            if v.verdict not in ("ok", "unseen")
        )
        for _rank, group in order:
            track = self._groups[group]
            at = track.latest.at_ms / 1000 if track.latest is not None else 0.0
            parts = sorted(
                (t.offsets for t in track.partitions.values() if t.offsets.lag is not None),
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
        out.append(Signal("consumergroup_partition_series_dropped", (), float(dropped),
                          self._last_round_s() or 0.0))  # fmt: skip
        return out


def _held(signal: Signal, hold: Hold, group: str, verdict: Verdict) -> Signal:
    """``signal`` of a group held up by ``hold.broker_id``: labelled with it, and why."""
    scope = labels(**dict(signal.labels), broker_id=hold.broker_id)
    details = {**signal.details, **hold.details(group, verdict)}
    return Signal(signal.name, scope, signal.value, signal.at, details)


def _status_details(group: str, verdict: Verdict) -> dict[str, Any]:
    """The verdict's evidence, and ``route``: the objective's severity and owners' labels,
    which the alert rules that route by them put on the page."""
    d = verdict.details
    route = {"severity": d.get("severity"), "labels": d.get("labels") or {}}
    return {"group": group, "verdict": verdict.verdict, "holds": list(verdict.holds), **d,
            "route": route}  # fmt: skip
