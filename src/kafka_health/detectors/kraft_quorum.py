"""The KRaft controller quorum, from the controllers' own logs: who leads the metadata log
epoch by epoch, whether it has a leader at all, and brokers that keep losing their sessions.

KRaft's timeouts (Kafka 3.x-4.x defaults): a follower of the quorum's leader that has not
fetched from it for ``controller.quorum.fetch.timeout.ms`` (2 s) stands for election (4.x: asks
the others first, KIP-996 pre-vote); a vote lasts ``controller.quorum.election.timeout.ms``
(1 s, drawn between 1 and 2 s each round) and a lost one is retried after a backoff of up to
``controller.quorum.election.backoff.max.ms`` (1 s); a leader that has not heard from a
majority for 1.5 fetch timeouts (3 s) resigns (check-quorum). The active controller fences a
broker whose heartbeats (every ``broker.heartbeat.interval.ms``, 2 s) stopped for
``broker.session.timeout.ms`` (9 s). So a dead or paused active controller is replaced in 2-4 s
(one election: a new epoch with a leader), and a broker that lost its session is fenced 9 s
after its last heartbeat and unfenced at its next one.

What the logs say (``parsing/patterns.py``), each line about one epoch of the quorum:

- ``quorum_leader``: a node learned (or won) the leader of an epoch: a standby controller's
  "In the new epoch E, the leader is L.", the winner's Raft "Completed transition to
  Leader(... epoch=E". ``controller_change`` ("Becoming the active controller") is read by
  :class:`~kafka_health.detectors.controller.ActiveController`, not here: it is also
  ZooKeeper's controller election, which is no quorum.
- ``quorum_no_leader``: an epoch began without a leader (a vote is under way): "In the new
  epoch E, the leader is (none).", a Raft "Completed transition to CandidateState(... epoch=E".
- ``controller_resigned``: the active controller gave the leadership up ("Renouncing ...", the
  leader's check-quorum "Did not receive fetch request from the majority of the voters").
- ``quorum_election_timeout``: a vote (or a 4.x pre-vote) got too few answers in time.

Signals:

- ``kraft_controller_elections``: epochs that got a leader within the last
  :data:`CHURN_WINDOW_S` of the logs (the active controller moving). One fault is one
  election; more than three in five minutes (KRaftControllerUnstable) is a leadership that
  does not hold: a controller pausing past the fetch timeout (GC), the network between the
  voters, a metadata log disk too slow to fsync, an overloaded controller.
- ``kraft_leaderless_seconds``: how long the quorum has had no leader, 0 while it has one.
  A stretch without a leader begins at the first of: a ``quorum_no_leader`` at an epoch above
  the newest one with a leader; the resignation of that epoch's leader; two election timeouts
  after the leader was last confirmed (a 4.x voter whose leader died keeps it as its leader
  while its pre-votes time out: it never bumps the epoch). It ends at a leader of a newer
  epoch, or when no such evidence has come for :data:`EVIDENCE_FRESH_S` (the voters fell
  silent: their own pages, LogStreamSilent, say so). The seconds are counted in the logs'
  time (the newest record read) and not beyond the time since the job first saw the stretch:
  a backlog's old stretch is not a page before its end is read. A healthy failover shows
  milliseconds to 2 s of it; KRaftNoActiveController pages past 10 s (several failed rounds,
  and longer than a broker session).
- ``kraft_broker_fencings`` per broker: the times it was fenced (``broker_failure`` from the
  active controller: "Fencing broker N ... session has timed out") and unfenced again
  (``broker_unfenced``) without restarting in between (``broker_starting``: a restart is its
  own page, BrokerNotAnswering) within :data:`STORM_WINDOW_S`. A fence-unfence cycle takes at
  least a session (9 s) and a heartbeat (2 s); one fault (a pause, a network blip) is one
  cycle, three in five minutes (KRaftBrokerFencingStorm) is a broker that keeps losing its
  session.

The cluster-wide signals list the voters seen (the nodes that logged quorum lines, and the
leaders they named) as the replicas of ``__cluster_metadata-0`` in their details: the
partition the quorum replicates, and how an inhibit rule (``hosted``) knows that a dead broker
is a voter whose death explains the quorum's trouble.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka_health.detectors.inputs import Batch, LogEvent
from kafka_health.model import Signal, labels

LEADER_EVENT = "quorum_leader"
NO_LEADER_EVENT = "quorum_no_leader"
RESIGNED_EVENT = "controller_resigned"
TIMEOUT_EVENT = "quorum_election_timeout"
FENCED_EVENT = "broker_failure"
UNFENCED_EVENT = "broker_unfenced"
STARTING_EVENT = "broker_starting"
QUORUM_EVENTS = (LEADER_EVENT, NO_LEADER_EVENT, RESIGNED_EVENT, TIMEOUT_EVENT)
KRAFT_EVENTS = (*QUORUM_EVENTS, UNFENCED_EVENT, STARTING_EVENT)
"""The event types this detector adds to the job's detected ones (``broker_failure`` is read
by the broker failures already)."""

CHURN_WINDOW_S = 300.0
"""Elections are counted over this much of the logs' time."""
STORM_WINDOW_S = 300.0
"""Fence-unfence cycles of a broker are counted over this much of the logs' time."""
EVIDENCE_FRESH_S = 30.0
"""A stretch without a leader holds while its newest evidence is this recent (a vote round
with its backoff takes 1-3 s: this is many rounds)."""
TIMEOUTS_TO_START = 2
"""Election timeouts after the leader was last confirmed that begin a stretch without one (a
single one is a split vote)."""
RESTART_LEAD_S = 60.0
"""With no earlier unfence of the broker known, its start this long before the fence still
makes the cycle a restart (it starts, then registers a new incarnation, then is unfenced)."""
MAX_EPOCH_JUMP = 1_000_000
"""An epoch this far above the newest known one is a mutated line, not an election."""
MAX_EPOCHS = 64
MAX_VOTERS = 16
MAX_KEPT = 256
"""Election timeouts, resignations and each broker's fences, unfences and starts kept."""
MAX_LISTED = 10
METADATA_TOPIC = "__cluster_metadata"


