"""Fault suite actions on the monitored cluster's brokers: kill, start, freeze, thaw, a real
Full GC; two brokers or the whole cluster down."""

from __future__ import annotations

import time

from kafka_health.dev.faults.context import Action, FaultContext

VICTIM = 3
"""The broker most scenarios break (any would do; the report names it)."""


def kill_brokers(*brokers: int) -> Action:
    def inject(ctx: FaultContext) -> None:
        for broker in brokers:
            ctx.cluster.kill_broker(broker)

    return inject


def start_brokers(*brokers: int) -> Action:
    def undo(ctx: FaultContext) -> None:
        ctx.start_brokers(list(brokers))

    return undo


def freeze_victim(ctx: FaultContext) -> None:
    ctx.cluster.freeze_broker(VICTIM)


def thaw_victim(ctx: FaultContext) -> None:
    ctx.cluster.thaw_broker(VICTIM)
    ctx.notes["paged_while_frozen"] = any(
        p.status == "firing" for p in ctx.receiver.pages_since(ctx.injected_at)
    )


GC_PAUSE_S = 12.0


def gc_pause_victim(ctx: FaultContext) -> None:
    logged = ctx.cluster.gc_pause_broker(VICTIM, GC_PAUSE_S)
    ctx.notes["logged_pause_s"] = round(logged, 3)
    ctx.notes["resumed_at"] = time.time()


def two_down(ctx: FaultContext) -> None:
    kill_brokers(2, 3)(ctx)
    ctx.notes["condition"] = (
        "quorum lost: 2 of 3 KRaft controller voters down, the survivor cannot elect leaders"
        if ctx.cluster.spec.mode == "kraft"
        else "NotEnoughReplicas: one replica left of each partition, below min.insync.replicas"
    )


def all_brokers(ctx: FaultContext) -> list[int]:
    return [n.broker_id for n in ctx.cluster.nodes]


def cluster_down(ctx: FaultContext) -> None:
    for broker in all_brokers(ctx):
        ctx.cluster.kill_broker(broker)


def cluster_up(ctx: FaultContext) -> None:
    ctx.start_brokers(all_brokers(ctx), timeout_s=180.0)
