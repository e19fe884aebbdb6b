"""The driver's view of the cluster's health: the detectors' facade.

The job folds each micro-batch into every detector once (:meth:`SignalBoard.fold`, keyed by
the batch id, so a batch Spark replays after a crash changes nothing); the alert service and
the exporter read :meth:`SignalBoard.signals`, which every detector evaluates at the current
time, so silences show on the driver's tick with no new data. :meth:`state` / :meth:`restore`
carry the whole state with the batch id it includes. No Spark import.

The board also keeps the cluster's :class:`~kafka_health.detectors.inventory.Inventory` (which
brokers are registered or hold replicas, which partitions the canary topic has, from the
prober's snapshots and the driver's listing) and, after each fold and listing, prunes every
detector that keeps per-broker, per-partition or per-stream state against it
(``prune(inventory, now)``): a subject gone from the cluster, and not seen for
``job.inventory_ttl_s``, leaves the detectors, so its series leave the snapshot the job
publishes and their alerts resolve.

At each :meth:`SignalBoard.signals` the board also names the brokers unhealthy now, from the
series their own pages fire on (pings unanswered, a failure the controller saw, offsets
partitions stuck loading: :func:`~kafka_health.detectors.consumer_causes.unhealthy_brokers`),
and hands them to the consumer-group detector, which stays pure: a group such a broker holds
up (its coordinator, or the leader of partitions it waits on) is paged in that broker's
incident, not on its own.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from kafka_health.config import MonitorConfig
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import GroupsRound
from kafka_health.detectors.broker_failures import BrokerFailures
from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.consumer_causes import unhealthy_brokers
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.detectors.controller import ActiveController
from kafka_health.detectors.coverage import LOGGED_KINDS, Coverage
from kafka_health.detectors.elections import Elections, distinct_elections
from kafka_health.detectors.gc import Gc
from kafka_health.detectors.incidents import INCIDENT_SIGNALS, Incidents
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.inventory import Inventory
from kafka_health.detectors.isr import MAX_LISTED, Isr
from kafka_health.detectors.kraft_quorum import KRaftQuorum
from kafka_health.detectors.log_dirs import LogDirs
from kafka_health.detectors.logwindow import shipping_clock
from kafka_health.detectors.loss import Loss
from kafka_health.detectors.reachability import Reachability
from kafka_health.detectors.transport import TransportReachability
from kafka_health.detectors.windows import current_window_end_ms
from kafka_health.detectors.write_path import WritePath
from kafka_health.kafka_config import TopicsConfig
from kafka_health.model import SIGNAL_SOURCE, Signal, labels
from kafka_health.reachability.config import ReachabilityConfig
from kafka_health.reachability.ping import Address, Ping
from kafka_health.reachability.shutdown_evidence import Evidence

__all__ = ["INCIDENT_SIGNALS", "LOGGED_KINDS", "MAX_LISTED", "SignalBoard", "distinct_elections"]


def stale_after(config: MonitorConfig) -> dict[str, float]:
    """Seconds after its newest observation each source is stale: ``job.stale_after_s``, or two
    trigger intervals (the job reads each source once per trigger) plus three of the source's
    own intervals (a canary probe per second, a cluster-state snapshot every 10 s), at least
    :data:`STALE_AFTER_MIN_S`."""
    job = config.job
    auto = {
        "canary": max(STALE_AFTER_MIN_S,
                      2 * job.trigger_interval_s + 3 * config.canary.interval_s),
        "cluster_state": max(STALE_AFTER_MIN_S,
                             2 * job.trigger_interval_s + 3 * config.cluster_state.interval_s),
        "canary_topic": CANARY_TOPIC_STALE_AFTER_S,
        "reachability": reachability_stale_after(config.reachability),
        "transport_reachability": reachability_stale_after(config.reachability),
        "consumer_groups": consumer_groups_stale_after(config.consumer_groups),
    }  # fmt: skip
    return {**auto, **job.stale_after_s}


def consumer_groups_stale_after(settings: ConsumerGroupsConfig) -> float:
    """A round every interval, each bounded by its requests' timeouts: three rounds missed (at
    least :data:`STALE_AFTER_MIN_S`) and the driver cannot see the consumer groups."""
    return max(STALE_AFTER_MIN_S, 3 * settings.interval_s + 2 * settings.request_timeout_s)


def reachability_stale_after(settings: ReachabilityConfig) -> float:
    """The job's own pings arrive every interval, each within its deadline: three rounds
    missed (at least 10 s) and the pinger is not working."""
    return max(10.0, 3 * settings.interval_s + 2 * settings.deadline_s)


STALE_AFTER_MIN_S = 20.0
"""A batch takes 3-4 s on 2 cores at idle, more under load: a short trigger alone must not
make a source look stale."""

CANARY_TOPIC_STALE_AFTER_S = 120.0
"""The canary topic is read from the monitored cluster: a dead or hung leader holds its reads
back until the leadership moves (tens of seconds, measured). Only the loss verdicts wait on
it, so it is called stale (and pages MonitorBlind, unless a broker fault explains it) late."""

MONITOR_QUERY = "monitor"
CANARY_QUERY = "canary"
SOURCE_QUERY: dict[str, str | None] = {
    "canary": MONITOR_QUERY, "cluster_state": MONITOR_QUERY, "canary_topic": CANARY_QUERY,
    "reachability": None, "transport_reachability": None, "consumer_groups": None,
}  # fmt: skip
"""The query that reads each source (none: the driver's own pings, no batch's delay)."""
MAX_READ_LAG_S = 60.0
"""At most this much of a batch's own time is forgiven when judging staleness."""
PROBE_READERS = ("loss",)
"""The detectors a batch of the canary query (probes read back from the canary topic) is
folded into; the other detectors never see those batches."""


