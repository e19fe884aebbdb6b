"""``kafka-health bench load``: realistic traffic into the topics the job reads
(:mod:`kafka_health.dev.loadgen`), by hand or for ``kafka-health bench throughput`` (the job's
records per second against the machine's limit and a plain-Python monitor)."""

from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.commands.interrupts import interrupted_by_signals

if TYPE_CHECKING:
    from kafka_health.dev.loadgen.throughput import ThroughputPlan

INTERRUPTED = "interrupted: everything the bench started was stopped"


def add_load_arguments(sub: Any) -> None:
    load = sub.add_parser(
        "load",
        help="write a simulated cluster's broker logs, canary outcomes and snapshots, and with "
        "--groups real consumer-group traffic on the monitored cluster (10,000 groups: "
        "'bench throughput --groups' simulates them in the job's process)",
    )
    add_config_argument(load)
    load.add_argument("--brokers", type=int, default=200, help="brokers simulated")
    load.add_argument("--partitions", type=int, default=100_000, help="partitions simulated")
    load.add_argument("--topics", type=int, default=100, help="topics they are spread over")
    load.add_argument("--rate", type=float, default=1000.0, help="broker-log records per second")
    load.add_argument("--seconds", type=float, default=60.0, help="how long to send")
    load.add_argument(
        "--storm-every", type=float, default=0.0, metavar="S",
        help="an election storm in the last --storm-seconds of every S seconds (0: none)",
    )  # fmt: skip
    load.add_argument("--storm-seconds", type=float, default=60.0)
    load.add_argument("--storm-factor", type=float, default=10.0, help="rate multiplier in a storm")
    load.add_argument(
        "--snapshot-every", type=float, default=None, metavar="S",
        help="a cluster-state snapshot every S seconds (default: cluster_state.interval_s; 0: "
        "none)",
    )  # fmt: skip
    load.add_argument("--seed", type=int, default=1, help="the same seed sends the same records")
    load.add_argument(
        "--groups", type=int, default=0, metavar="N",
        help="also N real consumer groups on the monitored cluster: a partition each of "
        "--partitions-per-group of their own, written a record a second, offsets committed "
        "every second --group-lag-s behind (default 0: none)",
    )  # fmt: skip
    load.add_argument("--partitions-per-group", type=int, default=10)
    load.add_argument("--group-lag-s", type=float, default=5.0)
    load.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> int:
    from kafka_health.dev.loadgen.producer import LoadPlan, run_load
    from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic

    if min(args.brokers, args.partitions, args.topics) < 1 or args.rate < 0:
        print("--brokers, --partitions and --topics must be at least 1, --rate at least 0",
              file=sys.stderr)  # fmt: skip
        return 2
    groups = _group_plan(args)
    if groups is not None and groups.problem():
        print(groups.problem(), file=sys.stderr)
        return 2
    config = config_from_args(args)
    snapshot = (
        config.cluster_state.interval_s if args.snapshot_every is None else args.snapshot_every
    )
    plan = LoadPlan(
        rate=args.rate, seconds=args.seconds, storm_every_s=args.storm_every,
        storm_seconds=args.storm_seconds, storm_factor=args.storm_factor,
        canary_interval_s=config.canary.interval_s, snapshot_interval_s=snapshot,
    )  # fmt: skip
    shape = ClusterShape(args.brokers, args.partitions, args.topics)
    stop = threading.Event()
    consumers = _GroupsThread(config, groups, stop) if groups is not None else None
    try:
        stats = run_load(config, Traffic(shape, config.topics, args.seed), plan, stop)
    except KeyboardInterrupt:
        stop.set()
        return 130
    finally:
        stop.set()
        group_figures = consumers.join() if consumers is not None else None
    figures: dict[str, Any] = {
        "seconds": round(stats.seconds, 1),
        "records": dict(stats.records),
        "records_per_s": round(stats.records_per_s),
        "log_records_planned": stats.log_records_planned,
        "max_behind_records": stats.max_behind_records,
    }
    if group_figures is not None:
        figures["consumer_groups"] = group_figures
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value}")
    return 0


def _group_plan(args: argparse.Namespace) -> Any:
    from kafka_health.dev.loadgen.group_traffic import GroupTrafficPlan

    if args.groups == 0:
        return None
    return GroupTrafficPlan(args.groups, args.partitions_per_group, args.group_lag_s)


class _GroupsThread:
    """:func:`~kafka_health.dev.loadgen.group_traffic.run_group_traffic` beside the load."""

    def __init__(self, config: Any, plan: Any, stop: threading.Event) -> None:
        self._result: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._run, args=(config, plan, stop), daemon=True)
        self._thread.start()

    def _run(self, config: Any, plan: Any, stop: threading.Event) -> None:
        from kafka_health.dev.loadgen.group_traffic import run_group_traffic

        try:
            stats = run_group_traffic(config, plan, stop)
        except Exception as exc:  # reported in the figures, the load goes on
            self._result = {"error": f"{type(exc).__name__}: {exc}"}
            return
        self._result = {
            "groups": plan.groups, "partitions": plan.partitions, "records": stats.records,
            "commits": stats.commits, "commit_failures": stats.commit_failures,
            "rounds": len(stats.seconds),
            "round_s_max": round(max(stats.seconds), 3) if stats.seconds else None,
        }  # fmt: skip

    def join(self) -> dict[str, Any]:
        self._thread.join(timeout=60)
        return self._result


