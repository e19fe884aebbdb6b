"""The vocabulary shared by the streaming job and the alert engine; no Spark, no I/O.

The job computes :class:`Signal` values (one per signal name and label set, per evaluation);
the alert engine turns them into alerts. The catalogue :data:`SIGNALS` names every signal,
its unit and its labels: it is the contract between the two halves, and the Prometheus
exporter publishes each as ``kafka_health_<name>`` with the same labels (a gauge; a counter for
the :attr:`Unit.TOTAL` signals, whose names end in ``_total``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# Labels are bounded: broker ids, partitions of the canary / monitored topics, log kinds, error
# classes from a fixed list, and quantiles; consumer group ids (at most consumer_groups.
# max_groups), their verdicts (a fixed list) and, for groups not OK, topics and partitions
# (at most consumer_groups.max_partition_series). Never offsets, client ids or free text.
LabelSet = tuple[tuple[str, str], ...]


def labels(**values: str | int) -> LabelSet:
    """A canonical (sorted) label set: ``labels(broker_id=1)`` -> ``(("broker_id", "1"),)``."""
    return tuple(sorted((k, str(v)) for k, v in values.items()))


class ReplicationJudged:
    """A partition's replication judged from its replica set, ISR and min.insync.replicas: a
    mixin for the classes that hold those three."""

    replicas: list[int]
    isr: list[int]
    min_isr: int | None

    @property
    def under_replicated(self) -> bool:
        """Fewer replicas in sync than assigned."""
        return len(self.isr) < len(self.replicas)

    @property
    def under_min_isr(self) -> bool:
        """Fewer replicas in sync than min.insync.replicas (unknown: not under)."""
        return self.min_isr is not None and len(self.isr) < self.min_isr


@dataclass(frozen=True)
class Signal:
    """One measured value of the cluster's health.

    ``at`` is when the value was observed, in epoch seconds: the newest evidence behind it (the
    last canary send of its window, the cluster-state snapshot it comes from), or the end of
    its event-time window for log counts; a value computed from elapsed time (an age, a
    silence) is observed when it is computed. Never the time it was published.
    ``details`` carries what a page should show but a metric cannot: the lost sequence
    numbers, the list of under-replicated partitions, a GC cause.
    """

    name: str
    labels: LabelSet
    value: float
    at: float
    details: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def label(self, key: str, default: str = "") -> str:
        return dict(self.labels).get(key, default)


class Unit(StrEnum):
    SECONDS = "seconds"
    RATIO = "ratio"
    COUNT = "count"  # events in the window
    GAUGE = "gauge"  # a current number of things
    TOTAL = "total"  # counted since the job started: a Prometheus counter, named ``*_total``
    PER_MINUTE = "per_minute"
    TIMESTAMP = "timestamp_seconds"


@dataclass(frozen=True)
class SignalSpec:
    """A signal's name, unit, labels and meaning."""

    name: str
    unit: Unit
    labels: tuple[str, ...]
    help: str


def _spec(name: str, unit: Unit, label_names: str, help_text: str) -> SignalSpec:
    return SignalSpec(name, unit, tuple(label_names.split()) if label_names else (), help_text)


