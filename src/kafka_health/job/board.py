"""The driver's view of the cluster's health: query output rows in, current Signals out.

Each query's ``foreachBatch`` hands its (small, aggregated) rows to one ``on_*`` method; the
alert service and the exporter read :meth:`SignalBoard.signals`. Everything here is
idempotent under batch replay (``foreachBatch`` re-runs a batch after a crash): windowed
values are overwritten by key, anomalies are keyed by their sequence number, deadline states
by their key. No Spark import: rows are any objects with the named attributes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kafka_health.config import JobConfig, MonitorConfig
from kafka_health.job.canary import LEVEL_CLUSTER, LEVEL_PARTITION, QUANTILES
from kafka_health.model import Signal, labels

MAX_LISTED = 500  # partitions named in a signal's details (the count is always exact)
CANARY_PARTITION = "canary_partition"
LOG_STREAM = "log_stream"
COORDINATOR_LOAD = "coordinator_load"


@dataclass(frozen=True)
class _Deadline:
    state: str
    last_seen_s: float | None
    changed_s: float
    attr: str | None


def stale_after(config: MonitorConfig) -> dict[str, float]:
    """Seconds after its newest observation each source is stale: ``job.stale_after_s``, or two
    trigger intervals (the job reads each source once per trigger) plus three of the source's
    own intervals (a canary probe per second, a cluster-state snapshot every 10 s)."""
    job = config.job
    auto = {
        "canary": 2 * job.trigger_interval_s + 3 * config.canary.interval_s,
        "cluster_state": 2 * job.trigger_interval_s + 3 * config.cluster_state.interval_s,
    }
    return {**auto, **job.stale_after_s}


class SignalBoard:
    """Current signals, built from the rows of the job's queries.

    While ``live`` (the job runs on the wall clock, not over what the topics already hold), a
    source (the canary's results, the prober's snapshots) whose newest observation is older
    than its ``stale_after`` is stale: its values are left out (unknown, not repeated) and
    ``signal_stale`` / ``signal_age_seconds`` say so. A replay of past records is not stale.
    """

    def __init__(
        self,
        job: JobConfig,
        clock: Callable[[], float] = time.time,
        stale_after: dict[str, float] | None = None,
        live: bool = False,
    ) -> None:
        self._job = job
        self._clock = clock
        self.live = live
        self._stale_after = stale_after or {
            "canary": 2 * job.trigger_interval_s + 3.0,
            "cluster_state": 2 * job.trigger_interval_s + 30.0,
            **job.stale_after_s,
        }
        # source -> epoch seconds of the newest observation from it
        self._observed: dict[str, float] = {}
        self._lock = threading.Lock()
        # scope key -> window end (ms) -> latest row of that window
        self._write_path: dict[tuple[int, str | None, int | None], dict[int, Any]] = {}
        self._latest_send_ms = 0
        self._anomalies: dict[tuple[str, int, int, str, str], float] = {}
        self._deadlines: dict[tuple[str, str], _Deadline] = {}
        self._unhealthy: list[Any] = []
        # broker id -> (live, first seen live, last seen) from the prober's broker records
        self._brokers: dict[str, tuple[bool, float, float]] = {}
        # (topic, partition, epoch) -> (new leader, seen at) from snapshots
        self._snapshot_elections: dict[tuple[str, int, int], tuple[str, float]] = {}
        # (broker, event type) -> window end (ms) -> latest row
        self._log_windows: dict[tuple[str, str], dict[int, Any]] = {}
        self._latest_log_ms = 0

    # ------------------------------------------------------------------ intake

    def on_write_path(self, rows: Iterable[Any]) -> None:
        """Rows of :func:`kafka_health.job.canary.write_path_windows` (update mode)."""
        with self._lock:
            for row in rows:
                key = (
                    int(row.level),
                    None if row.level == LEVEL_CLUSTER else row.broker_id,
                    row.partition if row.level == LEVEL_PARTITION else None,
                )
                end_ms = round(row.window.end.timestamp() * 1000)
                self._write_path.setdefault(key, {})[end_ms] = row
                self._latest_send_ms = max(self._latest_send_ms, int(row.last_send_ms or 0))
            if self._latest_send_ms:
                self._observe("canary", self._latest_send_ms / 1000.0)

    def on_write_anomalies(self, rows: Iterable[Any]) -> None:
        """Rows of :func:`kafka_health.job.loss.write_anomalies` (final, append mode)."""
        now = self._clock()
        with self._lock:
            for row in rows:
                key = (row.canary_id, int(row.partition), int(row.seq), row.acks, row.anomaly)
                self._anomalies.setdefault(key, now)

    def on_deadlines(self, rows: Iterable[Any]) -> None:
        """Rows of :func:`kafka_health.job.deadlines.track_deadlines`."""
        with self._lock:
            for row in rows:
                last_seen = None if row.last_seen_ms is None else row.last_seen_ms / 1000.0
                self._deadlines[(row.scope, row.id)] = _Deadline(
                    row.state, last_seen, row.changed_ms / 1000.0, row.attr
                )
                if row.scope == CANARY_PARTITION and last_seen is not None:
                    self._observe("canary", last_seen)

    def on_isr(self, rows: Iterable[Any]) -> None:
        """Rows of :func:`kafka_health.job.isr.track_isr`: elections, then the complete
        unhealthy set closed by an ``end`` marker."""
        now = self._clock()
        unhealthy: list[Any] = []
        complete = False
        with self._lock:
            for row in rows:
                if row.kind == "election" and row.leader_epoch is not None:
                    key = (row.topic, int(row.partition), int(row.leader_epoch))
                    self._snapshot_elections.setdefault(key, (str(row.leader), now))
                elif row.kind == "unhealthy":
                    unhealthy.append(row)
                elif row.kind == "end":
                    complete = True
                elif row.kind == "broker" and row.leader is not None:
                    broker = str(row.leader)
                    _live, first, _last = self._brokers.get(broker, (False, now, now))
                    self._brokers[broker] = (not row.offline, first, now)
                    if getattr(row, "at_ms", None):  # a snapshot's broker record: its time
                        self._observe("cluster_state", row.at_ms / 1000.0)
            if complete:
                self._unhealthy = unhealthy

    def on_log_windows(self, rows: Iterable[Any]) -> None:
        """Rows of :func:`kafka_health.job.logs.log_event_windows` (update mode)."""
        with self._lock:
            for row in rows:
                end_ms = round(row.window.end.timestamp() * 1000)
                self._log_windows.setdefault((row.broker_id, row.type), {})[end_ms] = row
                self._latest_log_ms = max(self._latest_log_ms, int(row.last_event_ms or 0))

    # ------------------------------------------------------------------ output

    def signals(self) -> list[Signal]:
        """Every current signal; none of a stale source (see :meth:`stale`)."""
        now = self._clock()
        with self._lock:
            self._prune(now)
            stale = self._stale(now)
            out = [] if "canary" in stale else self._write_path_signals(now)
            out += self._anomaly_signals(now)
            out += self._deadline_signals(now, canary_stale="canary" in stale)
            if "cluster_state" not in stale:
                out += self._isr_signals(now)
            out += self._log_signals(now)
            out += self._staleness_signals(now, stale)
        return out

    def stale(self) -> set[str]:
        """The sources whose newest observation is older than their ``stale_after``."""
        with self._lock:
            return self._stale(self._clock())

    def _observe(self, source: str, at: float) -> None:
        self._observed[source] = max(self._observed.get(source, 0.0), at)

    def _stale(self, now: float) -> set[str]:
        # A source never seen is not stale (it may not be deployed); once seen, it must go on.
        if not self.live:
            return set()
        return {
            source
            for source, at in self._observed.items()
            if now - at > self._stale_after.get(source, float("inf"))
        }

    def _staleness_signals(self, now: float, stale: set[str]) -> list[Signal]:
        out: list[Signal] = []
        if not self.live:
            return out
        for source, at in sorted(self._observed.items()):
            scope = labels(source=source)
            age = max(0.0, now - at)
            detail = {"observed_at": at, "age_s": round(age, 3),
                      "stale_after_s": self._stale_after.get(source)}  # fmt: skip
            out.append(Signal("signal_age_seconds", scope, age, now, detail))
            out.append(Signal("signal_stale", scope, float(source in stale), now, detail))
        return out

    def lost_writes(self) -> list[tuple[int, str, int]]:
        """(partition, acks, seq) of every lost acknowledged write still in the report window."""
        with self._lock:
            return sorted(
                (p, acks, seq) for (_c, p, seq, acks, kind) in self._anomalies if kind == "lost"
            )

    def current_window_end_ms(self, latest_ms: int | None = None) -> int:
        """End of the window that covers the last minute up to the newest event (by default the
        newest canary send): the first slide boundary after it, so it holds the newest data."""
        slide_ms = round(self._job.slide_s * 1000)
        latest = self._latest_send_ms if latest_ms is None else latest_ms
        return (latest // slide_ms + 1) * slide_ms

    def _prune(self, now: float) -> None:
        horizon = self.current_window_end_ms() - round(self._job.window_s * 1000)
        for key, windows in list(self._write_path.items()):
            for end_ms in [e for e in windows if e < horizon]:
                del windows[end_ms]
            if not windows:
                del self._write_path[key]
        log_horizon = self.current_window_end_ms(self._latest_log_ms) - round(
            self._job.window_s * 1000
        )
        for log_key, windows in list(self._log_windows.items()):
            for end_ms in [e for e in windows if e < log_horizon]:
                del windows[end_ms]
            if not windows:
                del self._log_windows[log_key]
        since = now - self._job.window_s
        for election in [k for k, (_b, at) in self._snapshot_elections.items() if at < since]:
            del self._snapshot_elections[election]
        oldest = now - self._job.loss_report_window_s
        for old in [k for k, at in self._anomalies.items() if at < oldest]:
            del self._anomalies[old]

    def _write_path_signals(self, now: float) -> list[Signal]:
        out: list[Signal] = []
        current = self.current_window_end_ms()
        for (level, broker, partition), windows in self._write_path.items():
            row = windows.get(current)
            if row is None:  # nothing from this scope in the current window
                continue
            # observed: the newest send of the window (not its end, not now)
            at = int(row.last_send_ms) / 1000.0 if row.last_send_ms else current / 1000.0
            scope: dict[str, str | int] = {}
            if broker is not None:
                scope["broker_id"] = broker
            if partition is not None:
                scope["partition"] = partition
            for name, quantiles, peak in (
                ("canary_ack_latency_seconds", row.ack_quantiles, row.ack_max),
                ("canary_append_delay_seconds", row.append_quantiles, row.append_max),
            ):
                if quantiles is None:
                    continue
                for q, value in zip(QUANTILES, quantiles, strict=True):
                    out.append(Signal(name, labels(**scope, quantile=str(q)), float(value), at))
                out.append(Signal(name, labels(**scope, quantile="max"), float(peak), at))
            if level == LEVEL_PARTITION:
                continue
            failures: dict[str, int] = {}
            for error in row.errors or []:
                failures[error] = failures.get(error, 0) + 1
            sends = int(row.sends)
            out.append(Signal("canary_sends", labels(**scope), float(sends), at))
            for error, count in sorted(failures.items()):
                out.append(
                    Signal(
                        "canary_send_failures",
                        labels(**scope, error_class=error),
                        float(count),
                        at,
                    )
                )
            ratio = 1.0 if sends == 0 else int(row.successes) / sends
            out.append(
                Signal(
                    "canary_availability_ratio",
                    labels(**scope),
                    ratio,
                    at,
                    {"failures": failures, "sends": sends},
                )
            )
        return out

    def _anomaly_signals(self, now: float) -> list[Signal]:
        grouped: dict[tuple[str, int, str], list[int]] = {}
        for canary_id, partition, seq, acks, kind in self._anomalies:
            del canary_id
            grouped.setdefault((kind, partition, acks), []).append(seq)
        found: dict[tuple[str, int, str], float] = {}
        for (_c, partition, _seq, acks, kind), seen in self._anomalies.items():
            found[(kind, partition, acks)] = max(found.get((kind, partition, acks), 0.0), seen)
        out = []
        for (kind, partition, acks), seqs in sorted(grouped.items()):
            name = "canary_lost_writes" if kind == "lost" else "canary_duplicate_writes"
            out.append(
                Signal(
                    name,
                    labels(partition=partition, acks=acks),
                    float(len(seqs)),
                    found[(kind, partition, acks)],  # observed: when the newest was found
                    {"seqs": sorted(seqs)},
                )
            )
        return out

    def _deadline_signals(self, now: float, canary_stale: bool = False) -> list[Signal]:
        """Ages and silences: computed from elapsed time, so observed ``now``."""
        out = []
        stuck_by_broker: dict[str, list[str]] = {}
        for (scope, ident), deadline in self._deadlines.items():
            age = None if deadline.last_seen_s is None else max(0.0, now - deadline.last_seen_s)
            if scope == CANARY_PARTITION and age is not None and not canary_stale:
                silent = age if deadline.state == "expired" else 0.0
                out.append(
                    Signal(
                        "canary_partition_silent_seconds",
                        labels(broker_id=deadline.attr or "unknown", partition=ident),
                        silent,
                        now,
                        {"last_result_age_s": age, "state": deadline.state},
                    )
                )
            elif scope == LOG_STREAM and age is not None:
                broker, _, kind = ident.partition("/")
                out.append(
                    Signal(
                        "log_stream_age_seconds",
                        labels(broker_id=broker, kind=kind),
                        age,
                        now,
                        {"state": deadline.state},
                    )
                )
            elif scope == COORDINATOR_LOAD and deadline.state == "expired":
                broker, _, partition = ident.partition("/")
                stuck_by_broker.setdefault(broker, []).append(partition)
        out += self._never_seen_logs(now)
        for broker, partitions in sorted(stuck_by_broker.items()):
            out.append(
                Signal(
                    "coordinator_loads_stuck",
                    labels(broker_id=broker),
                    float(len(partitions)),
                    now,
                    {"partitions": sorted(partitions, key=int)},
                )
            )
        return out

    def _never_seen_logs(self, now: float) -> list[Signal]:
        """Brokers the prober knows (live) that never sent a log kind: their age is the time
        since the broker was first seen, so ``LogStreamSilent`` fires for them too."""
        out = []
        recent = now - self._job.isr_expire_after_s
        for broker, (live, first, last) in sorted(self._brokers.items()):
            if not live or last < recent:
                continue
            for kind in LOGGED_KINDS:
                if (LOG_STREAM, f"{broker}/{kind}") not in self._deadlines:
                    out.append(
                        Signal("log_stream_age_seconds", labels(broker_id=broker, kind=kind),
                               now - first, now, {"state": "never"})
                    )  # fmt: skip
        return out

    def _isr_signals(self, now: float) -> list[Signal]:
        now = self._observed.get("cluster_state", now)  # observed: the newest snapshot
        out = []
        for name, flag in (
            ("under_replicated_partitions", "under_replicated"),
            ("under_min_isr_partitions", "under_min_isr"),
        ):
            by_leader: dict[str, list[str]] = {}
            replicas: dict[str, list[int]] = {}
            for row in self._unhealthy:
                if getattr(row, flag):
                    replicas[f"{row.topic}-{row.partition}"] = list(row.replicas or [])
                    leader = (
                        str(row.leader) if row.leader is not None and row.leader >= 0 else "none"
                    )
                    by_leader.setdefault(leader, []).append(f"{row.topic}-{row.partition}")
            every = sorted(p for parts in by_leader.values() for p in parts)
            listed = every[:MAX_LISTED]
            details = {"partitions": listed, "replicas": {p: replicas[p] for p in listed}}
            out.append(Signal(name, labels(), float(len(every)), now, details))
            for leader, parts in sorted(by_leader.items()):
                listed = sorted(parts)[:MAX_LISTED]
                details = {"partitions": listed, "replicas": {p: replicas[p] for p in listed}}
                out.append(Signal(name, labels(broker_id=leader), float(len(parts)), now, details))
        offline = sorted(f"{r.topic}-{r.partition}" for r in self._unhealthy if r.offline)
        out.append(
            Signal(
                "offline_partitions", labels(), float(len(offline)), now, {"partitions": offline}
            )
        )
        return out

    def _log_signals(self, now: float) -> list[Signal]:
        current = self.current_window_end_ms(self._latest_log_ms)
        at = current / 1000.0
        per_minute = 60.0 / self._job.window_s
        out: list[Signal] = []
        reports: list[tuple[str, int, int | None, int | None]] = [
            (topic, partition, epoch, int(leader))
            for (topic, partition, epoch), (leader, _seen) in self._snapshot_elections.items()
        ]
        for (broker, event_type), windows in self._log_windows.items():
            row = windows.get(current)
            if row is None:
                continue
            scope = labels(broker_id=broker)
            if event_type == "leader_change":
                reports += [
                    (e.topic, int(e.partition), e.leader_epoch, e.leader)
                    for e in row.elections or []
                ]
                continue
            if event_type == "full_gc":
                out += [
                    Signal("full_gc_count", scope, float(row.events), at),
                    Signal("full_gc_pause_seconds_sum", scope, float(row.pause_sum or 0.0), at),
                    Signal("full_gc_pause_seconds_max", scope, float(row.pause_max or 0.0), at),
                    Signal(
                        "full_gc_over_session_timeout", scope, float(row.over_session_timeout), at,
                        {"session_timeout_s": self._session_timeout_s(broker)},
                    ),
                ]  # fmt: skip
            elif event_type == "young_gc":
                out.append(
                    Signal("young_gc_pause_seconds_sum", scope, float(row.pause_sum or 0.0), at)
                )
            elif event_type in INCIDENT_SIGNALS:
                out.append(Signal(INCIDENT_SIGNALS[event_type], scope, float(row.events), at))
        elections = distinct_elections(reports)
        by_leader: dict[str, int] = {}
        for leader in elections.values():
            if leader is not None:
                by_leader[str(leader)] = by_leader.get(str(leader), 0) + 1
        for broker, count in sorted(by_leader.items()):
            out.append(
                Signal("leader_elections_per_minute", labels(broker_id=broker),
                       count * per_minute, at)
            )  # fmt: skip
        out.append(Signal("leader_elections_per_minute", labels(), len(elections) * per_minute, at))
        return out

    def _session_timeout_s(self, broker: str) -> float:
        ms = self._job.session_timeout_ms_by_broker.get(broker, self._job.session_timeout_ms)
        return ms / 1000.0


# Parsed log event type -> the signal counting it per broker and window.
INCIDENT_SIGNALS = {
    "zk_session_expired": "zk_session_expirations",
    "zk_disconnected": "zk_disconnects",
    "controller_change": "controller_changes",
    "broker_failure": "broker_failures",
    "controlled_shutdown": "controlled_shutdowns",
    "processor_uncaught_exception": "processor_uncaught_exceptions",
    "log_cleaner_died": "log_cleaner_deaths",
    "not_leader": "not_leader_errors",
    "min_isr_violation": "not_enough_replicas_errors",
}


def distinct_elections(
    reports: Iterable[tuple[str, int, int | None, int | None]],
) -> dict[tuple[str, int, int | None, int | None], int | None]:
    """One entry per election, with its new leader (None when no report names it).

    Reports of the same (topic, partition, epoch) are one election; a report without an epoch
    (a ZooKeeper controller's "New leader is N") is the same election as one with an epoch for
    the same partition and leader, else an election of its own.
    """
    with_epoch: dict[tuple[str, int, int], int | None] = {}
    without: set[tuple[str, int, int | None]] = set()
    for topic, partition, epoch, leader in reports:
        if epoch is None or epoch < 0:
            without.add((topic, partition, leader))
            continue
        key = (topic, partition, int(epoch))
        if with_epoch.get(key) is None:
            with_epoch[key] = leader
    out: dict[tuple[str, int, int | None, int | None], int | None] = {
        (t, p, e, None): leader for (t, p, e), leader in with_epoch.items()
    }
    for topic, partition, leader in without:
        known = any(
            t == topic and p == partition and (leader is None or ld in (None, leader))
            for (t, p, _e), ld in with_epoch.items()
        )
        if not known:
            out[(topic, partition, None, leader)] = leader
    return out


LOGGED_KINDS = ("server", "controller", "state-change", "gc")
