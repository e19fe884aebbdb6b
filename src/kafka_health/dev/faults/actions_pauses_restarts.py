"""Fault suite actions a healthy cluster rides out without a page: short pauses, a slow
planned restart, a rolling restart."""

from __future__ import annotations

import time

from kafka_health.dev.faults.actions_brokers import VICTIM, all_brokers
from kafka_health.dev.faults.context import FaultContext

ROLLING_ISR_WAIT_S = 120.0


def rolling_restart(ctx: FaultContext) -> None:
    """Controlled shutdown and start of each broker in turn, waiting for a full ISR between."""
    from kafka_health.dev.faults.isr import wait_fully_replicated

    for broker in all_brokers(ctx):
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


def short_pauses(ctx: FaultContext) -> None:
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


def slow_restart(ctx: FaultContext) -> None:
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