def add_throughput_arguments(sub: Any) -> None:
    tp = sub.add_parser(
        "throughput",
        help="records/s of the job against Spark's no-work read and a plain-Python monitor",
    )
    tp.add_argument("--brokers", type=int, default=200)
    tp.add_argument("--partitions", type=int, default=10_000)
    tp.add_argument("--topics", type=int, default=100)
    tp.add_argument("--rate", type=float, default=20_000.0, help="backlog: log records/s")
    tp.add_argument("--seconds", type=float, default=15.0, help="backlog: seconds of traffic")
    tp.add_argument("--sustained-rate", type=float, default=1000.0, help="log records/s")
    tp.add_argument("--sustained-seconds", type=float, default=90.0)
    tp.add_argument(
        "--groups", type=int, default=0, metavar="N",
        help="sustained part: the job's consumer-group poller reads N simulated groups, "
        "each stopping now and then (simulated: the job's admin client a fake, answered "
        "with kafka-python's own responses by a process of its own; 'bench load' cannot "
        "carry consumer traffic to a running job); reports its rounds' interval and "
        "duration and how many reached the job's board (default 0: the local Kafka's groups)",
    )  # fmt: skip
    tp.add_argument("--partitions-per-group", type=int, default=10, metavar="P",
                    help="with --groups: partitions each group reads, its own")  # fmt: skip
    tp.add_argument("--seed", type=int, default=1)
    tp.add_argument("--bootstrap", help="an existing Kafka (default: a local one, started)")
    tp.add_argument("--master", help="run Spark on this cluster (default: local[2])")
    tp.add_argument("--standalone-workers", type=int, default=0, metavar="N",
                    help="start a Spark standalone master and N 1-core workers here and run "
                    "on them")  # fmt: skip
    tp.add_argument("--json", type=Path, help="write the figures here")


def throughput_plan(args: argparse.Namespace) -> ThroughputPlan | str:
    """``bench throughput``'s plan from its arguments, or what is wrong with them."""
    from kafka_health.dev.loadgen.throughput import ThroughputPlan
    from kafka_health.dev.loadgen.traffic import ClusterShape

    if args.groups < 0 or args.partitions_per_group < 1:
        return "--groups must be at least 0, --partitions-per-group at least 1"
    return ThroughputPlan(
        shape=ClusterShape(args.brokers, args.partitions, args.topics), rate=args.rate,
        seconds=args.seconds, sustained_rate=args.sustained_rate,
        sustained_seconds=args.sustained_seconds, seed=args.seed, groups=args.groups,
        partitions_per_group=args.partitions_per_group,
    )  # fmt: skip


def run_throughput_command(args: argparse.Namespace) -> int:
    plan = throughput_plan(args)
    if isinstance(plan, str):
        print(plan, file=sys.stderr)
        return 2
    bootstrap = args.bootstrap.split(",") if args.bootstrap else None
    say = functools.partial(print, flush=True)
    try:
        with interrupted_by_signals():
            figures = _throughput(args, plan, bootstrap, say)
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def _throughput(
    args: argparse.Namespace,
    plan: ThroughputPlan,
    bootstrap: list[str] | None,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """``bench throughput``'s figures, on ``local[N]`` or on a standalone cluster started here."""
    from kafka_health.dev.loadgen.throughput import run_throughput

    if args.standalone_workers <= 0:
        return run_throughput(plan, say=say, bootstrap=bootstrap, master=args.master)
    from kafka_health.dev.spark_standalone import standalone_cluster

    with (
        tempfile.TemporaryDirectory(prefix="kafka-health-standalone-") as workdir,
        standalone_cluster(Path(workdir), workers=args.standalone_workers, memory="2g") as url,
    ):
        say(f"a standalone master and {args.standalone_workers} 1-core workers at {url}")
        return run_throughput(plan, say=say, bootstrap=bootstrap, master=url)


def add_soak_arguments(sub: Any) -> None:
    soak = sub.add_parser("soak", help="the job under steady load: memory and state each minute")
    soak.add_argument("--minutes", type=float, default=30.0)
    soak.add_argument("--partitions", type=int, default=50_000, help="tracked partitions")
    soak.add_argument("--brokers", type=int, default=50)
    soak.add_argument("--topics", type=int, default=500)
    soak.add_argument("--rate", type=float, default=500.0, help="broker-log records per second")
    soak.add_argument("--churn-every", type=float, default=120.0, metavar="S",
                      help="delete and create --churn-topics topics every S seconds")  # fmt: skip
    soak.add_argument("--churn-topics", type=int, default=10)
    soak.add_argument("--seed", type=int, default=1)
    soak.add_argument("--json", type=Path, help="write the samples and the verdict here")


def run_soak_command(args: argparse.Namespace) -> int:
    from kafka_health.dev.loadgen.soak import SoakPlan, run_soak
    from kafka_health.dev.loadgen.traffic import ClusterShape

    plan = SoakPlan(
        minutes=args.minutes, shape=ClusterShape(args.brokers, args.partitions, args.topics),
        rate=args.rate, churn_every_s=args.churn_every, churn_topics=args.churn_topics,
        seed=args.seed,
    )  # fmt: skip
    try:
        with interrupted_by_signals():
            result = run_soak(plan, say=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0
