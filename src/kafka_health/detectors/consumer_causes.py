"""Which broker holds a consumer group up: the cause named once (issue 58, point 5).

A group behind because of a broker (its coordinator down, hung or still loading its
``__consumer_offsets`` partition; the leader of partitions it reads hung or down) is part of
that broker's incident, not an incident of its own: the broker pages anyway
(BrokerNotAnswering, BrokerFailed, CoordinatorLoadStuck), and one page about broker N listing
the groups it holds up replaces one page per group.

How (pure, no I/O; the board hands the broker health in, this module judges nothing else):

- :func:`unhealthy_brokers` reads the board's own broker-health series each evaluation, the
  ones the broker's pages fire on: pings unanswered for over :data:`UNANSWERED_S` (the
  threshold of BrokerNotAnswering), or refused with the metadata's verdict ``crash`` (it pages
  at once); a failure the controller reported (``broker_failures``, BrokerFailed); offsets
  partitions stuck loading (``coordinator_loads_stuck``, CoordinatorLoadStuck). A stale
  source's series are not there: unknown is not unhealthy.
- :class:`Culprits` attributes each group that is not OK to one broker (:class:`Hold`): its
  coordinator when that is unhealthy (without it nothing commits or joins), else the unhealthy
  leader of the most partitions among those it waits on (:func:`cause_now`). A verdict a
  broker can cause (:data:`BROKER_VERDICTS`: stopped, stalled, rebalancing, lagging, or unseen
  with records waiting when last seen) is needed for a new attribution; a rewind or records
  deleted unread are never laid at a broker's door (data loss pages the group's owners, always).
- **Sticky.** Once held by N, a group stays held by N, whatever its coordinator and leaders
  are now, until N has been healthy for :func:`release_after_s` (the group's objective, at
  least :data:`RELEASE_AFTER_MIN_S`): the coordinator moves to another broker within the
  session timeout and the group catches up under it, which must not make the group a page of
  its own. A group that is OK for a while meanwhile (caught up, or not yet over a window) and
  falls behind again is N's still: a failover's rebalances come in waves. Still behind after
  the bound, the group is behind on its own, and released (its own page, to its owners); the
  price is that a fault of the group's own within the bound is listed under N. While N is
  unhealthy a held group stays with N even if another broker becomes its cause too (the
  incident it joined first); once N is healthy, a new culprit takes it.
- **A group already paged on its own keeps its page.** A group behind its objective (verdict
  ``lagging`` among those that hold: ConsumerGroupLagging is pending or firing for it) with no
  broker to blame is its own incident until it is OK again; a broker that turns unhealthy
  afterwards does not take it over, which would resolve its owners' page while the group is
  still behind.

A held group's ``consumergroup_status`` and ``consumergroup_lag_objective_ratio`` series carry
the culprit's ``broker_id`` (:meth:`Hold.details`: why, since when; the owners' labels as
details): ConsumerGroupLagging and ConsumerGroupRebalancing read only the series without one,
BrokerHoldsUpConsumerGroups (by broker_id) the series with one. Not saved with the board's
state (the consumer groups are not either): a restarted job attributes again from what it sees.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_health.detectors.consumer_verdicts import Verdict
from kafka_health.model import Signal

UNANSWERED_S = 5.0
"""Seconds without an answer to the driver's pings after which a broker holds its groups up:
BrokerNotAnswering's threshold (conf/alerts.yaml), so a group joins an incident that pages."""
RELEASE_AFTER_MIN_S = 300.0
"""A held group still behind this long (or its objective, if longer) after its culprit was
last unhealthy is released: behind on its own."""
BROKER_VERDICTS = frozenset({"stopped", "stalled", "rebalancing", "lagging"})
"""The verdicts a broker's fault can cause (besides ``unseen``: see :func:`broker_caused`)."""
MAX_PARTITIONS_NAMED = 5


def unhealthy_brokers(signals: Iterable[Signal]) -> dict[int, str]:
    """Broker id -> why it is unhealthy now, from the board's broker-health series."""
    why: dict[int, list[str]] = {}

    def add(s: Signal, text: str) -> None:
        try:
            broker = int(s.label("broker_id"))
        except ValueError:
            return
        reasons = why.setdefault(broker, [])
        if text not in reasons:
            reasons.append(text)

    for s in signals:
        if s.name == "broker_unanswered_seconds" and s.value > UNANSWERED_S:
            add(s, f"not answering ({s.label('reason')} for {s.value:.0f} s)")
        elif s.name == "broker_shutdown_evidence" and s.label("evidence") == "crash":
            add(s, "down (crashed: its port refuses while it still leads partitions)")
        elif s.name == "broker_failures" and s.value > 0:
            add(s, "failed (the controller saw it fail)")
        elif s.name == "coordinator_loads_stuck" and s.value > 0:
            add(s, f"stuck loading {s.value:.0f} __consumer_offsets partitions")
    return {broker: "; ".join(reasons) for broker, reasons in why.items()}


def release_after_s(verdict: Verdict) -> float:
    """How long after its culprit was last unhealthy a group still behind stays held."""
    objective = verdict.details.get("objective_s")
    if isinstance(objective, int | float):
        return max(RELEASE_AFTER_MIN_S, float(objective))
    return RELEASE_AFTER_MIN_S


