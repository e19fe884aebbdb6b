"""The fault suite's controller-kill: SIGKILL the active controller of the KRaft quorum, start
it again 15 s later.

The dev cluster's KRaft nodes are combined (``process.roles=broker,controller``, every node a
voter of ``controller.quorum.voters``: devcluster/broker_config.py), so the active controller
is also a broker, and which one it is changes with every fault before. It is found at the
injection: DescribeQuorum through a broker (kafka-python's ``describe_metadata_quorum``; a
broker forwards it to the controllers, KafkaApis 3.x-4.x), else the newest epoch's leader in
the nodes' own logs ("Becoming the active controller at epoch E", "In the new epoch E, the
leader is L."). The scenario's targets are that node (``ctx.targets``).

What it must page: the dead broker's own alerts, and nothing about the quorum. Its followers
stop hearing it after ``controller.quorum.fetch.timeout.ms`` (2 s), one of them wins a vote
(``controller.quorum.election.timeout.ms``, 1-2 s), so the quorum has a new leader within
2-4 s: one election, milliseconds to 2 s without a leader in the logs, below both quorum rules
(KRaftControllerUnstable: more than 3 elections in 5 minutes; KRaftNoActiveController: over
10 s without a leader). The pings see the node refuse at once (BrokerNotAnswering), the new
controller fences its broker or registers its new incarnation (BrokerFailed, the cause). A
quorum alert paging would be unexpected; one that fired but was explained by the node's own
page (a slow vote on a loaded machine) is not a page, and ``verify`` notes how long the vote
took from the logs (``elected_after_s``) and what the job's detector saw.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from kafka_health.dev.faults.actions_decommission import monitored_admin
from kafka_health.dev.faults.context import FaultContext

CONTROLLER_DOWN_S = 15.0
"""How long the killed controller stays down: past its broker's session (9 s after the new
controller took over, which fences it: BrokerFailed, the cause), and long enough that the new
leader is elected while it is away (restarted at once, its resignation at start-up would call
the vote itself)."""
QUORUM_RECOVERY_S = 10.0
"""The new leader is expected within this of the kill: the fetch timeout (2 s), a vote or two
(1-2 s each, and a backoff of up to 1 s), well below KRaftNoActiveController's 10 s of no
leader counted from the vote's start."""
LEADER_LINE = re.compile(
    r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] \w+ \[QuorumController id=(\d+)\] "
    r"(?:Becoming the active controller at epoch (\d+)|In the new epoch (\d+), the leader is "
    r"(\d+|\(none\)))"
)
"""QuorumController's leader lines (3.x-4.x): the new leader's own, and the others'."""
LOG_FILES = ("controller.log*", "server.log*")
"""Where they are (4.x devcluster: controller.log; 3.x's log4j.properties: server.log), with
the hourly rolled files."""
QUORUM_ALERTS = ("KRaftControllerUnstable", "KRaftNoActiveController")


def quorum_leader(answer: Mapping[str, Any]) -> tuple[int, int] | None:
    """(leader, epoch) of ``__cluster_metadata-0`` in a DescribeQuorum answer (kafka-python's
    ``describe_metadata_quorum``), or None without a leader."""
    for topic in answer.get("topics", []):
        for p in topic.get("partitions", []):
            if p.get("error"):
                continue
            leader, epoch = int(p.get("leader_id", -1)), int(p.get("leader_epoch", -1))
            if leader >= 0:
                return leader, epoch
    return None


def leader_lines(lines: Iterable[str]) -> list[tuple[float, int, int | None, int]]:
    """(epoch seconds, epoch, leader or None, logging node) of each leader line."""
    found: list[tuple[float, int, int | None, int]] = []
    for line in lines:
        m = LEADER_LINE.match(line)
        if m is None:
            continue
        stamp, node, active_epoch, epoch, named = m.groups()
        at = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").astimezone().timestamp()
        if active_epoch is not None:
            found.append((at, int(active_epoch), int(node), int(node)))
        else:
            leader = None if named == "(none)" else int(named)
            found.append((at, int(epoch), leader, int(node)))
    return sorted(found)


def active_from_logs(lines: Iterable[str]) -> tuple[int, int] | None:
    """(leader, epoch) of the newest epoch with a leader the lines name."""
    led = [(epoch, leader) for _, epoch, leader, _ in leader_lines(lines) if leader is not None]
    if not led:
        return None
    epoch, leader = max(led)
    return leader, epoch


