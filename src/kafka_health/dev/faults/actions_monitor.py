"""Fault suite actions on the monitor's side: the alert receiver's outage, `kafka-health
run` killed and started again, the canary restarted with acks=1 probes."""

from __future__ import annotations

import random
import time
from pathlib import Path

from kafka_health.config import load_config
from kafka_health.dev.faults.actions_brokers import VICTIM, start_brokers, two_down
from kafka_health.dev.faults.context import DEFAULT_BOUND_S, FaultContext

OUTAGE_500_S = 60.0
OUTAGE_HANG_S = 60.0


def receiver_outage(ctx: FaultContext) -> None:
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


def receiver_back(ctx: FaultContext) -> None:
    ctx.receiver.set_mode("ok")


def monitor_kill(ctx: FaultContext) -> None:
    """Two brokers down; once the page came, SIGKILL the job and start it again."""
    assert ctx.monitor is not None
    two_down(ctx)
    page = ctx.wait_for_firing(DEFAULT_BOUND_S)
    ctx.notes["paged_before_kill"] = page is not None
    ctx.monitor.kill("run")
    ctx.notes["job_killed_at"] = time.time()
    ctx.monitor.start_part("run", ctx.config_file)
    time.sleep(JOB_BACK_S)  # the restarted job sees the brokers still down


JOB_BACK_S = 60.0
JOB_KILLS = 10
JOB_KILL_AFTER_S = (1.0, 35.0)
"""Each kill comes this long after the job's (re)start_brokers, drawn uniformly: before 20-25 s
Spark is still starting (the alert service may be sending its backlog), after it batches run."""
JOB_KILLS_SEED = 15


def monitor_kills(ctx: FaultContext) -> None:
    """Two brokers down; once the page came, SIGKILL `kafka-health run` ten times at random
    points of its life (seeded), starting it again each time; then let it run."""
    assert ctx.monitor is not None
    two_down(ctx)
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
    checkpoints = Path(load_config(ctx.config_file).spark.checkpoint_dir)
    ctx.notes["checkpoint_clusters"] = sorted(p.name for p in checkpoints.iterdir() if p.is_dir())


def monitor_restore(ctx: FaultContext) -> None:
    assert ctx.monitor is not None
    if not ctx.monitor.alive("run"):
        ctx.monitor.start_part("run", ctx.config_file)
    start_brokers(2, 3)(ctx)


def canary_with_acks1(ctx: FaultContext) -> None:
    """Restart the canary with its acks=1 probe on (the data-loss window)."""
    assert ctx.monitor is not None
    ctx.monitor.stop_part("canary")
    ctx.monitor.start_part("canary", ctx.config_file.with_name("monitor-acks1.yaml"))


def canary_default(ctx: FaultContext) -> None:
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
