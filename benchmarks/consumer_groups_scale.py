"""The consumer groups at scale (issue 58 point 6): 10,000 groups over 100,000 partitions.

(a) ``--groups 10000 --partitions-per-group 10`` (the default, no Kafka): the simulated groups
of ``kafka_health.dev.loadgen.groups`` (the fake admin of ``kafka_health.dev.fake_group_admin``
answers the source's requests with kafka-python's own response objects, encoded and decoded as
on the wire, for 3 brokers; every partition written at 10 records/s; a rotating 10 % of the
groups stop committing for 4 rounds, their objective 12 s: ``lagging`` from their 3rd round, so
each round ~5 % of the groups change verdict), rounds every 5 s of simulated time. Per round,
each step timed on its own: kafka-python's decode of the answers; the source's parse (its round
less the fake's building and the decode); the lag table (``GroupsPoller._with_lag``);
``observe``: the round folded and installed as the board does it, ``ConsumerGroups.fold``
(outside the board's lock), ``install`` (what the lock is held for: ``observe_locked_s``) and
the release of the fold it replaces (after the lock); ``signals()`` right after (rebuilt) and
on the next tick (memoised). p50/p95/mean over the measured rounds, the collector's share of
the steps (``*_gc_s``), and memory.

(b) ``--kafka``: a real 1-broker cluster (``LocalCluster``), ``--kafka-groups`` groups each
with committed offsets (``KafkaAdminClient.alter_group_offsets``, nothing consumed) on
``--kafka-partitions`` partitions, and the round time of ``GroupsPoller.poll_once()``.

    nice -n 10 .venv/bin/python benchmarks/consumer_groups_scale.py [--rounds 12]
    nice -n 10 .venv/bin/python benchmarks/consumer_groups_scale.py --kafka \\
        --kafka-groups 2000 --kafka-partitions 5000 [--skip-fake]

Prints a JSON summary. Python's collector runs with the job's thresholds (``job/python_gc``).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import pstats
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.lag import LagTable
from kafka_health.consumer_groups.observation import GroupsRound
from kafka_health.consumer_groups.poller import GroupsPoller
from kafka_health.consumer_groups.source import AdminGroupsSource
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.dev.fake_group_admin import FakeGroupAdmin
from kafka_health.dev.loadgen.group_traffic import retrying
from kafka_health.dev.loadgen.groups import (
    BROKERS,
    INTERVAL_S,
    PARTITIONS_PER_TOPIC,
    GroupsWorld,
    scale_config,
)
from kafka_health.job.python_gc import YOUNG_THRESHOLD
from kafka_health.kafka_config import KafkaConfig

cpu = time.thread_time
"""Steps are timed in this thread's CPU seconds: the machine's other load does not count."""


class ManualClock:
    def __init__(self, world: GroupsWorld) -> None:
        self.world = world

    def time(self) -> float:
        return self.world.t

    def monotonic(self) -> float:
        return time.monotonic()


class TimedSource:
    """The source, its poll timed (the poller's lag step is the rest of ``poll_once``)."""

    def __init__(self, source: AdminGroupsSource) -> None:
        self.source = source
        self.last_s = 0.0

    def poll(self, at_ms: int) -> GroupsRound:
        started = cpu()
        try:
            return self.source.poll(at_ms)
        finally:
            self.last_s = cpu() - started

    def close(self) -> None:
        self.source.close()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered), 4), "p95": round(p95, 4),
            "max": round(ordered[-1], 4), "mean": round(statistics.mean(ordered), 4)}  # fmt: skip