@dataclass
class _Epoch:
    leader: str | None = None
    leader_ms: int | None = None  # its first leader claim
    confirmed_ms: int | None = None  # its newest leader claim
    no_leader_ms: int | None = None  # its first "no leader" claim
    no_leader_last_ms: int | None = None
    by: set[str] = field(default_factory=set)  # the nodes that logged "no leader"


@dataclass(frozen=True)
class Leaderless:
    """A stretch without a leader: since when, the newest evidence, and what it is."""

    since_ms: int
    newest_ms: int
    evidence: list[str]
    timeouts: int
    timeouts_by: list[str]


class KRaftQuorum:
    name = "kraft_quorum"

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._epochs: dict[int, _Epoch] = {}
        self._resigns: list[tuple[int, str, int | None]] = []  # (ms, node, epoch it led)
        self._timeouts: list[tuple[int, str]] = []  # (ms, node)
        self._voters: dict[str, int] = {}  # node -> its newest quorum line (ms)
        self._fences: dict[str, list[int]] = {}
        self._unfences: dict[str, list[int]] = {}
        self._starts: dict[str, list[int]] = {}
        self._log_ms = 0  # the logs' clock: the newest event or shipped record
        self._armed: tuple[int, float] | None = None  # (stretch start, wall time first seen)

    # ------------------------------------------------------------------ folding

    def fold(self, batch: Batch, now: float) -> None:
        if batch.log_shipped_ms is not None:
            self._log_ms = max(self._log_ms, batch.log_shipped_ms)
        for e in batch.events:
            if e.event_ms is not None:
                self._log_ms = max(self._log_ms, e.event_ms)
        for e in batch.events:
            if e.type in KRAFT_EVENTS or e.type == FENCED_EVENT:
                self._take(e, e.event_ms if e.event_ms is not None else self._log_ms)
        self._forget()
        stretch = self.leaderless()
        if stretch is None:
            self._armed = None
        elif self._armed is None or self._armed[0] != stretch.since_ms:
            self._armed = (stretch.since_ms, now)

    def _take(self, e: LogEvent, at: int) -> None:
        node = e.broker_id
        subject = None if e.subject_broker_id is None else str(e.subject_broker_id)
        if e.type in (FENCED_EVENT, UNFENCED_EVENT, STARTING_EVENT):
            broker = subject or node
            if broker is not None:
                kept = {FENCED_EVENT: self._fences, UNFENCED_EVENT: self._unfences,
                        STARTING_EVENT: self._starts}[e.type]  # fmt: skip
                _append(kept.setdefault(broker, []), at)
            return
        if e.type == LEADER_EVENT:
            leader = subject or node
            if leader is None or not self._believable(e.leader_epoch):
                return
            assert e.leader_epoch is not None
            epoch = self._epoch(e.leader_epoch)
            if epoch.leader_ms is None or at < epoch.leader_ms:
                epoch.leader, epoch.leader_ms = leader, at
            epoch.confirmed_ms = max(epoch.confirmed_ms or at, at)
            self._voter(leader, at)
            self._voter(node, at)
        elif e.type == NO_LEADER_EVENT:
            if not self._believable(e.leader_epoch):
                return
            assert e.leader_epoch is not None
            epoch = self._epoch(e.leader_epoch)
            epoch.no_leader_ms = min(epoch.no_leader_ms or at, at)
            epoch.no_leader_last_ms = max(epoch.no_leader_last_ms or at, at)
            for who in (subject, node):
                if who is not None and len(epoch.by) < MAX_VOTERS:
                    epoch.by.add(who)
            self._voter(subject, at)
            self._voter(node, at)
        elif e.type == RESIGNED_EVENT:
            who = subject or node
            if who is None:
                return
            _append(self._resigns, (at, who, e.leader_epoch))
            self._voter(who, at)
        elif e.type == TIMEOUT_EVENT:
            who = subject or node
            if who is None:
                return
            _append(self._timeouts, (at, who))
            self._voter(who, at)

    def _believable(self, epoch: int | None) -> bool:
        if epoch is None or epoch < 0:
            return False
        return not self._epochs or epoch <= max(self._epochs) + MAX_EPOCH_JUMP

    def _epoch(self, epoch: int) -> _Epoch:
        found = self._epochs.get(epoch)
        if found is None:
            found = self._epochs[epoch] = _Epoch()
            for old in sorted(self._epochs)[:-MAX_EPOCHS]:
                del self._epochs[old]
        return found

    def _voter(self, node: str | None, at: int) -> None:
        if node is None:
            return
        self._voters[node] = max(self._voters.get(node, at), at)
        if len(self._voters) > MAX_VOTERS:
            oldest = min(self._voters, key=lambda n: self._voters[n])
            del self._voters[oldest]

    def _forget(self) -> None:
        """What is older than every window (and the evidence's freshness) leaves."""
        keep_from = self._log_ms - round(
            1000 * (max(CHURN_WINDOW_S, STORM_WINDOW_S) + RESTART_LEAD_S + EVIDENCE_FRESH_S)
        )
        self._resigns = [r for r in self._resigns if r[0] >= keep_from]
        self._timeouts = [t for t in self._timeouts if t[0] >= keep_from]
        for kept in (self._fences, self._unfences, self._starts):
            for broker in list(kept):
                kept[broker] = [ms for ms in kept[broker] if ms >= keep_from]
                if not kept[broker]:
                    del kept[broker]

    # ------------------------------------------------------------------ the quorum now

    def _led(self) -> tuple[int, _Epoch] | None:
        """The newest epoch with a leader."""
        led = [n for n, ep in self._epochs.items() if ep.leader is not None]
        return (max(led), self._epochs[max(led)]) if led else None

    def leaderless(self) -> Leaderless | None:
        """The stretch without a leader the logs show now, or None."""
        led = self._led()
        lead_epoch, lead = led if led is not None else (-1, None)
        confirmed = (lead.confirmed_ms or 0) if lead is not None else 0
        starts: list[int] = []
        newest: list[int] = []
        evidence: list[str] = []
        for n in sorted(k for k in self._epochs if k > lead_epoch):
            ep = self._epochs[n]
            if ep.no_leader_ms is None:
                continue
            starts.append(ep.no_leader_ms)
            newest.append(ep.no_leader_last_ms or ep.no_leader_ms)
            who = ", ".join(f"controller {b}" for b in sorted(ep.by)) or "a controller"
            evidence.append(f"no leader at epoch {n} ({who})")
        for at, who, epoch in self._resigns:
            if lead is None or at < confirmed:
                continue
            if epoch == lead_epoch or (epoch is None and who == lead.leader):
                starts.append(at)
                newest.append(at)
                evidence.append(f"controller {who} resigned the leadership of epoch {lead_epoch}")
        late = [(at, who) for at, who in self._timeouts if at > confirmed]
        if len(late) >= TIMEOUTS_TO_START:
            starts.append(late[0][0])
            newest.append(late[-1][0])
        by = sorted({who for _, who in late})
        if late:
            evidence.append(
                f"{len(late)} election(s) timed out on " + ", ".join(f"controller {b}" for b in by)
            )
        if not starts or self._log_ms - max(newest) > EVIDENCE_FRESH_S * 1000:
            return None
        since = max(min(starts), confirmed)
        return Leaderless(since, max(newest), evidence[:MAX_LISTED], len(late), by)

    def elections(self) -> list[tuple[int, str, int]]:
        """(epoch, leader, first seen ms) of the epochs that got a leader in the window."""
        start = self._log_ms - round(CHURN_WINDOW_S * 1000)
        return sorted(
            (n, ep.leader, ep.leader_ms)
            for n, ep in self._epochs.items()
            if ep.leader is not None and ep.leader_ms is not None and ep.leader_ms > start
        )

    def cycles(self, broker: str) -> list[tuple[int, int]]:
        """(fenced, unfenced) ms of the broker's cycles without a restart, unfenced in the
        window."""
        fences = sorted(self._fences.get(broker, []))
        starts = sorted(self._starts.get(broker, []))
        start = self._log_ms - round(STORM_WINDOW_S * 1000)
        found, previous = [], None
        for unfenced in sorted(self._unfences.get(broker, [])):
            low = previous if previous is not None else -1
            fenced = [f for f in fences if low < f <= unfenced]
            previous = unfenced
            if not fenced or unfenced <= start:
                continue
            since = low if low >= 0 else fenced[0] - round(RESTART_LEAD_S * 1000)
            if any(since < s <= unfenced for s in starts):
                continue  # it restarted: a new incarnation, not a lost session
            found.append((fenced[0], unfenced))
        return found

    # ------------------------------------------------------------------ signals

    def signals(self, now: float) -> list[Signal]:
        out: list[Signal] = []
        if self._voters:
            voters = sorted(self._voters, key=_node_order)
            quorum = {
                "voters": voters,
                "partitions": [{"topic": METADATA_TOPIC, "partition": 0,
                                "replicas": [int(v) for v in voters if v.isdigit()]}],
            }  # fmt: skip
            out.append(self._churn(now, quorum))
            out.append(self._leaderless(now, quorum))
        out += self._storms(now)
        return out

    def _churn(self, now: float, quorum: dict[str, Any]) -> Signal:
        won = self.elections()
        moves, previous = [], self._leader_before(won[0][0] if won else None)
        for epoch, leader, _ in won:
            moves.append(f"{previous or '?'} -> {leader} (epoch {epoch})")
            previous = leader
        start = self._log_ms - round(CHURN_WINDOW_S * 1000)
        votes = sum(1 for n, ep in self._epochs.items()
                    if ep.no_leader_ms is not None and ep.no_leader_ms > start)  # fmt: skip
        timeouts = sum(1 for at, _ in self._timeouts if at > start)
        resigned = sorted({who for at, who, _ in self._resigns if at > start}, key=_node_order)
        detail = {
            **quorum,
            "window_s": CHURN_WINDOW_S,
            "elections": [
                {"epoch": n, "leader": lead, "at": ms / 1000.0} for n, lead, ms in won[-MAX_LISTED:]
            ],
            "moves": ", ".join(moves[-MAX_LISTED:]) or "none",
            "leaders": ", ".join(dict.fromkeys(lead for _, lead, _ in won)) or "none",
            "votes_without_leader": votes,
            "election_timeouts": timeouts,
            "resigned": ", ".join(resigned) or "none",
        }
        return Signal("kraft_controller_elections", labels(), float(len(won)), now, detail)

    def _leader_before(self, epoch: int | None) -> str | None:
        if epoch is None:
            return None
        before = [n for n, ep in self._epochs.items() if n < epoch and ep.leader is not None]
        return self._epochs[max(before)].leader if before else None

    def _leaderless(self, now: float, quorum: dict[str, Any]) -> Signal:
        led = self._led()
        last = {
            "last_leader": led[1].leader if led else "unknown",
            "last_epoch": led[0] if led else -1,
        }
        stretch = self.leaderless()
        if stretch is None:
            return Signal("kraft_leaderless_seconds", labels(), 0.0, now,
                          {**quorum, **last, "state": "leader"})  # fmt: skip
        # in the logs' time, and not longer than the job has seen it (not yet folded: 0)
        seen_at = self._armed[1] if self._armed and self._armed[0] == stretch.since_ms else now
        seconds = min((self._log_ms - stretch.since_ms) / 1000.0, now - seen_at)
        seconds = max(0.0, seconds)
        if len(stretch.timeouts_by) == 1 and not any(
            e.startswith("no leader") for e in stretch.evidence
        ):
            cause = (
                f"only controller {stretch.timeouts_by[0]} reports failed elections: it cannot "
                "reach a majority of the voters (cut off, or the others are down); the others "
                "may still have a leader"
            )
        else:
            cause = (
                "no majority of the voters elects a leader: voters down or paused, the network "
                "between them, or their votes split"
            )
        detail = {
            **quorum,
            **last,
            "state": "no_leader",
            "since": stretch.since_ms / 1000.0,
            "evidence": "; ".join(stretch.evidence),
            "election_timeouts": stretch.timeouts,
            "cause": cause,
        }
        return Signal("kraft_leaderless_seconds", labels(), seconds, now, detail)

    def _storms(self, now: float) -> list[Signal]:
        found = {b: c for b in sorted(self._unfences, key=_node_order) if (c := self.cycles(b))}
        out = []
        for broker, cycles in found.items():
            detail = {
                "window_s": STORM_WINDOW_S,
                "cycles": [
                    {"fenced_at": f / 1000.0, "unfenced_at": u / 1000.0}
                    for f, u in cycles[-MAX_LISTED:]
                ],
                "flapping_brokers": ", ".join(found),
                "others_flapping": len(found) - 1,
            }
            out.append(Signal("kraft_broker_fencings", labels(broker_id=broker),
                              float(len(cycles)), now, detail))  # fmt: skip
        return out

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        return {
            "epochs": {
                str(n): [ep.leader, ep.leader_ms, ep.confirmed_ms, ep.no_leader_ms,
                         ep.no_leader_last_ms, sorted(ep.by)]
                for n, ep in self._epochs.items()
            },
            "resigns": [list(r) for r in self._resigns],
            "timeouts": [list(t) for t in self._timeouts],
            "voters": dict(self._voters),
            "fences": {b: list(v) for b, v in self._fences.items()},
            "unfences": {b: list(v) for b, v in self._unfences.items()},
            "starts": {b: list(v) for b, v in self._starts.items()},
            "log_ms": self._log_ms,
            "armed": None if self._armed is None else list(self._armed),
        }  # fmt: skip

    def restore(self, state: dict[str, Any]) -> None:
        self._reset()
        for n, v in state.get("epochs", {}).items():
            leader, leader_ms, confirmed, none_ms, none_last, by = v
            self._epochs[int(n)] = _Epoch(
                None if leader is None else str(leader), _int(leader_ms), _int(confirmed),
                _int(none_ms), _int(none_last), {str(b) for b in by},
            )  # fmt: skip
        self._resigns = [(int(ms), str(who), _int(ep)) for ms, who, ep in state.get("resigns", [])]
        self._timeouts = [(int(ms), str(who)) for ms, who in state.get("timeouts", [])]
        self._voters = {str(n): int(ms) for n, ms in state.get("voters", {}).items()}
        for key, kept in (("fences", self._fences), ("unfences", self._unfences),
                          ("starts", self._starts)):  # fmt: skip
            for b, v in state.get(key, {}).items():
                kept[str(b)] = [int(ms) for ms in v]
        self._log_ms = int(state.get("log_ms", 0))
        armed = state.get("armed")
        self._armed = None if armed is None else (int(armed[0]), float(armed[1]))


def _append(kept: list[Any], item: Any) -> None:
    kept.append(item)
    kept.sort()
    del kept[:-MAX_KEPT]


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _node_order(node: str) -> tuple[int, str]:
    return (int(node), node) if node.isdigit() else (1 << 62, node)