# Scope labels: "broker_id" for per-broker values; the cluster-wide value has no broker_id.
SIGNALS: dict[str, SignalSpec] = {
    s.name: s
    for s in [
        # 1. Write latency (canary results): quantile is one of 0.5 0.95 0.99 max.
        _spec("canary_ack_latency_seconds", Unit.SECONDS, "broker_id partition quantile",
              "acks=all acknowledgement latency of canary sends in the window"),
        _spec("canary_append_delay_seconds", Unit.SECONDS, "broker_id partition quantile",
              "LogAppendTime minus send time of canary records in the window"),
        # 2. Availability.
        _spec("canary_sends", Unit.COUNT, "broker_id", "canary sends attempted in the window"),
        _spec("canary_send_failures", Unit.COUNT, "broker_id error_class",
              "failed canary sends in the window, by error class"),
        _spec("canary_availability_ratio", Unit.RATIO, "broker_id",
              "successful / attempted canary sends in the window (1 when none attempted)"),
        _spec("canary_partition_silent_seconds", Unit.SECONDS, "broker_id partition",
              "time since the last canary result of a partition (processing time)"),
        _spec("canary_follower_wait_failures", Unit.COUNT, "",
              "acks=all probes that timed out while their leader acknowledged acks=1 probes "
              "(held back by a follower in the ISR), in the availability window"),
        # 3. Lost and duplicated writes.
        _spec("canary_lost_writes", Unit.COUNT, "broker_id partition acks",
              "acknowledged canary sequence numbers absent from the topic after the grace period "
              "(broker_id: the leader that acknowledged them)"),
        _spec("canary_duplicate_writes", Unit.COUNT, "broker_id partition acks",
              "canary sequence numbers seen at two offsets"),
        # 4. ISR state (details: the partitions).
        _spec("under_replicated_partitions", Unit.GAUGE, "broker_id",
              "partitions whose ISR is smaller than their replica set (led by broker_id)"),
        _spec("under_min_isr_partitions", Unit.GAUGE, "broker_id",
              "partitions whose ISR is smaller than min.insync.replicas (led by broker_id)"),
        _spec("offline_partitions", Unit.GAUGE, "", "partitions without a leader"),
        # 5. Elections.
        _spec("leader_elections_per_minute", Unit.PER_MINUTE, "broker_id",
              "distinct (topic, partition, epoch) leader changes per minute, by new leader"),
        # 6. GC.
        _spec("full_gc_count", Unit.COUNT, "broker_id", "Full GC pauses in the window"),
        _spec("full_gc_pause_seconds_sum", Unit.SECONDS, "broker_id", "Full GC pause time"),
        _spec("full_gc_pause_seconds_max", Unit.SECONDS, "broker_id", "longest Full GC pause"),
        _spec("young_gc_pause_seconds_sum", Unit.SECONDS, "broker_id", "young/mixed GC pause time"),
        _spec("full_gc_over_session_timeout", Unit.COUNT, "broker_id",
              "Full GC pauses longer than the broker's session timeout in the window"),
        # 7. Incident signatures (counts of log events in the window).
        _spec("zk_session_expirations", Unit.COUNT, "broker_id", "ZooKeeper session expiries"),
        _spec("zk_disconnects", Unit.COUNT, "broker_id", "ZooKeeper disconnections"),
        _spec("controller_changes", Unit.COUNT, "broker_id", "controller changes seen"),
        _spec("broker_failures", Unit.COUNT, "broker_id", "brokers the controller saw fail"),
        _spec("controlled_shutdowns", Unit.COUNT, "broker_id", "controlled shutdowns logged"),
        _spec("shutdown_signals", Unit.COUNT, "broker_id",
              "SIGTERM, SIGINT or SIGHUP received by the broker process (logged)"),
        _spec("processor_uncaught_exceptions", Unit.COUNT, "broker_id",
              "SocketServer processors that hit an uncaught exception"),
        _spec("coordinator_loads_stuck", Unit.GAUGE, "broker_id",
              "__consumer_offsets partitions loading for longer than the threshold"),
        _spec("log_cleaner_deaths", Unit.COUNT, "broker_id", "log cleaner threads that died"),
        _spec("log_dir_offline", Unit.GAUGE, "broker_id",
              "the broker's log directories offline after a failure (disk full, I/O error), "
              "until it restarts (details: their paths, whether it halted)"),
        _spec("kraft_controller_elections", Unit.COUNT, "",
              "KRaft controller elections (epochs of the metadata quorum that got a leader) in "
              "the last 5 minutes of the controllers' logs (details: the moves, votes without "
              "a leader, election timeouts, resignations, the voters)"),
        _spec("kraft_leaderless_seconds", Unit.SECONDS, "",
              "how long the KRaft controller quorum has had no leader, from the controllers' "
              "logs; 0 while it has one (details: the last leader and epoch, the evidence)"),
        _spec("kraft_broker_fencings", Unit.COUNT, "broker_id",
              "times the active controller fenced the broker (its session timed out) and "
              "unfenced it again without a restart, in the last 5 minutes of the logs"),
        _spec("not_leader_errors", Unit.COUNT, "broker_id", "NotLeaderOrFollower errors logged"),
        _spec("not_enough_replicas_errors", Unit.COUNT, "broker_id",
              "NotEnoughReplicas / below min ISR errors logged"),
        # 8. Coverage.
        _spec("log_stream_age_seconds", Unit.SECONDS, "broker_id kind",
              "time since the last record of a broker's log kind (server controller "
              "state-change gc)"),
        # 9. Brokers that do not answer the job's pings (reason: answered, or the failure).
        _spec("broker_unanswered_seconds", Unit.SECONDS, "broker_id reason",
              "seconds since the broker last answered the job's ApiVersions ping, while it does "
              "not answer (0 while it does); reason: answered, refused (nothing listens: the "
              "process is down), timeout (hung, paused or cut off), closed, tls, unreachable, "
              "error"),
        _spec("broker_shutdown_evidence", Unit.GAUGE, "broker_id evidence",
              "1 while a broker whose port refused after an answer stays down; evidence: what "
              "the cluster's metadata said of it at once (controlled_shutdown: fenced, or its "
              "partitions handed over; crash: it still leads partitions; unknown)"),
        _spec("broker_certificate_expiry_timestamp_seconds", Unit.TIMESTAMP, "broker_id",
              "when the certificate the broker's TLS listener presented to the job's last "
              "completed ping handshake expires (its notAfter; the leaf certificate), kept while "
              "the broker fails its pings; none for a plaintext listener"),
        _spec("transport_unanswered_seconds", Unit.SECONDS, "reason",
              "seconds since any broker of the transport cluster (a separate cluster for the "
              "monitor's own topics) last answered the job's ping, while none does (0 while one "
              "does); reason: answered, or the failure of the one that answered last"),
        # 10. Consumer groups (detectors/consumer_groups; group: bounded by consumer_groups.
        # max_groups; topic and partition only for groups not OK, max_partition_series in all).
        _spec("consumergroup_max_lag_seconds", Unit.SECONDS, "group",
              "the group's largest time lag over its partitions: seconds since the next unread "
              "record was written (kafka-lag-exporter's group_max_lag_seconds)"),
        _spec("consumergroup_max_lag", Unit.GAUGE, "group",
              "the group's largest lag in records over its partitions (log end - committed, "
              "read every round)"),
        _spec("consumergroup_sum_lag", Unit.GAUGE, "group",
              "the group's lag in records summed over its partitions"),
        _spec("consumergroup_members", Unit.GAUGE, "group", "the group's members"),
        _spec("consumergroup_lag_objective_ratio", Unit.RATIO, "group broker_id",
              "the group's largest time lag over its objective (consumer_groups.objectives): "
              "above 1, it is behind its objective (details: its verdict, owners, severity); "
              "broker_id: the broker holding the group up (its coordinator or a lagging "
              "partition's leader unhealthy), none when no broker is to blame"),
        _spec("consumergroup_status", Unit.GAUGE, "group verdict broker_id",
              "1 for the group's current verdict: ok, lagging, stalled, stopped, rewound, "
              "rebalancing, behind_retention or unseen (details: the evidence, owners, "
              "severity); broker_id: the broker holding the group up, none when no broker is "
              "to blame"),
        _spec("consumergroup_deleted_unread_records_total", Unit.TOTAL, "group",
              "records deleted by retention before the group read them (its committed offset "
              "below the log start), counted once per deleted range since the job started"),
        _spec("consumergroup_lag_seconds", Unit.SECONDS, "group topic partition",
              "a partition's time lag, for groups not OK only"),
        _spec("consumergroup_lag", Unit.GAUGE, "group topic partition",
              "a partition's lag in records, for groups not OK only"),
        _spec("consumergroup_partition_series_dropped", Unit.GAUGE, "",
              "per-partition consumer-group series left out by max_partition_series"),
        _spec("consumer_groups_last_round_timestamp", Unit.TIMESTAMP, "",
              "when the consumer-group poller's newest successful round was read"),
        _spec("consumer_groups_round_failing", Unit.GAUGE, "",
              "1 while the poller's newest round failed (the cluster could not be asked)"),
        _spec("consumer_groups_dropped", Unit.GAUGE, "",
              "watched groups of the newest round past consumer_groups.max_groups, not judged"),
        # 11. The job's own health.
        _spec("job_last_batch_timestamp", Unit.TIMESTAMP, "query",
              "wall-clock time the query last completed a batch"),
        _spec("broker_logs_read_timestamp", Unit.TIMESTAMP, "",
              "wall-clock time up to which the job has read the broker-log topic (the start of "
              "its newest completed trigger): a controlled shutdown logged before then is known"),
        _spec("job_kafka_unreachable", Unit.GAUGE, "query",
              "1 while the query cannot read Kafka (terminated, restarting)"),
        _spec("job_query_failed", Unit.GAUGE, "query exception",
              "1 while the query is down after failing with a bug (not a Kafka error), by the "
              "exception's class"),
        _spec("state_write_failing", Unit.GAUGE, "store",
              "1 while the alert service cannot write this state file (alert_state, "
              "notification_log, outbox): a full or read-only disk; pages still go out"),
        _spec("input_rejected_records", Unit.COUNT, "source reason",
              "records of the monitor's input topics rejected (not folded in, counted in "
              "kafka_health_rejected_records_total) in the last 5 minutes, by source and reason"),
        # 12. Staleness: a source that stopped is reported here, and its values are left out.
        _spec("signal_age_seconds", Unit.SECONDS, "source",
              "time since the newest observation the job has of a source (canary: its "
              "results; cluster_state; canary_topic: the probes read back; reachability: "
              "the job's pings of the brokers; transport_reachability: of the transport's)"),
        _spec("signal_stale", Unit.GAUGE, "source",
              "1 while a source's values are unknown (older than its stale_after): they are "
              "not published and their alerts hold"),
    ]
}  # fmt: skip