class Detector(Protocol):
    name: str

    def fold(self, batch: Batch, now: float) -> None: ...

    def signals(self, now: float) -> list[Signal]: ...

    def state(self) -> dict[str, Any]: ...

    def restore(self, state: dict[str, Any]) -> None: ...


class Pruned(Protocol):
    """A detector whose per-broker, per-partition or per-stream state follows the cluster."""

    def prune(self, inventory: Inventory, now: float) -> bool: ...


class SignalBoard:
    """Current signals from the detectors' state.

    While ``live`` (the job runs on the wall clock, not over what the topics already hold), a
    source (the canary's results, the prober's snapshots) whose newest observation is older
    than its ``stale_after`` is stale: its values are left out (unknown, not repeated) and
    ``signal_stale`` / ``signal_age_seconds`` say so. A replay of past records is not stale.
    The time the job itself took to read and fold the last batch of the source's query (from
    the previous batch's fold, or the query's start) is added to ``stale_after``: the first
    batch after a start takes ~20 s here, and its records are that old when it is folded,
    which is the job's delay (MonitorStalled), not the source's (seen: MonitorBlind for the
    canary at every start of the fault suite). A process counts a source's age from no
    earlier than its query's first start: the first batch of a restarted job can be a replay
    planned before the restart, holding records as old as the process's downtime (seen:
    MonitorBlind after the fault suite's monitor-kill).
    """

    def __init__(
        self,
        job: JobConfig,
        clock: Callable[[], float] = time.time,
        stale_after: dict[str, float] | None = None,
        live: bool = False,
        reachability: ReachabilityConfig | None = None,
        transport: list[str] | None = None,
        canary_topic: str = TopicsConfig.canary,
        consumer_groups: ConsumerGroupsConfig | None = None,
    ) -> None:
        """``consumer_groups``: watch them (the driver's poller hands its rounds to
        :meth:`groups_polled`); None: not watched."""
        self.live = live
        settings = reachability or ReachabilityConfig()
        pings_stale_after = reachability_stale_after(settings)
        self._stale_after = stale_after or {
            "canary": 2 * job.trigger_interval_s + 3.0,
            "cluster_state": 2 * job.trigger_interval_s + 30.0,
            "canary_topic": CANARY_TOPIC_STALE_AFTER_S,
            "reachability": pings_stale_after,
            "transport_reachability": pings_stale_after,
            "consumer_groups": consumer_groups_stale_after(
                consumer_groups or ConsumerGroupsConfig()
            ),
            **job.stale_after_s,
        }
        # source -> epoch seconds of the newest observation from it; not saved with the state:
        # a restarted job judges staleness from what it sees again (no blindness page for the
        # seconds it was down, which its restart already explains)
        self._observed: dict[str, float] = {}
        self._reading_since: dict[str, float] = {}  # query -> start of its current batch's read
        self._first_start: dict[str, float] = {}  # query -> when this process first started it
        self._read_lag: dict[str, float] = {}  # query -> seconds its last batch took to fold
        self._job = job
        self._clock = clock
        self._lock = threading.Lock()
        self._groups_folding = threading.Lock()  # one round folded at a time, in order
        self.write_path = WritePath(job)
        self.loss = Loss(job, canary_topic)
        self.isr = Isr(job)
        self.reachability = Reachability(reachability)
        self.coverage = Coverage(job, canary_topic)
        self.broker_failures = BrokerFailures(job)
        self.gc = Gc(job)
        self.log_dirs = LogDirs()
        self.kraft_quorum = KRaftQuorum()
        self.detectors: list[Detector] = [
            self.write_path, self.loss, self.isr, Elections(job), self.gc, Incidents(job),
            self.broker_failures, self.coverage, self.reachability, self.log_dirs,
            self.kraft_quorum,
        ]  # fmt: skip
        # What the cluster still has (brokers, the canary topic's partitions), and the
        # detectors whose state is pruned against it. The write path, ISR views, elections,
        # incidents, GC pauses and the KRaft quorum hold windows or snapshot views that expire
        # on their own.
        # With no prober, a broker the listing lost is gone only after forget_after_s: only
        # a snapshot tells a dead broker that still holds replicas.
        self.inventory = Inventory(job.inventory_ttl_s, settings.forget_after_s, [canary_topic])
        self._pruned: list[Pruned] = [
            self.coverage, self.loss, self.broker_failures, self.gc, self.log_dirs,
        ]  # fmt: skip
        # A separate transport's brokers, pinged as the monitored ones are.
        self.transport = TransportReachability(transport, reachability) if transport else None
        if self.transport is not None:
            self.detectors.append(self.transport)
        self.consumer_groups = ConsumerGroups(consumer_groups) if consumer_groups else None
        # Before any detector: a controller's reports count only while it is the active one.
        self.controller = ActiveController()
        self.batch_ids: dict[str, int] = {}  # query -> the last batch of it folded in

    @property
    def batch_id(self) -> int:
        """The last batch of the monitor query folded in (-1: none)."""
        return self.last_batch(MONITOR_QUERY)

    def last_batch(self, query: str) -> int:
        with self._lock:
            return self.batch_ids.get(query, -1)

    def query_started(self, query: str) -> None:
        """``query`` (re)started: its next batch reads from now on."""
        with self._lock:
            self._reading_since[query] = self._clock()
            self._first_start.setdefault(query, self._reading_since[query])

    def forget_batches(self, query: str) -> None:
        """The query starts over from batch 0 (its checkpoint is new): no batch is a replay."""
        with self._lock:
            self.batch_ids.pop(query, None)

    def fold(
        self, batch_id: int, batch: Batch, now: float | None = None, query: str = MONITOR_QUERY
    ) -> bool:
        """Fold batch ``batch_id`` of ``query`` into its detectors (every detector for the
        monitor query, :data:`PROBE_READERS` for the canary query); False (and no change) when
        it was folded in already."""
        at = self._clock() if now is None else now
        with self._lock:
            if batch_id <= self.batch_ids.get(query, -1):
                return False
            if batch.events:
                batch = dataclasses.replace(batch, events=self.controller.trusted(batch.events))
            if batch.log_shipped_ms is not None:
                clock = shipping_clock(batch.log_shipped_ms, self._job)
                batch = dataclasses.replace(batch, events=[*batch.events, clock])
            for detector in self.detectors:
                if query == MONITOR_QUERY or detector.name in PROBE_READERS:
                    detector.fold(batch, at)
            if query == MONITOR_QUERY:
                self.inventory.observe(batch.cluster)
                self._prune(at)
            self._observe_batch(batch)
            self.batch_ids[query] = batch_id
            if query in self._reading_since:
                lag = at - self._reading_since[query]
                self._read_lag[query] = min(max(0.0, lag), MAX_READ_LAG_S)
            self._reading_since[query] = at
            return True

    # ------------------------------------------------------------------ the driver's pings

    def listed(self, brokers: dict[int, Address], now: float) -> None:
        """The brokers the metadata lists (from the driver's
        :class:`~kafka_health.reachability.pinger.BrokerPings`)."""
        with self._lock:
            self.reachability.listed(brokers, now)
            self.inventory.listed(brokers, now)
            self._prune(now)

    def _prune(self, now: float) -> None:
        """Every pruned detector against the inventory (see the module docstring)."""
        for detector in self._pruned:
            detector.prune(self.inventory, now)
        self.inventory.forget_departed(now)

    def answered(self, pings: list[Ping]) -> None:
        """Pings' outcomes, as they come (not folded per batch: they need no Spark)."""
        if not pings:
            return
        with self._lock:
            self.reachability.answered(pings)
            self._observe("reachability", max(p.finished for p in pings))

    def ping_targets(self) -> dict[int, Address]:
        with self._lock:
            return self.reachability.targets()

    def shutdown_evidence(self, evidence: Evidence) -> None:
        """The metadata's verdict on a broker whose port just refused (from the pings)."""
        with self._lock:
            self.reachability.evidence(evidence)

    def transport_roster(self) -> TransportRoster:
        """Where the pings of the transport's brokers go (with a separate transport)."""
        if self.transport is None:
            raise ValueError("no separate transport: its brokers are the monitored ones")
        return TransportRoster(self)

    def transport_listed(self, brokers: dict[int, Address], now: float) -> None:
        with self._lock:
            if self.transport is not None:
                self.transport.listed(brokers, now)

    def transport_answered(self, pings: list[Ping]) -> None:
        if not pings or self.transport is None:
            return
        with self._lock:
            self.transport.answered(pings)
            self._observe(TransportReachability.name, max(p.finished for p in pings))

    def transport_targets(self) -> dict[int, Address]:
        with self._lock:
            return {} if self.transport is None else self.transport.targets()

    def groups_polled(self, round_: GroupsRound) -> None:
        """One round of the driver's consumer-group poller (a round that failed as a whole
        is no observation: the source goes stale if none succeeds)."""
        if self.consumer_groups is None:
            return
        with self._groups_folding:
            # folded outside the board's lock (the costly part), installed under it; what
            # it replaces is freed after
            folded = self.consumer_groups.fold(round_)
            with self._lock:
                retired = self.consumer_groups.install(folded)
                if round_.error is None:
                    self._observe("consumer_groups", round_.at_ms / 1000.0)
            del retired

    def signals(self) -> list[Signal]:
        """Every current signal; none of a stale source (see :meth:`stale`)."""
        now = self._clock()
        with self._lock:
            stale = self._stale(now)
            out = [
                s
                for detector in self.detectors
                for s in detector.signals(now)
                if SIGNAL_SOURCE.get(s.name) not in stale
            ]
            if self.consumer_groups is not None:
                # the brokers unhealthy now, by the series their own pages fire on (a stale
                # source's are left out above: unknown, not unhealthy): a group they hold up
                # joins that broker's incident (detectors/consumer_causes)
                unhealthy = unhealthy_brokers(out)
                out += [
                    s
                    for s in self.consumer_groups.signals(now, unhealthy)
                    if SIGNAL_SOURCE.get(s.name) not in stale
                ]
            return out + self._staleness_signals(now, stale)

    def stale(self) -> set[str]:
        """The sources whose newest observation is older than their ``stale_after``."""
        with self._lock:
            return self._stale(self._clock())

    def _observe_batch(self, batch: Batch) -> None:
        if batch.outcomes:
            self._observe("canary", max(o.send_ms for o in batch.outcomes) / 1000.0)
        if batch.cluster:
            self._observe("cluster_state", max(r.at_ms for r in batch.cluster) / 1000.0)
        if batch.probes:
            self._observe("canary_topic", max(p.send_ms for p in batch.probes) / 1000.0)

    def _observe(self, source: str, at: float) -> None:
        self._observed[source] = max(self._observed.get(source, 0.0), at)

    def _stale(self, now: float) -> set[str]:
        # A source never seen is not stale (it may not be deployed); once seen, it must go on.
        if not self.live:
            return set()
        return {
            source
            for source, at in self._observed.items()
            if self._age(source, at, now) > self._stale_after_now(source)
        }

    def _age(self, source: str, at: float, now: float) -> float:
        query = SOURCE_QUERY.get(source, MONITOR_QUERY)
        since = self._first_start.get(query, 0.0) if query is not None else 0.0
        return max(0.0, now - max(at, since))

    def _stale_after_now(self, source: str) -> float:
        query = SOURCE_QUERY.get(source, MONITOR_QUERY)
        lag = self._read_lag.get(query, 0.0) if query is not None else 0.0
        return self._stale_after.get(source, float("inf")) + lag

    def _staleness_signals(self, now: float, stale: set[str]) -> list[Signal]:
        out: list[Signal] = []
        if not self.live:
            return out
        for source, at in sorted(self._observed.items()):
            scope = labels(source=source)
            age = self._age(source, at, now)
            detail = {"observed_at": at, "age_s": round(age, 3),
                      "stale_after_s": self._stale_after_now(source)}  # fmt: skip
            out.append(Signal("signal_age_seconds", scope, age, now, detail))
            out.append(Signal("signal_stale", scope, float(source in stale), now, detail))
        return out

    def lost_writes(self) -> list[tuple[int, str, int]]:
        """(partition, acks, seq) of every lost acknowledged write still in the report window."""
        with self._lock:
            return self.loss.lost_writes()

    def current_window_end_ms(self, latest_ms: int | None = None) -> int:
        """End of the write-path window that holds the newest canary send (or ``latest_ms``)."""
        latest = self.write_path.latest_send_ms if latest_ms is None else latest_ms
        return current_window_end_ms(latest, self._job.slide_s)

    def state(self) -> dict[str, Any]:
        """The whole state, as JSON-ready data, with the last batch id of each query it
        includes."""
        with self._lock:
            return {
                "batch_ids": dict(self.batch_ids),
                "detectors": {d.name: d.state() for d in self.detectors},
                "controller": self.controller.state(),
                "inventory": self.inventory.state(),
            }

    def restore(self, state: dict[str, Any]) -> None:
        with self._lock:
            self.batch_ids = {q: int(b) for q, b in state.get("batch_ids", {}).items()}
            if "batch_id" in state:  # saved before the canary topic had a query of its own
                self.batch_ids.setdefault(MONITOR_QUERY, int(state["batch_id"]))
            saved = state.get("detectors", {})
            for detector in self.detectors:
                detector.restore(saved.get(detector.name, {}))
            self.controller.restore(state.get("controller", {}))
            self.inventory.restore(state.get("inventory", {}))  # none before the inventory


class TransportRoster:
    """The roster (:mod:`kafka_health.reachability.pinger`) of the transport's brokers: a
    :class:`BrokerPings` of their own reports into the board through it."""

    def __init__(self, board: SignalBoard) -> None:
        self._board = board

    def listed(self, brokers: dict[int, Address], now: float) -> None:
        self._board.transport_listed(brokers, now)

    def answered(self, pings: list[Ping]) -> None:
        self._board.transport_answered(pings)

    def ping_targets(self) -> dict[int, Address]:
        return self._board.transport_targets()
