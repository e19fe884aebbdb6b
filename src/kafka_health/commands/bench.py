"""``kafka-health bench faults``: the fault suite, timing every page on a fresh local cluster;
``kafka-health bench load``: simulated traffic (:mod:`kafka_health.commands.bench_load`)."""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kafka_health.commands.bench_load import (
    add_load_arguments,
    add_soak_arguments,
    add_throughput_arguments,
    run_soak_command,
    run_throughput_command,
)
from kafka_health.commands.bench_load import run as run_load
from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.commands.interrupts import interrupted_by_signals

NAME = "bench"
ALERTMANAGER_EXAMPLE = Path(__file__).resolve().parents[3] / "conf" / "alertmanager.example.yml"
"""The README's example Alertmanager config (what ``--via-alertmanager`` runs by default)."""
HELP = (
    "benchmarks on real parts: 'faults' breaks a local cluster and times every page; 'load' "
    "writes a simulated cluster's traffic; 'throughput' measures the job against the limit; "
    "'soak' samples its memory and state under load"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="bench", required=True, metavar="BENCH")
    faults = sub.add_parser("faults", help="inject faults under the whole monitor; time pages")
    add_config_argument(faults)
    faults.add_argument(
        "--scenario",
        action="extend",
        nargs="+",
        dest="scenarios",
        metavar="NAME",
        help="run these scenarios (--scenario a b, or repeated; default: all, in the suite's "
        "order)",
    )
    faults.add_argument("--repeat", type=int, default=1, help="runs of each scenario")
    faults.add_argument("--mode", choices=("kraft", "zookeeper"), default="kraft")
    faults.add_argument(
        "--layout",
        choices=("transport", "single"),
        default="transport",
        help="transport: the monitor's own topics on a 1-broker cluster beside the monitored "
        "one (default); single: everything on the monitored cluster",
    )
    faults.add_argument("--json", type=Path, help="write every run and the summary here")
    faults.add_argument("--dir", type=Path, help="work folder (default: a new temporary one)")
    faults.add_argument(
        "--keep-firing-cap",
        type=float,
        default=60.0,
        help="cap rules' keep_firing_for_s at this (s) so scenarios can follow each other; "
        "-1 keeps the shipped rules",
    )
    faults.add_argument(
        "--via-alertmanager",
        nargs="?",
        const=ALERTMANAGER_EXAMPLE,
        type=Path,
        metavar="CONFIG",
        help="also hand every alert to a real Alertmanager (prometheus-alertmanager) routing to "
        "a second receiver of the bench, and time that page beside the direct one; CONFIG: its "
        "config, receivers swapped for the bench's (default: the README's example, "
        "conf/alertmanager.example.yml)",
    )
    faults.add_argument("--list", action="store_true", help="list the scenarios and exit")
    add_load_arguments(sub)
    add_throughput_arguments(sub)
    add_soak_arguments(sub)


def run(args: argparse.Namespace) -> int:
    if args.bench == "load":
        return run_load(args)
    if args.bench == "throughput":
        return run_throughput_command(args)
    if args.bench == "soak":
        return run_soak_command(args)
    from kafka_health.dev.faults.report import summarize, table, write_json
    from kafka_health.dev.faults.runner import BenchOptions, FaultBench, RunResult
    from kafka_health.dev.faults.scenarios import SCENARIOS

    if args.list:
        for scenario in SCENARIOS.values():
            print(f"{scenario.name:<18} {scenario.description}")
            print(f"{'':<18} expects: {scenario.describe_expected()}")
        return 0
    names = args.scenarios or [
        n for n, s in SCENARIOS.items() if args.layout in s.layouts and args.mode in s.modes
    ]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; see --list", file=sys.stderr)
        return 2
    elsewhere = [n for n in names if args.layout not in SCENARIOS[n].layouts]
    if elsewhere:
        print(f"not in the {args.layout} layout: {', '.join(elsewhere)}", file=sys.stderr)
        return 2
    other_mode = [n for n in names if args.mode not in SCENARIOS[n].modes]
    if other_mode:
        print(f"not in {args.mode} mode: {', '.join(other_mode)}", file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("--repeat must be at least 1", file=sys.stderr)
        return 2
    via_alertmanager = None
    if args.via_alertmanager is not None:
        via_alertmanager, problem = alertmanager_setup(args.via_alertmanager)
        if problem:
            print(problem, file=sys.stderr)
            return 2
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="kafka-health-faults-"))
    options = BenchOptions(
        scenarios=[SCENARIOS[n] for n in sorted(names, key=list(SCENARIOS).index)],
        workdir=workdir.resolve(),
        mode=args.mode,
        layout=args.layout,
        repeat=args.repeat,
        base=config_from_args(args),
        keep_firing_cap_s=None if args.keep_firing_cap < 0 else args.keep_firing_cap,
        via_alertmanager=args.via_alertmanager.resolve() if via_alertmanager else None,
    )
    # The bench's own admin clients log each refused connection to a broker it killed at
    # ERROR ("Connection failed: ... ECONNREFUSED"): expected here, and noise on its console.
    logging.getLogger("kafka").setLevel(logging.CRITICAL)
    started = time.time()
    meta = {
        "mode": args.mode,
        "layout": args.layout,
        "repeat": args.repeat,
        "started_at": started,
        "keep_firing_cap_s": options.keep_firing_cap_s,
        "workdir": str(options.workdir),
    }
    if via_alertmanager:
        meta["via_alertmanager"] = via_alertmanager

    def so_far(results: list[RunResult]) -> None:  # a stopped bench keeps the runs it made
        if args.json:
            write_json(args.json, results, {**meta, "complete": False})

    bench = FaultBench(options, say=lambda line: print(line, flush=True), on_result=so_far)

    try:
        with interrupted_by_signals():
            results = bench.run()
    except KeyboardInterrupt:
        print(
            "interrupted: everything the bench started was stopped"
            + (f"; the runs made are in {args.json}" if args.json else ""),
            file=sys.stderr,
        )
        return 130
    summary = summarize(results)
    print()
    print(f"fault suite, {args.mode} mode, {args.layout} layout, {args.repeat} run(s) each "
          f"({(time.time() - started) / 60:.0f} min):")  # fmt: skip
    if via_alertmanager:
        route = ", ".join(f"{k} {v}" for k, v in via_alertmanager["route"].items())
        print(f"AM columns: the page behind {via_alertmanager['version']} ({route}), "
              "counted from the same fault instant as the direct page")  # fmt: skip
    print(table(summary))
    if args.json:
        write_json(args.json, results, {**meta, "complete": True})
        print(f"results: {args.json}")
    return 0


def alertmanager_setup(config: Path) -> tuple[dict[str, Any], str]:
    """What ``--via-alertmanager`` will run, for the JSON's meta (its config, root route and
    Alertmanager's version), or why it cannot (a message; the meta is then empty)."""
    from kafka_health.dev.faults.alertmanager import binary, load, route_timing, version
    from kafka_health.dev.faults.runner import ALERTMANAGER_MISSING

    try:
        example = load(config)
    except (OSError, ValueError) as exc:
        return {}, f"--via-alertmanager: {exc}"
    path = binary()
    if path is None:
        return {}, ALERTMANAGER_MISSING
    meta = {
        "config": str(config.resolve()),
        "route": route_timing(example),
        "version": version(path),
    }
    return meta, ""