LOGS_READ_SIGNAL = "broker_logs_read_timestamp"
"""How far the job has read the broker logs (the alert service's maintenance waits on it)."""

# The source each signal's values come from; a stale source's values are unknown, not healthy.
SOURCE_SIGNALS: dict[str, tuple[str, ...]] = {
    "canary": (
        "canary_ack_latency_seconds", "canary_append_delay_seconds", "canary_sends",
        "canary_send_failures", "canary_availability_ratio", "canary_partition_silent_seconds",
        "canary_follower_wait_failures",
    ),
    "cluster_state": (
        "under_replicated_partitions", "under_min_isr_partitions", "offline_partitions",
    ),
    "canary_topic": ("canary_lost_writes", "canary_duplicate_writes"),
    "reachability": (
        "broker_unanswered_seconds", "broker_shutdown_evidence",
        "broker_certificate_expiry_timestamp_seconds",
    ),
    "transport_reachability": ("transport_unanswered_seconds",),
    "consumer_groups": (
        "consumergroup_max_lag_seconds", "consumergroup_max_lag", "consumergroup_sum_lag",
        "consumergroup_members", "consumergroup_lag_objective_ratio", "consumergroup_status",
        "consumergroup_lag_seconds", "consumergroup_lag",
    ),
}  # fmt: skip
SIGNAL_SOURCE = {name: source for source, names in SOURCE_SIGNALS.items() for name in names}