class Collections:
    """CPU seconds this thread spent in Python's collector (``gc.callbacks``): a collection
    falls in whichever step allocates past a threshold, so a step's p50 moves with where the
    rounds' collections fall; ``*_gc_s`` say how much of a step they were."""

    def __init__(self) -> None:
        self.s = 0.0
        self._started = 0.0
        gc.callbacks.append(self._timed)

    def _timed(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = cpu()
        else:
            self.s += cpu() - self._started


def fake_scale(args: argparse.Namespace) -> dict[str, Any]:
    """Part (a): the Python side of a round, step by step, at full scale."""
    rss0 = rss_mb()
    world = GroupsWorld(args.groups, args.partitions_per_group)
    admin = FakeGroupAdmin(world, wire=True)
    fake = admin._manager
    cfg = scale_config()
    source = TimedSource(AdminGroupsSource(KafkaConfig(), cfg, make_admin=lambda: admin))
    poller = GroupsPoller(source, LagTable(), cfg, clock=ManualClock(world))
    detector = ConsumerGroups(cfg)
    steps: dict[str, list[float]] = {k: [] for k in (
        "decode_s", "source_parse_s", "lag_s", "observe_s", "observe_fold_s",
        "observe_locked_s", "signals_rebuilt_s", "signals_memo_s", "python_round_s",
        "wall_round_incl_fake_s", "poll_gc_s", "observe_gc_s", "signals_gc_s")}  # fmt: skip
    collections = Collections()
    changed: list[float] = []
    series: list[int] = []
    before: dict[str, str] = {}
    profiler = cProfile.Profile() if args.profile else None
    if args.tracemalloc:
        tracemalloc.start()
    for r in range(args.warmup + args.rounds):
        world.advance()
        fake.build_s = fake.decode_s = 0.0
        wall = time.perf_counter()
        gc_started = collections.s
        started = cpu()
        if profiler is not None and r >= args.warmup:
            profiler.enable()
        round_ = poller.poll_once()
        polled = cpu()
        gc_polled = collections.s
        assert round_.error is None, round_.error
        folded = detector.fold(round_)  # as the board does: the fold outside its lock,
        installing = cpu()
        retired = detector.install(folded)  # installed under it,
        installed = cpu()
        del retired, folded  # what it replaced freed after it
        observed = cpu()
        gc_observed = collections.s
        signals = detector.signals(world.t)
        rebuilt = cpu()
        gc_rebuilt = collections.s
        detector.signals(world.t + 1)
        memo = cpu()
        wall_s = time.perf_counter() - wall
        if profiler is not None:
            profiler.disable()
        verdicts = {s.label("group"): s.label("verdict") for s in signals
                    if s.name == "consumergroup_status"}  # fmt: skip
        if r < args.warmup:
            before = verdicts
            continue
        source_s = source.last_s - fake.build_s
        steps["decode_s"].append(fake.decode_s)
        steps["source_parse_s"].append(source_s - fake.decode_s)
        steps["lag_s"].append(polled - started - source.last_s)
        steps["observe_s"].append(observed - polled)
        steps["observe_fold_s"].append(installing - polled)
        steps["observe_locked_s"].append(installed - installing)
        steps["signals_rebuilt_s"].append(rebuilt - observed)
        steps["signals_memo_s"].append(memo - rebuilt)
        steps["python_round_s"].append(polled - started - fake.build_s + rebuilt - polled)
        steps["wall_round_incl_fake_s"].append(wall_s)
        steps["poll_gc_s"].append(gc_polled - gc_started)
        steps["observe_gc_s"].append(gc_observed - gc_polled)
        steps["signals_gc_s"].append(gc_rebuilt - gc_observed)
        changed.append(sum(before.get(g) != v for g, v in verdicts.items()) / len(verdicts))
        series.append(len(signals))
        before = verdicts
    out: dict[str, Any] = {
        "groups": args.groups,
        "partitions": args.groups * args.partitions_per_group,
        "brokers": len(BROKERS),
        "rounds": args.rounds,
        "timing": "CPU seconds of the thread, the collector's included (*_gc_s: how much of "
                  "it; wall_round_incl_fake_s: wall, with the fake's work)",
        "steps": {k: quantiles(v) for k, v in steps.items()},
        "verdicts_changed_per_round": round(statistics.mean(changed), 4),
        "verdict_counts_last": _counts(before),
        "signals_per_publish": quantiles([float(s) for s in series])["p50"],
        "rss_mb": {"start": round(rss0, 1), "end": round(rss_mb(), 1),
                   "delta": round(rss_mb() - rss0, 1),
                   "max": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)},
    }  # fmt: skip
    if args.tracemalloc:
        current, peak = tracemalloc.get_traced_memory()
        out["tracemalloc_mb"] = {"current": round(current / 2**20, 1),
                                 "peak": round(peak / 2**20, 1)}  # fmt: skip
    if profiler is not None:
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats(args.profile).print_stats(40)
    return out