def failover(lines: Iterable[str], killed_at: float) -> dict[str, Any]:
    """The first election after the kill: who won, at which epoch, how long after the kill,
    and how long the logs showed no leader (the vote's first "(none)" to its winner)."""
    seen = leader_lines(lines)
    old_epoch = max((e for at, e, lead, _ in seen if at < killed_at and lead is not None),
                    default=-1)  # fmt: skip
    after = [(at, e, lead) for at, e, lead, _ in seen if at >= killed_at and e > old_epoch]
    won = [(e, at, lead) for at, e, lead in after if lead is not None]
    if not won:
        return {"elected": False, "old_epoch": old_epoch}
    epoch, at, leader = min(won)
    votes = [a for a, e, lead in after if lead is None and e <= epoch]
    return {
        "elected": True,
        "old_epoch": old_epoch,
        "new_epoch": epoch,
        "new_leader": leader,
        "elected_after_s": round(at - killed_at, 3),
        "no_leader_s": round(at - min(votes), 3) if votes else 0.0,
        "elections": len({e for e, _, _ in won}),
    }


def node_log_lines(log_dir: Path) -> list[str]:
    """Every line of a node's controller and server logs (rolled files too)."""
    lines: list[str] = []
    for pattern in LOG_FILES:
        for path in sorted(log_dir.glob(pattern)):
            try:
                lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
    return lines


def cluster_log_lines(ctx: FaultContext) -> list[str]:
    return [line for n in ctx.cluster.nodes for line in node_log_lines(n.log_dir)]


def active_controller(ctx: FaultContext) -> tuple[int, str]:
    """The active controller now, and how it was found."""
    brokers = [n.broker_id for n in ctx.cluster.nodes]
    try:
        admin = monitored_admin(ctx, brokers)
        try:
            found = quorum_leader(admin.describe_metadata_quorum())
        finally:
            admin.close()
        if found is not None and found[0] in brokers:
            ctx.notes["epoch_before"] = found[1]
            return found[0], "DescribeQuorum"
    except Exception as exc:  # an older client or broker: the logs say it too
        ctx.notes["describe_quorum_error"] = f"{type(exc).__name__}: {exc}"
    from_logs = active_from_logs(cluster_log_lines(ctx))
    if from_logs is None or from_logs[0] not in brokers:
        raise RuntimeError("no active controller found (DescribeQuorum, the nodes' logs)")
    ctx.notes["epoch_before"] = from_logs[1]
    return from_logs[0], "logs"


def kill_active_controller(ctx: FaultContext) -> None:
    if ctx.cluster.spec.mode != "kraft":
        raise RuntimeError("controller-kill needs a KRaft cluster (--mode kraft)")
    victim, how = active_controller(ctx)
    ctx.targets = (victim,)
    ctx.notes["active_controller"] = victim
    ctx.notes["active_controller_from"] = how
    ctx.say(f"  the active controller is {victim} (epoch {ctx.notes['epoch_before']}, {how}):"
            " SIGKILL")  # fmt: skip
    ctx.cluster.kill_broker(victim)
    ctx.notes["killed_at"] = time.time()


def restart_controller(ctx: FaultContext) -> None:
    victim = int(ctx.notes["active_controller"])
    ctx.start_brokers([victim])
    ctx.notes["restarted_after_s"] = round(time.time() - ctx.notes["killed_at"], 1)


def check_failover(ctx: FaultContext) -> None:
    """From the nodes' logs: the new leader, how soon, how long without one; from the job's
    /metrics: what its detector saw; from the receiver: no quorum page."""
    from kafka_health.dev.faults.evaluate import alerts_of
    from kafka_health.dev.faults.monitor import scrape

    if "active_controller" not in ctx.notes:
        return
    seen = failover(cluster_log_lines(ctx), float(ctx.notes["killed_at"]))
    ctx.notes.update({f"quorum_{k}": v for k, v in seen.items()})
    if seen.get("elected"):
        ctx.notes["recovered_within_timeouts"] = seen["elected_after_s"] <= QUORUM_RECOVERY_S
    metrics = scrape(ctx.metrics_port) if ctx.metrics_port else {}
    for name in ("kraft_controller_elections", "kraft_leaderless_seconds"):
        value = metrics.get((f"kafka_health_{name}", ()))
        if value is not None:
            ctx.notes[f"job_{name}"] = value
    paged = {a.alertname for a in alerts_of(ctx.receiver.pages_since(ctx.injected_at))
             if a.status == "firing"}  # fmt: skip
    ctx.notes["quorum_pages"] = sorted(paged & set(QUORUM_ALERTS))