def broker_caused(verdict: Verdict) -> bool:
    """Whether the group's verdict is one a broker's fault can cause: stopped, stalled,
    rebalancing or lagging among those that hold; unseen only with records waiting when last
    seen (a group whose coordinator died is unseen: its offsets cannot be read; an idle one,
    nothing unread, is held up by nothing)."""
    if verdict.verdict == "ok":
        return False
    if verdict.verdict == "unseen":
        last = verdict.holds[1:]
        return bool(BROKER_VERDICTS.intersection(last)) or bool(verdict.details.get("max_lag"))
    return bool(BROKER_VERDICTS.intersection(verdict.holds))


def own_breach(verdict: Verdict) -> bool:
    """Behind its objective now, as ConsumerGroupLagging sees it (a time lag is known)."""
    return verdict.verdict != "unseen" and "lagging" in verdict.holds


def cause_now(verdict: Verdict, unhealthy: Mapping[int, str]) -> tuple[int, str] | None:
    """The unhealthy broker holding the group up now, and why: its coordinator first, else the
    unhealthy leader of the most of the partitions it waits on (None: none of them unhealthy).

    The partitions it waits on: those a stall or a stop names (``waiting_partitions``: records
    waiting, committed offset unmoved), else the worst by lag (``worst_partitions``: what
    makes it lag). A broker leading only partitions that keep up holds nothing up."""
    if not unhealthy:
        return None
    d = verdict.details
    coordinator = d.get("coordinator")
    if isinstance(coordinator, int) and coordinator in unhealthy:
        return coordinator, f"its coordinator, broker {coordinator}, is {unhealthy[coordinator]}"
    led: dict[int, list[str]] = {}
    for p in d.get("waiting_partitions") or d.get("worst_partitions") or []:
        leader = p.get("leader") if isinstance(p, Mapping) else None
        if isinstance(leader, int) and leader in unhealthy:
            led.setdefault(leader, []).append(f"{p.get('topic')}/{p.get('partition')}")
    if not led:
        return None
    broker = min(led, key=lambda b: (-len(led[b]), b))
    names = ", ".join(led[broker][:MAX_PARTITIONS_NAMED])
    return broker, f"broker {broker}, the leader of partitions {names}, is {unhealthy[broker]}"


@dataclass
class Hold:
    """A group held up by ``broker_id`` since ``since`` (``why``: coordinator or leader, and
    what is wrong with the broker), its culprit last seen unhealthy at ``last_unhealthy``;
    released ``release_after_s`` after that."""

    broker_id: int
    why: str
    since: float
    last_unhealthy: float
    release_after_s: float = RELEASE_AFTER_MIN_S

    def details(self, group: str, verdict: Verdict) -> dict[str, Any]:
        """What the held group's series add: the culprit, and one line and the owners for the
        broker's page (lists, so the page's details gather every held group)."""
        d = verdict.details
        owners = {"group": group, "severity": d.get("severity"), "labels": d.get("labels") or {}}
        team = ", ".join(f"{k}={v}" for k, v in sorted((d.get("labels") or {}).items()))
        lag_s = d.get("max_lag_s")
        behind = f"{lag_s:.0f} s behind" if isinstance(lag_s, int | float) else "lag unknown"
        if verdict.verdict == "unseen":
            behind += " when last seen"
        objective = d.get("objective_s")
        line = f"{group} ({verdict.verdict}, {behind}"
        if isinstance(objective, int | float):
            line += f", objective {objective:g} s"
        line += f"; {team})" if team else ")"
        return {
            "held_by": {"broker_id": self.broker_id, "why": self.why, "since": self.since},
            "groups_held": [group],
            "held_groups": [f"{line}: {self.why}"],
            "held_owners": [owners],
        }


class Culprits:
    """Each group's culprit, kept from evaluation to evaluation (see the module docstring)."""

    def __init__(self) -> None:
        self._holds: dict[str, Hold] = {}
        self._own: dict[str, float] = {}
        """Groups behind their objective with no broker to blame: their own incident."""

    def update(
        self, behind: Mapping[str, Verdict], unhealthy: Mapping[int, str], now: float
    ) -> dict[str, Hold]:
        """The groups held up now. ``behind``: every group that is not OK (a group absent is
        OK now: its hold is kept, dormant, until released); ``unhealthy``:
        :func:`unhealthy_brokers`."""
        for group, kept in list(self._holds.items()):
            if kept.broker_id in unhealthy:
                kept.last_unhealthy = now
            elif now - kept.last_unhealthy > kept.release_after_s:
                del self._holds[group]
        for group in [g for g in self._own if g not in behind]:
            del self._own[group]
        active: dict[str, Hold] = {}
        for group, verdict in behind.items():
            hold: Hold | None = self._holds.get(group)
            if hold is None or hold.broker_id not in unhealthy:
                cause = cause_now(verdict, unhealthy) if broker_caused(verdict) else None
                if cause is not None and (hold is not None or group not in self._own):
                    hold = Hold(cause[0], cause[1], now, now, release_after_s(verdict))
                    self._holds[group] = hold
            if hold is not None:
                active[group] = hold
            elif own_breach(verdict):
                self._own.setdefault(group, now)
        return active

    def forget(self, group: str) -> None:
        self._holds.pop(group, None)
        self._own.pop(group, None)

    def holds(self) -> dict[str, Hold]:
        """Every hold kept, the dormant ones (groups OK now) included."""
        return dict(self._holds)
