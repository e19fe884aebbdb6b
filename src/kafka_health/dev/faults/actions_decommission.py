"""The fault suite's planned decommission of a broker, and its undo."""

from __future__ import annotations

import time
from typing import Any

from kafka_health.dev.faults.context import FaultContext

DECOMMISSIONED = 3
DEPARTURE_MARGIN_S = 120.0
"""After ``job.inventory_ttl_s``: a snapshot interval or two, a batch, and the alert service's
evaluation until the broker's last series is gone from the job's /metrics."""
AFTER_DEPARTURE_S = 30.0
"""The pager is watched this long after the broker left the monitor (a late resolution or
page would show here)."""


def monitored_admin(ctx: FaultContext, brokers: list[int]) -> Any:
    from kafka import KafkaAdminClient

    servers = [ctx.cluster.node(b).bootstrap for b in brokers]
    return KafkaAdminClient(
        bootstrap_servers=servers, client_id="kafka-health-faults", request_timeout_ms=15_000
    )


def decommission(ctx: FaultContext) -> None:
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
    admin = monitored_admin(ctx, others)
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
    admin = monitored_admin(ctx, others)
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


def recommission(ctx: FaultContext) -> None:
    """Broker 3 back for the next run: started (it registers again), the partitions the run
    moved given back (the canary lays its own topic out again once the broker is live)."""
    from kafka_health.config import load_config
    from kafka_health.dev.faults.decommission import reassign

    ctx.start_brokers([DECOMMISSIONED])
    canary_topic = load_config(ctx.config_file).topics.canary
    before = {(t, int(p)): list(r) for t, p, r in ctx.notes.get("assignment_before", [])}
    admin = monitored_admin(ctx, [n.broker_id for n in ctx.cluster.nodes])
    try:
        back = {tp: r for tp, r in before.items() if DECOMMISSIONED in r and tp[0] != canary_topic}
        ctx.notes["restore_s"] = reassign(admin, back)
    finally:
        admin.close()
    ctx.notes.pop("assignment_before", None)  # not for the report


def left_the_monitor(ctx: FaultContext) -> None:
    if ctx.notes.get("left_monitor_after_s") is None:
        raise AssertionError(
            f"broker {DECOMMISSIONED} still at the job's /metrics after "
            f"job.inventory_ttl_s + {DEPARTURE_MARGIN_S:g} s: {ctx.notes.get('still_about_broker')}"
        )
