"""Fault suite actions on the transport cluster (the monitor's own topics): kill, start,
freeze, thaw every broker of it."""

from __future__ import annotations

from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev.faults.context import FaultContext


def transport_cluster(ctx: FaultContext) -> LocalCluster:
    if ctx.transport is None:
        raise RuntimeError("this scenario needs the transport layout (--layout transport)")
    return ctx.transport


def transport_kill(ctx: FaultContext) -> None:
    transport = transport_cluster(ctx)
    for node in transport.nodes:
        transport.kill_broker(node.broker_id)


def transport_start(ctx: FaultContext) -> None:
    transport = transport_cluster(ctx).refresh()
    for node in transport.nodes:
        if process_state(node.pid) == "stopped":
            transport.start_broker(node.broker_id, wait=False)
    transport.wait_until_registered(len(transport.nodes), 120.0)


def transport_freeze(ctx: FaultContext) -> None:
    transport = transport_cluster(ctx)
    for node in transport.nodes:
        transport.freeze_broker(node.broker_id)


def transport_thaw(ctx: FaultContext) -> None:
    transport = transport_cluster(ctx)
    for node in transport.nodes:
        transport.thaw_broker(node.broker_id)
    ctx.notes["paged_while_frozen"] = any(
        p.status == "firing" for p in ctx.receiver.pages_since(ctx.injected_at)
    )
