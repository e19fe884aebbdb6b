"""The faults of the fault suite, each with the page it must produce written down.

A scenario names the brokers it touches, the alerts of which one must page (``expected``: the
first notification that carries one of them, about a touched broker or the whole cluster, is
"the page"), the alert that names the cause when there is one (``cause``), and the other
alerts a correct monitor may send about the same fault (``allowed``). Anything else that
fires during the run, and anything naming a broker the fault did not touch, is unexpected.

``inject`` may block (a rolling restart runs to its end inside it); ``hold_s`` is how long the
fault lasts from the injection before ``undo`` (None: until the expected page came, or the
bound passed). Every scenario runs in both cluster modes but those whose ``modes`` say
otherwise (controller-kill: KRaft only); in ZooKeeper mode (6 s sessions, as in the seeds) a
freeze or a long GC pause becomes a ZooKeeper session expiry. A scenario whose target is only
known at the injection (the active controller) sets ``ctx.targets`` there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kafka_health.dev.faults.actions_brokers import (
    GC_PAUSE_S,
    VICTIM,
    cluster_down,
    cluster_up,
    freeze_victim,
    gc_pause_victim,
    kill_brokers,
    start_brokers,
    thaw_victim,
    two_down,
)
from kafka_health.dev.faults.actions_consumer_faults import (
    COORDINATED_GROUP,
    COORDINATOR_HOLD_S,
    PAGE_LATE_S,
    RETENTION_BOUND_S,
    RETENTION_GROUP,
    RETENTION_MS,
    SEGMENT_MS,
    SLOW_BOUND_S,
    SLOW_FRACTION,
    SLOW_GROUP,
    check_coordinator_incident,
    check_retention_page,
    check_slow_page,
    consumers_throttle,
    consumers_unthrottle,
    coordinated_start,
    coordinated_stop,
    kill_coordinator,
    restart_coordinator,
    retention_restore,
    retention_start,
    retention_stop,
    retention_stop_group,
    slow_start,
    slow_stop,
)
from kafka_health.dev.faults.actions_consumers import (
    GROUP,
    OBJECTIVE_S,
    RATE,
    check_consumer_page,
    consumers_resume,
    consumers_stop,
    orders_start,
    orders_stop,
)
from kafka_health.dev.faults.actions_controllers import (
    CONTROLLER_DOWN_S,
    check_failover,
    kill_active_controller,
    restart_controller,
)
from kafka_health.dev.faults.actions_decommission import (
    DECOMMISSIONED,
    decommission,
    left_the_monitor,
    recommission,
)
from kafka_health.dev.faults.actions_disks import (
    DISK_BROKER,
    DISK_SIZE,
    disk_prepare,
    disk_restore,
    fill_disk,
)
from kafka_health.dev.faults.actions_monitor import (
    JOB_KILLS,
    OUTAGE_500_S,
    OUTAGE_HANG_S,
    canary_default,
    canary_with_acks1,
    monitor_kill,
    monitor_kills,
    monitor_restore,
    receiver_back,
    receiver_outage,
    record_acks1_truth,
)
from kafka_health.dev.faults.actions_pauses_restarts import (
    SHORT_PAUSE_GAP_S,
    SLOW_RESTART_BROKER,
    SLOW_RESTART_DOWN_S,
    rolling_restart,
    short_pauses,
    slow_restart,
)
from kafka_health.dev.faults.actions_transport import (
    transport_freeze,
    transport_kill,
    transport_start,
    transport_thaw,
)
from kafka_health.dev.faults.context import DEFAULT_BOUND_S, Action, FaultContext

SYMPTOMS = (
    "BrokerNotAnswering",
    "BrokerFailed",
    "CanaryWriteFailure",
    "CanaryWriteLatencyHigh",
    "UnderMinIsr",
    "UnderReplicatedPartitions",
    "LeaderElectionStorm",
    "ZkSessionExpired",
)
"""What any broker fault may legitimately page (about the broker it touched)."""

GC_ALERTS = ("FullGC", "FullGCPauseOverSessionTimeout", "FrequentFullGC")
BLIND_ALERTS = ("ClusterUnreachable",)
MONITOR_BLIND = ("TransportUnreachable", "MonitorStalled", "ClusterUnreachable", "MonitorBlind")
"""What a monitor that cannot read its own topics pages about itself (issue 12.8: within
10 s, naming what it cannot read)."""
TRANSPORT_HOLD_S = 30.0
CONSUMER_STOP_BOUND_S = OBJECTIVE_S + 10.0 + 10.0
"""The group's objective plus 10 s (issue 58), and 10 s of slack for the bench's own wait;
the CI test holds the page to the objective plus 10 s."""


def _nothing(ctx: FaultContext) -> None:
    return None


@dataclass(frozen=True)
class Scenario:
    """One fault, what it must page, and how to undo it."""

    name: str
    description: str
    targets: tuple[int, ...]
    expected: tuple[str, ...]
    inject: Action
    undo: Action = _nothing
    allowed: tuple[str, ...] = SYMPTOMS
    cause: str | None = None
    hold_s: float | None = None
    bound_s: float = DEFAULT_BOUND_S
    prepare: Action = _nothing
    """Runs before the steady-state wait (e.g. restart the canary with other settings)."""
    cleanup: Action = _nothing
    """Runs after the run, whatever happened."""
    verify: Action = _nothing
    """Runs after the resolution wait, before the verdict (ground truth, e.g. real loss)."""
    settle_s: float = 0.0
    """At least this long after ``undo`` before the resolution counts (late detectors)."""
    observe_s: float = 0.0
    """For scenarios that must not page: how long to keep listening after ``inject``."""
    tolerated: tuple[str, ...] = ()
    """For scenarios that must not page: the warnings it may notify (FullGC is right about a
    real 3 s Full GC); anything else is unexpected."""
    needs_monitor_processes: bool = False
    layouts: tuple[str, ...] = ("transport", "single")
    """The layouts it applies to (a transport fault needs a transport cluster)."""
    modes: tuple[str, ...] = ("kraft", "zookeeper")
    tags: dict[str, str] = field(default_factory=dict)
    targets_from: str = ""
    """What the targets are when ``inject`` chooses them (``ctx.targets``: the broker that is
    the active controller then); the report names it."""

    @property
    def expects_page(self) -> bool:
        return bool(self.expected)

    def describe_expected(self) -> str:
        if not self.expected:
            return "no page"
        where = ", ".join(str(t) for t in self.targets)
        about = f"on broker {where} (or the cluster)" if where else "about the monitor or cluster"
        if self.targets_from:
            about = f"on {self.targets_from} (or the cluster)"
        text = f"{'|'.join(self.expected)} {about}"
        return text + (f"; cause named by {self.cause}" if self.cause else "")


# ------------------------------------------------------------------------- the table

TWO_DOWN_PAGES = (
    "BrokerNotAnswering",
    "BrokerFailed",
    "CanaryWriteFailure",
    "UnderMinIsr",
    "ClusterUnreachable",
)
"""What may page when brokers 2 and 3 are down (two-brokers-down, monitor-kill, monitor-kills)."""
QUORUM_LOST = ("KRaftNoActiveController", "KRaftControllerUnstable")
"""KRaft: two or three of the three voters down leave the controller quorum without a
majority. The dead voters' own pages explain these (inhibit rules voter-*), so they are named
in those incidents; paged on their own (a voter's page resolved before the quorum came
back), they are still right about the fault."""

MONITOR_KILL = Scenario(
    "monitor-kill",
    "brokers 2 and 3 down; SIGKILL `kafka-health run` while it fires, start it again: "
    "no duplicate page, the resolution arrives",
    (2, 3),
    TWO_DOWN_PAGES,
    monitor_kill,
    monitor_restore,
    allowed=SYMPTOMS + BLIND_ALERTS + QUORUM_LOST,
    hold_s=0.0,
    needs_monitor_processes=True,
)


LOSS_SETTLE_S = 150.0
"""The job calls an acknowledged write lost after job.loss_grace_s (60 s) without it in the
canary topic; the page follows its evaluation."""

SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "broker-kill",
            f"SIGKILL broker {VICTIM}; start it again after the page",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            kill_brokers(VICTIM),
            start_brokers(VICTIM),
            cause="BrokerFailed",
        ),
        Scenario(
            "controller-kill",
            "SIGKILL the active controller of the KRaft quorum (a combined broker+controller "
            f"node, found by DescribeQuorum at the injection), down {CONTROLLER_DOWN_S:g} s "
            "(past its broker session: the new controller fences it), then started: the "
            "quorum elects another leader within its timeouts (fetch 2 s, a vote of 1-2 s), so "
            "the page is the dead broker's, nothing about the quorum",
            (),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            kill_active_controller,
            restart_controller,
            cause="BrokerFailed",
            hold_s=CONTROLLER_DOWN_S,
            verify=check_failover,
            modes=("kraft",),
            targets_from="the active controller",
        ),
        Scenario(
            "broker-freeze",
            f"SIGSTOP broker {VICTIM} for 40 s (a hung broker), then SIGCONT",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            freeze_victim,
            thaw_victim,
            allowed=SYMPTOMS + GC_ALERTS,
            hold_s=40.0,
        ),
        Scenario(
            "gc-pause",
            f"a real Full GC on broker {VICTIM} held {GC_PAUSE_S:.0f} s (longer than the session)",
            (VICTIM,),
            (
                "FullGCPauseOverSessionTimeout",
                "BrokerNotAnswering",
                "BrokerFailed",
                "CanaryWriteFailure",
                "ZkSessionExpired",
            ),
            gc_pause_victim,
            allowed=SYMPTOMS + GC_ALERTS,
            cause="FullGCPauseOverSessionTimeout",
        ),
        Scenario(
            "two-brokers-down",
            "SIGKILL brokers 2 and 3 (KRaft: the controller quorum is lost; ZooKeeper: "
            "acks=all writes fail with NotEnoughReplicas); start them after the page",
            (2, 3),
            TWO_DOWN_PAGES,
            two_down,
            start_brokers(2, 3),
            allowed=SYMPTOMS + BLIND_ALERTS + QUORUM_LOST,
        ),
        Scenario(
            "cluster-down",
            "SIGKILL every broker (power loss) for 60 s, then start them",
            (1, 2, 3),
            ("ClusterUnreachable", "BrokerNotAnswering", "CanaryWriteFailure", "BrokerFailed"),
            cluster_down,
            cluster_up,
            allowed=SYMPTOMS + BLIND_ALERTS + QUORUM_LOST,
            hold_s=60.0,
        ),
        Scenario(
            "acks1-loss",
            f"acks=1 canary probes on; SIGKILL broker {VICTIM}, a canary partition's leader; "
            "every acknowledged acks=1 write that is gone must page CanaryWritesLost",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            kill_brokers(VICTIM),
            start_brokers(VICTIM),
            allowed=(*SYMPTOMS, "CanaryWritesLost"),
            prepare=canary_with_acks1,
            cleanup=canary_default,
            verify=record_acks1_truth,
            settle_s=LOSS_SETTLE_S,
            needs_monitor_processes=True,
        ),
        Scenario(
            "receiver-outage",
            f"the receiver answers 500 for {OUTAGE_500_S:.0f} s, then hangs "
            f"{OUTAGE_HANG_S:.0f} s, while broker {VICTIM} is killed and started again: the "
            "page and the resolution arrive after it returns, once each",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            receiver_outage,
            receiver_back,
            hold_s=0.0,
            bound_s=DEFAULT_BOUND_S + OUTAGE_500_S + OUTAGE_HANG_S,
        ),
        MONITOR_KILL,
        dataclasses.replace(
            MONITOR_KILL,
            name="monitor-kills",
            description=f"brokers 2 and 3 down; SIGKILL `kafka-health run` {JOB_KILLS} times at "
            "random points (Spark starting, batches running, notifications leaving), starting it "
            "again each time: no duplicate page, no lost one, the resolution arrives",
            inject=monitor_kills,
        ),
        Scenario(
            "transport-down",
            f"SIGKILL the transport cluster (the monitor's own topics) for "
            f"{TRANSPORT_HOLD_S:.0f} s, then start it: the monitored cluster is healthy, the "
            "monitor is blind and must say so",
            (),
            MONITOR_BLIND,
            transport_kill,
            transport_start,
            allowed=MONITOR_BLIND,
            hold_s=TRANSPORT_HOLD_S,
            layouts=("transport",),
        ),
        Scenario(
            "transport-freeze",
            f"SIGSTOP the transport cluster for {TRANSPORT_HOLD_S:.0f} s (hung), then SIGCONT: "
            "the monitor is blind and must say so while it hangs",
            (),
            MONITOR_BLIND,
            transport_freeze,
            transport_thaw,
            allowed=MONITOR_BLIND,
            hold_s=TRANSPORT_HOLD_S,
            layouts=("transport",),
        ),
        Scenario(
            "consumer-stop",
            f"a producer writes {RATE:g} records/s, a group of 2 real consumers ({GROUP}, "
            f"objective {OBJECTIVE_S:g} s) reads and commits every second; close the consumers "
            "while the producer keeps writing: ConsumerGroupLagging names the group and its "
            "lag in seconds within the objective + 10 s; start them again: it resolves",
            (),
            ("ConsumerGroupLagging",),
            consumers_stop,
            consumers_resume,
            allowed=(),
            bound_s=CONSUMER_STOP_BOUND_S,
            prepare=orders_start,
            cleanup=orders_stop,
            verify=check_consumer_page,
        ),
        Scenario(
            "consumer-slow",
            f"a producer writes {RATE:g} records/s, a group of 2 real consumers ({SLOW_GROUP}, "
            f"objective {OBJECTIVE_S:g} s) commits every 0.5 s; throttle them to "
            f"{SLOW_FRACTION:.0%} of the produce rate: ConsumerGroupLagging once the true time "
            "lag (the record timestamp at the committed offset) passed the objective, not "
            f"before, within {PAGE_LATE_S:g} s; full speed again: it resolves",
            (),
            ("ConsumerGroupLagging",),
            consumers_throttle,
            consumers_unthrottle,
            allowed=(),
            bound_s=SLOW_BOUND_S,
            prepare=slow_start,
            cleanup=slow_stop,
            verify=check_slow_page,
        ),
        Scenario(
            "coordinator-kill",
            f"the consumers of {COORDINATED_GROUP} (objective {OBJECTIVE_S:g} s) stop while "
            "the producer writes; once the monitor judges the group stopped, SIGKILL its "
            f"coordinator (FindCoordinator), down until {COORDINATOR_HOLD_S:g} s after the "
            "injection (the group twice its objective behind), then started and the consumers "
            "resumed: one incident about that broker listing the group "
            "(BrokerHoldsUpConsumerGroups), nothing paged for the group on its own",
            (),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            kill_coordinator,
            restart_coordinator,
            allowed=(*SYMPTOMS, "BrokerHoldsUpConsumerGroups"),
            cause="BrokerFailed",
            hold_s=COORDINATOR_HOLD_S,
            prepare=coordinated_start,
            cleanup=coordinated_stop,
            verify=check_coordinator_incident,
            targets_from="the test group's coordinator",
        ),
        Scenario(
            "retention-loss",
            f"the consumers of {RETENTION_GROUP} stop on a topic whose records live "
            f"{RETENTION_MS / 1000:g} s (segments rolled every {SEGMENT_MS / 1000:g} s) while "
            "the producer writes: ConsumerGroupRecordsDeletedUnread once retention deleted "
            f"records the group had not read (within {PAGE_LATE_S:g} s), its count equal to log "
            "start minus committed offset; retention back to 7 days, the consumers resumed: "
            "it resolves",
            (),
            ("ConsumerGroupRecordsDeletedUnread",),
            retention_stop_group,
            retention_restore,
            allowed=("ConsumerGroupLagging",),
            bound_s=RETENTION_BOUND_S,
            prepare=retention_start,
            cleanup=retention_stop,
            verify=check_retention_page,
        ),
        Scenario(
            "disk-full",
            f"broker {DISK_BROKER}'s second log directory on a {DISK_SIZE} tmpfs, a topic it "
            "leads placed there, written until Kafka takes the directory offline: "
            "LogDirOffline names the broker and the directory; delete the topic, restart the "
            "broker without it: resolved",
            (DISK_BROKER,),
            ("LogDirOffline",),
            fill_disk,
            disk_restore,
            cause="LogDirOffline",
            prepare=disk_prepare,
            cleanup=disk_restore,
        ),
        Scenario(
            "short-pauses",
            f"SIGSTOP broker {VICTIM} for 1-3.5 s (KRaft) or 1-2 s (ZooKeeper, 6 s sessions), "
            f"{SHORT_PAUSE_GAP_S:g} s apart, then a real Full GC of 3 s (2 s): pauses the "
            "cluster rides out, no page",
            (),
            (),
            short_pauses,
            observe_s=30.0,
            # Warnings, right about it: a real Full GC; p99 write latency over 1 s for a minute
            # (the pauses' probes are more than 1 % of a minute's).
            tolerated=("FullGC", "CanaryWriteLatencyHigh"),
        ),
        Scenario(
            "slow-restart",
            f"controlled shutdown of broker {SLOW_RESTART_BROKER}, down "
            f"{SLOW_RESTART_DOWN_S:g} s, then started: no page",
            (),
            (),
            slow_restart,
            observe_s=60.0,
        ),
        Scenario(
            "rolling-restart",
            "controlled shutdown and start of each broker in turn, waiting for a full ISR "
            "between: no page",
            (),
            (),
            rolling_restart,
            observe_s=60.0,
        ),
        Scenario(
            "broker-decommission",
            f"a planned decommission of broker {DECOMMISSIONED}: every partition reassigned off "
            "it (the canary topic's too), controlled shutdown, unregistered (KRaft), gone for "
            "good; past job.inventory_ttl_s nothing about it is left at the job's /metrics: "
            "no page",
            (),
            (),
            decommission,
            recommission,
            verify=left_the_monitor,
            observe_s=0.0,
        ),
    )
}
"""In the order ``bench faults`` runs them: the slow and the rolling restart last, because
their controlled shutdowns open maintenance windows that would mute the faults after them, and
the decommission after them (it stops broker 3 for good, and gives it back only at its end).
The consumer-side scenarios follow one another, each on a topic and a group of its own (a group
left Empty at one's cleanup would fall behind in another's writes and page in its run);
coordinator-kill leaves its own group listed under the killed broker, dormant, for 5 minutes
after the broker is back (the monitor's sticky attribution), which touches no other group."""
