"""The faults of the fault suite, each with the page it must produce written down.

A scenario names the brokers it touches, the alerts of which one must page (``expected``: the
first notification that carries one of them, about a touched broker or the whole cluster, is
"the page"), the alert that names the cause when there is one (``cause``), and the other
alerts a correct monitor may send about the same fault (``allowed``). Anything else that
fires during the run, and anything naming a broker the fault did not touch, is unexpected.

``inject`` may block (a rolling restart runs to its end inside it); ``hold_s`` is how long the
fault lasts from the injection before ``undo`` (None: until the expected page came, or the
bound passed). Every scenario runs in both cluster modes; in ZooKeeper mode (6 s sessions,
as in the seeds) a freeze or a long GC pause becomes a ZooKeeper session expiry.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.cluster import process_state
from kafka_health.dev.faults.context import FaultContext

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
DEFAULT_BOUND_S = 180.0
"""Seconds from the injection within which the expected page must come (today's monitor)."""


Action = Callable[[FaultContext], None]


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

    @property
    def expects_page(self) -> bool:
        return bool(self.expected)

    def describe_expected(self) -> str:
        if not self.expected:
            return "no page"
        where = ", ".join(str(t) for t in self.targets)
        about = f"on broker {where} (or the cluster)" if where else "about the monitor or cluster"
        text = f"{'|'.join(self.expected)} {about}"
        return text + (f"; cause named by {self.cause}" if self.cause else "")


# ------------------------------------------------------------------------- the faults

VICTIM = 3
"""The broker most scenarios break (any would do; the report names it)."""


def _kill(*brokers: int) -> Action:
    def inject(ctx: FaultContext) -> None:
        for broker in brokers:
            ctx.cluster.kill_broker(broker)

    return inject


def _start(*brokers: int) -> Action:
    def undo(ctx: FaultContext) -> None:
        ctx.start_brokers(list(brokers))

    return undo


def _freeze(ctx: FaultContext) -> None:
    ctx.cluster.freeze_broker(VICTIM)


def _thaw(ctx: FaultContext) -> None:
    ctx.cluster.thaw_broker(VICTIM)
    ctx.notes["paged_while_frozen"] = any(
        p.status == "firing" for p in ctx.receiver.pages_since(ctx.injected_at)
    )


GC_PAUSE_S = 12.0


def _gc_pause(ctx: FaultContext) -> None:
    logged = ctx.cluster.gc_pause_broker(VICTIM, GC_PAUSE_S)
    ctx.notes["logged_pause_s"] = round(logged, 3)
    ctx.notes["resumed_at"] = time.time()


def _two_down(ctx: FaultContext) -> None:
    _kill(2, 3)(ctx)
    ctx.notes["condition"] = (
        "quorum lost: 2 of 3 KRaft controller voters down, the survivor cannot elect leaders"
        if ctx.cluster.spec.mode == "kraft"
        else "NotEnoughReplicas: one replica left of each partition, below min.insync.replicas"
    )


def _all_brokers(ctx: FaultContext) -> list[int]:
    return [n.broker_id for n in ctx.cluster.nodes]


def _cluster_down(ctx: FaultContext) -> None:
    for broker in _all_brokers(ctx):
        ctx.cluster.kill_broker(broker)


def _cluster_up(ctx: FaultContext) -> None:
    ctx.start_brokers(_all_brokers(ctx), timeout_s=180.0)


def _transport_cluster(ctx: FaultContext) -> LocalCluster:
    if ctx.transport is None:
        raise RuntimeError("this scenario needs the transport layout (--layout transport)")
    return ctx.transport


def _transport_kill(ctx: FaultContext) -> None:
    transport = _transport_cluster(ctx)
    for node in transport.nodes:
        transport.kill_broker(node.broker_id)


def _transport_start(ctx: FaultContext) -> None:
    transport = _transport_cluster(ctx).refresh()
    for node in transport.nodes:
        if process_state(node.pid) == "stopped":
            transport.start_broker(node.broker_id, wait=False)
    transport.wait_until_registered(len(transport.nodes), 120.0)


def _transport_freeze(ctx: FaultContext) -> None:
    transport = _transport_cluster(ctx)
    for node in transport.nodes:
        transport.freeze_broker(node.broker_id)


def _transport_thaw(ctx: FaultContext) -> None:
    transport = _transport_cluster(ctx)
    for node in transport.nodes:
        transport.thaw_broker(node.broker_id)
    ctx.notes["paged_while_frozen"] = any(
        p.status == "firing" for p in ctx.receiver.pages_since(ctx.injected_at)
    )


TRANSPORT_HOLD_S = 30.0
MONITOR_BLIND = ("TransportUnreachable", "MonitorStalled", "ClusterUnreachable", "MonitorBlind")
"""What a monitor that cannot read its own topics pages about itself (issue 12.8: within
10 s, naming what it cannot read)."""

ROLLING_ISR_WAIT_S = 120.0


def _rolling_restart(ctx: FaultContext) -> None:
    """Controlled shutdown and start of each broker in turn, waiting for a full ISR between."""
    from kafka_health.dev.faults.isr import wait_fully_replicated

    for broker in _all_brokers(ctx):
        ctx.say(f"  rolling restart: broker {broker}")
        ctx.cluster.stop_broker(broker)
        ctx.cluster.start_broker(broker, wait=True)
        took = wait_fully_replicated(ctx.cluster, ROLLING_ISR_WAIT_S)
        ctx.notes.setdefault("isr_recovery_s", []).append(took)


SHORT_PAUSES_S = {"kraft": (1.0, 2.0, 3.0, 3.5), "zookeeper": (1.0, 2.0)}
"""SIGSTOPs of the victim that must not page, per mode. BrokerNotAnswering pages a pause once
it has gone 5 s without an answer (at most a ping interval, 1 s, passes between the last answer
and the pause), so no pause under 4 s does. In ZooKeeper mode the session (6 s, as in the
seeds) decides first: its client hears the server every 2 s and gives the connection up after
4 s without it, and a 3 s pause expired the session (measured: the broker re-registered, its
partitions truncated, ZkSessionExpired paged, rightly); up to a third of the session, 2 s, it
rides it out."""
SHORT_GC_PAUSE_S = {"kraft": 3.0, "zookeeper": 2.0}
SHORT_PAUSE_GAP_S = 30.0
"""Between two pauses, so each is judged alone: longer than the window of the canary's
follower-wait failures (20 s). Pauses 15 s apart kept it from emptying for 45 s and paged
CanaryAcksAllStalled: a broker that pauses every 15 s is sick, which is not this scenario."""


def _short_pauses(ctx: FaultContext) -> None:
    """Pauses a healthy cluster rides out: SIGSTOPs, then a real Full GC of the same order.
    Clients' requests wait (request.timeout.ms 30 s), no session expires (KRaft 9 s; the
    ZooKeeper mode's 6 s, see :data:`SHORT_PAUSES_S`), no follower leaves an ISR."""
    mode = ctx.cluster.spec.mode
    for pause_s in SHORT_PAUSES_S[mode]:
        ctx.say(f"  SIGSTOP broker {VICTIM} for {pause_s:g} s")
        ctx.cluster.freeze_broker(VICTIM)
        try:
            time.sleep(pause_s)
        finally:
            ctx.cluster.thaw_broker(VICTIM)
        time.sleep(SHORT_PAUSE_GAP_S)
    ctx.say(f"  a real Full GC on broker {VICTIM} held {SHORT_GC_PAUSE_S[mode]:g} s")
    logged = ctx.cluster.gc_pause_broker(VICTIM, SHORT_GC_PAUSE_S[mode])
    ctx.notes["logged_gc_pause_s"] = round(logged, 3)


SLOW_RESTART_BROKER = 2
SLOW_RESTART_DOWN_S = 20.0
"""Down this long after its controlled shutdown (an upgrade, a host reboot): past
BrokerNotAnswering's 5 s, so only its maintenance window keeps it quiet."""


def _slow_restart(ctx: FaultContext) -> None:
    """Controlled shutdown of one broker, down 20 s, started again: a planned restart that
    takes longer than a page's threshold."""
    from kafka_health.dev.faults.isr import wait_fully_replicated

    ctx.say(
        f"  controlled shutdown of broker {SLOW_RESTART_BROKER}, down {SLOW_RESTART_DOWN_S:g} s"
    )
    ctx.cluster.stop_broker(SLOW_RESTART_BROKER)
    time.sleep(SLOW_RESTART_DOWN_S)
    ctx.cluster.start_broker(SLOW_RESTART_BROKER, wait=True)
    ctx.notes["isr_recovery_s"] = [wait_fully_replicated(ctx.cluster, ROLLING_ISR_WAIT_S)]


OUTAGE_500_S = 60.0
OUTAGE_HANG_S = 60.0


def _receiver_outage(ctx: FaultContext) -> None:
    """The receiver answers 500, then hangs; the broker is killed at the start and back
    during the hang: the page and its resolution both wait for the receiver."""
    ctx.receiver.set_mode("500")
    ctx.cluster.kill_broker(VICTIM)
    time.sleep(OUTAGE_500_S)
    ctx.receiver.set_mode("hang")
    ctx.start_brokers([VICTIM])
    remaining = OUTAGE_500_S + OUTAGE_HANG_S - (time.time() - ctx.injected_at)
    time.sleep(max(0.0, remaining))
    ctx.receiver.set_mode("ok")
    ctx.notes["receiver_back_at"] = time.time()


def _receiver_back(ctx: FaultContext) -> None:
    ctx.receiver.set_mode("ok")


def _monitor_kill(ctx: FaultContext) -> None:
    """Two brokers down; once the page came, SIGKILL the job and start it again."""
    assert ctx.monitor is not None
    _two_down(ctx)
    page = ctx.wait_for_firing(DEFAULT_BOUND_S)
    ctx.notes["paged_before_kill"] = page is not None
    ctx.monitor.kill("run")
    ctx.notes["job_killed_at"] = time.time()
    ctx.monitor.start_part("run", ctx.config_file)
    time.sleep(JOB_BACK_S)  # the restarted job sees the brokers still down


JOB_BACK_S = 60.0
JOB_KILLS = 10
JOB_KILL_AFTER_S = (1.0, 35.0)
"""Each kill comes this long after the job's (re)start, drawn uniformly: before 20-25 s
Spark is still starting (the alert service may be sending its backlog), after it batches run."""
JOB_KILLS_SEED = 15


def _monitor_kills(ctx: FaultContext) -> None:
    """Two brokers down; once the page came, SIGKILL `kafka-health run` ten times at random
    points of its life (seeded), starting it again each time; then let it run."""
    assert ctx.monitor is not None
    _two_down(ctx)
    page = ctx.wait_for_firing(DEFAULT_BOUND_S)
    ctx.notes["paged_before_kill"] = page is not None
    draw = random.Random(JOB_KILLS_SEED)
    kills: list[float] = []
    for _ in range(JOB_KILLS):
        time.sleep(draw.uniform(*JOB_KILL_AFTER_S))
        ctx.monitor.kill("run")
        kills.append(round(time.time() - ctx.injected_at, 1))
        ctx.monitor.start_part("run", ctx.config_file)
    ctx.notes["job_killed_after_s"] = kills
    time.sleep(JOB_BACK_S)  # the last start sees the brokers still down


def _monitor_restore(ctx: FaultContext) -> None:
    assert ctx.monitor is not None
    if not ctx.monitor.alive("run"):
        ctx.monitor.start_part("run", ctx.config_file)
    _start(2, 3)(ctx)


MONITOR_KILL = Scenario(
    "monitor-kill",
    "brokers 2 and 3 down; SIGKILL `kafka-health run` while it fires, start it again: "
    "no duplicate page, the resolution arrives",
    (2, 3),
    (
        "BrokerNotAnswering",
        "BrokerFailed",
        "CanaryWriteFailure",
        "UnderMinIsr",
        "ClusterUnreachable",
    ),
    _monitor_kill,
    _monitor_restore,
    allowed=SYMPTOMS + BLIND_ALERTS,
    hold_s=0.0,
    needs_monitor_processes=True,
)


def _canary_with_acks1(ctx: FaultContext) -> None:
    """Restart the canary with its acks=1 probe on (the data-loss window)."""
    assert ctx.monitor is not None
    ctx.monitor.stop_part("canary")
    ctx.monitor.start_part("canary", ctx.config_file.with_name("monitor-acks1.yaml"))


def _canary_default(ctx: FaultContext) -> None:
    assert ctx.monitor is not None
    ctx.monitor.stop_part("canary")
    ctx.monitor.start_part("canary", ctx.config_file)


def record_acks1_truth(ctx: FaultContext) -> None:
    """Ground truth for this run's acks=1 writes, into ``ctx.notes`` (the judge allows
    CanaryWritesLost when some were lost, and a run that lost some must page it)."""
    from kafka_health.dev.faults.loss import acks1_loss

    truth = acks1_loss(ctx, since=ctx.injected_at - 30.0)
    ctx.notes["acks1_acknowledged"] = truth.acknowledged
    ctx.notes["acks1_lost"] = truth.lost


LOSS_SETTLE_S = 150.0
"""The job calls an acknowledged write lost after job.loss_grace_s (60 s) without it in the
canary topic; the page follows its evaluation."""

DECOMMISSIONED = 3
DEPARTURE_MARGIN_S = 120.0
"""After ``job.inventory_ttl_s``: a snapshot interval or two, a batch, and the alert service's
evaluation until the broker's last series is gone from the job's /metrics."""
AFTER_DEPARTURE_S = 30.0
"""The pager is watched this long after the broker left the monitor (a late resolution or
page would show here)."""


def _monitored_admin(ctx: FaultContext, brokers: list[int]) -> Any:
    from kafka import KafkaAdminClient

    servers = [ctx.cluster.node(b).bootstrap for b in brokers]
    return KafkaAdminClient(
        bootstrap_servers=servers, client_id="kafka-health-faults", request_timeout_ms=15_000
    )


def _decommission(ctx: FaultContext) -> None:
    """Reassign every partition off broker 3 (the canary topic's too), stop it cleanly,
    unregister it (KRaft), then wait past ``job.inventory_ttl_s`` until nothing about it is
    left at the job's /metrics (no series, no open alert)."""
    from kafka_health.config import load_config
    from kafka_health.dev.faults.decommission import (
        alerts_open,
        assignment,
        in_maintenance,
        reassign,
        samples_about,
        unregister_broker,
        without,
    )
    from kafka_health.dev.faults.monitor import scrape

    ttl_s = load_config(ctx.config_file).job.inventory_ttl_s
    others = [n.broker_id for n in ctx.cluster.nodes if n.broker_id != DECOMMISSIONED]
    admin = _monitored_admin(ctx, others)
    try:
        before = assignment(admin)
        moves = without(before, DECOMMISSIONED)
        ctx.notes["assignment_before"] = [[t, p, r] for (t, p), r in sorted(before.items())]
        ctx.say(f"  reassigning {len(moves)} partitions off broker {DECOMMISSIONED}")
        ctx.notes["reassigned_partitions"] = len(moves)
        ctx.notes["reassign_s"] = reassign(admin, moves)
    finally:
        admin.close()
    ctx.say(f"  controlled shutdown of broker {DECOMMISSIONED}, for good")
    ctx.cluster.stop_broker(DECOMMISSIONED)
    stopped_at = time.time()
    ctx.notes["stopped_after_s"] = round(stopped_at - ctx.injected_at, 1)
    if ctx.cluster.spec.mode == "kraft":  # a stopped KRaft broker stays registered (fenced)
        code = unregister_broker(ctx.cluster.node(others[0]).bootstrap, DECOMMISSIONED)
        ctx.notes["unregistered"] = "ok" if code == 0 else f"error {code}"
    # The operator's last look: the canary lays its topic out over the live brokers, and a
    # management round between the reassignment and the shutdown puts replicas back on the
    # leaving broker. Moved off again (it is down now: the canary leaves them).
    admin = _monitored_admin(ctx, others)
    try:
        again = without(assignment(admin), DECOMMISSIONED)
        if again:
            ctx.say(f"  {len(again)} partitions came back to broker {DECOMMISSIONED}: again")
            ctx.notes["reassigned_again"] = {"partitions": len(again), "s": reassign(admin, again)}
    finally:
        admin.close()
    ctx.say(f"  waiting past job.inventory_ttl_s ({ttl_s:g} s) for broker "
            f"{DECOMMISSIONED} to leave the monitor")  # fmt: skip
    ctx.notes["inventory_ttl_s"] = ttl_s
    left_at: float | None = None
    about: list[str] = []
    while time.time() - stopped_at < ttl_s + DEPARTURE_MARGIN_S:
        metrics = scrape(ctx.metrics_port)
        about = samples_about(metrics, DECOMMISSIONED)
        if metrics and not about and time.time() - stopped_at >= ttl_s:
            left_at = time.time()
            ctx.notes["open_alerts_at_departure"] = alerts_open(metrics)
            ctx.notes["maintenance_at_departure"] = in_maintenance(metrics)
            break
        time.sleep(2.0)
    ctx.notes["left_monitor_after_s"] = None if left_at is None else round(left_at - stopped_at, 1)
    ctx.notes["still_about_broker"] = about[:20]
    time.sleep(AFTER_DEPARTURE_S)


def _recommission(ctx: FaultContext) -> None:
    """Broker 3 back for the next run: started (it registers again), the partitions the run
    moved given back (the canary lays its own topic out again once the broker is live)."""
    from kafka_health.config import load_config
    from kafka_health.dev.faults.decommission import reassign

    ctx.start_brokers([DECOMMISSIONED])
    canary_topic = load_config(ctx.config_file).topics.canary
    before = {(t, int(p)): list(r) for t, p, r in ctx.notes.get("assignment_before", [])}
    admin = _monitored_admin(ctx, [n.broker_id for n in ctx.cluster.nodes])
    try:
        back = {tp: r for tp, r in before.items() if DECOMMISSIONED in r and tp[0] != canary_topic}
        ctx.notes["restore_s"] = reassign(admin, back)
    finally:
        admin.close()
    ctx.notes.pop("assignment_before", None)  # not for the report


def _left_the_monitor(ctx: FaultContext) -> None:
    if ctx.notes.get("left_monitor_after_s") is None:
        raise AssertionError(
            f"broker {DECOMMISSIONED} still at the job's /metrics after "
            f"job.inventory_ttl_s + {DEPARTURE_MARGIN_S:g} s: {ctx.notes.get('still_about_broker')}"
        )


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "broker-kill",
            f"SIGKILL broker {VICTIM}; start it again after the page",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            _kill(VICTIM),
            _start(VICTIM),
            cause="BrokerFailed",
        ),
        Scenario(
            "broker-freeze",
            f"SIGSTOP broker {VICTIM} for 40 s (a hung broker), then SIGCONT",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            _freeze,
            _thaw,
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
            _gc_pause,
            allowed=SYMPTOMS + GC_ALERTS,
            cause="FullGCPauseOverSessionTimeout",
        ),
        Scenario(
            "two-brokers-down",
            "SIGKILL brokers 2 and 3 (KRaft: the controller quorum is lost; ZooKeeper: "
            "acks=all writes fail with NotEnoughReplicas); start them after the page",
            (2, 3),
            (
                "BrokerNotAnswering",
                "BrokerFailed",
                "CanaryWriteFailure",
                "UnderMinIsr",
                "ClusterUnreachable",
            ),
            _two_down,
            _start(2, 3),
            allowed=SYMPTOMS + BLIND_ALERTS,
        ),
        Scenario(
            "cluster-down",
            "SIGKILL every broker (power loss) for 60 s, then start them",
            (1, 2, 3),
            ("ClusterUnreachable", "BrokerNotAnswering", "CanaryWriteFailure", "BrokerFailed"),
            _cluster_down,
            _cluster_up,
            allowed=SYMPTOMS + BLIND_ALERTS,
            hold_s=60.0,
        ),
        Scenario(
            "acks1-loss",
            f"acks=1 canary probes on; SIGKILL broker {VICTIM}, a canary partition's leader; "
            "every acknowledged acks=1 write that is gone must page CanaryWritesLost",
            (VICTIM,),
            ("BrokerNotAnswering", "BrokerFailed", "CanaryWriteFailure"),
            _kill(VICTIM),
            _start(VICTIM),
            allowed=(*SYMPTOMS, "CanaryWritesLost"),
            prepare=_canary_with_acks1,
            cleanup=_canary_default,
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
            _receiver_outage,
            _receiver_back,
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
            inject=_monitor_kills,
        ),
        Scenario(
            "transport-down",
            f"SIGKILL the transport cluster (the monitor's own topics) for "
            f"{TRANSPORT_HOLD_S:.0f} s, then start it: the monitored cluster is healthy, the "
            "monitor is blind and must say so",
            (),
            MONITOR_BLIND,
            _transport_kill,
            _transport_start,
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
            _transport_freeze,
            _transport_thaw,
            allowed=MONITOR_BLIND,
            hold_s=TRANSPORT_HOLD_S,
            layouts=("transport",),
        ),
        Scenario(
            "short-pauses",
            f"SIGSTOP broker {VICTIM} for 1-3.5 s (KRaft) or 1-2 s (ZooKeeper, 6 s sessions), "
            f"{SHORT_PAUSE_GAP_S:g} s apart, then a real Full GC of 3 s (2 s): pauses the "
            "cluster rides out, no page",
            (),
            (),
            _short_pauses,
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
            _slow_restart,
            observe_s=60.0,
        ),
        Scenario(
            "rolling-restart",
            "controlled shutdown and start of each broker in turn, waiting for a full ISR "
            "between: no page",
            (),
            (),
            _rolling_restart,
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
            _decommission,
            _recommission,
            verify=_left_the_monitor,
            observe_s=0.0,
        ),
    )
}
"""In the order ``bench faults`` runs them: the slow and the rolling restart last, because
their controlled shutdowns open maintenance windows that would mute the faults after them, and
the decommission after them (it stops broker 3 for good, and gives it back only at its end)."""