def _counts(verdicts: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in verdicts.values():
        out[v] = out.get(v, 0) + 1
    return out


# ---------------------------------------------------------------------------------- real Kafka


def real_kafka(args: argparse.Namespace) -> dict[str, Any]:
    """Part (b): ``GroupsPoller.poll_once()`` against a real 1-broker cluster."""
    import tempfile

    from kafka.admin import KafkaAdminClient as Admin
    from kafka.admin import NewTopic
    from kafka.structs import OffsetAndMetadata, TopicPartition

    from kafka_health.config import MonitorConfig
    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster

    cache = Path(os.environ.get("KAFKA_HEALTH_CACHE", "~/.cache/kafka-health")).expanduser()
    groups, partitions = args.kafka_groups, args.kafka_partitions
    per_topic = min(PARTITIONS_PER_TOPIC, partitions)
    topics = [f"cg-scale-{n:03d}" for n in range((partitions + per_topic - 1) // per_topic)]
    keys = [TopicPartition(t, p) for t in topics for p in range(per_topic)][:partitions]
    per_group = max(1, partitions // groups)
    with tempfile.TemporaryDirectory(prefix="cg-scale-") as tmp:
        spec = ClusterSpec(dir=Path(tmp), brokers=1, cache_dir=cache / "kafka")
        cluster = LocalCluster.create(spec).up()
        try:
            servers = cluster.bootstrap_servers
            admin = Admin(bootstrap_servers=servers, request_timeout_ms=120_000)
            started = time.monotonic()
            for start in range(0, len(topics), 20):
                admin.create_topics([NewTopic(t, per_topic, 1) for t in topics[start:start + 20]],
                                    timeout_ms=120_000)  # fmt: skip
            created_s = time.monotonic() - started
            started = time.monotonic()
            for i in range(groups):
                mine = [keys[(i * per_group + k) % len(keys)] for k in range(per_group)]
                offsets = {tp: OffsetAndMetadata(0, "", -1) for tp in mine}
                retrying(admin.alter_group_offsets, f"scale-{i:05d}", offsets)
            committed_s = time.monotonic() - started
            admin.close()
            cfg = ConsumerGroupsConfig(interval_s=INTERVAL_S, request_timeout_s=30.0,
                                       include=["scale-.*"])  # fmt: skip
            kafka = MonitorConfig().with_bootstrap(servers).kafka
            poller = GroupsPoller(AdminGroupsSource(kafka, cfg), LagTable(), cfg)
            durations, seen = [], []
            try:
                for _ in range(args.kafka_rounds):
                    result = poller.poll_once()
                    assert result.error is None, result.error
                    durations.append(result.duration_s)
                    seen.append(len(result.groups))
                    time.sleep(max(0.0, 1.0 - result.duration_s))
            finally:
                poller.stop(5.0)
        finally:
            cluster.down()
    return {
        "groups": groups,
        "partitions": len(keys),
        "partitions_per_group": per_group,
        "brokers": 1,
        "setup": {"topics_s": round(created_s, 1), "commits_s": round(committed_s, 1)},
        "groups_seen": seen,
        "first_round_s": round(durations[0], 3),
        "round_s": quantiles(durations[1:] or durations),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--partitions-per-group", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--profile", default="", help="cProfile the measured rounds, sorted by")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--skip-fake", action="store_true")
    parser.add_argument("--kafka", action="store_true")
    parser.add_argument("--kafka-groups", type=int, default=2000)
    parser.add_argument("--kafka-partitions", type=int, default=5000)
    parser.add_argument("--kafka-rounds", type=int, default=6)
    args = parser.parse_args()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    summary: dict[str, Any] = {}
    if not args.skip_fake:
        summary["fake_admin"] = fake_scale(args)
    if args.kafka:
        summary["real_kafka"] = real_kafka(args)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
