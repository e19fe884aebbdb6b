"""``kafka-health demo``: the whole monitor on a local 3-broker Kafka cluster, as a story.

The cluster runs in the demo folder; the monitor runs as an operator runs it (``ship-logs``,
``canary`` and ``run`` processes sharing one config file, the fault suite's
``MonitorProcesses``), its pages going to a console pager (the fault suite's recording
receiver). The terminal shows the cluster, a timeline of pages and resolutions as they arrive
and a short status line every ``--interval`` seconds; Spark's and Kafka clients' output goes
to log files under ``<demo folder>/logs``. ``--fault NAME`` runs one of the fault suite's
scenarios once the monitor is healthy and prints its latency. Ctrl-C, SIGTERM or
``--duration`` stop every process the demo started.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from kafka_health.commands.config_args import add_config_argument, config_from_args
from kafka_health.commands.demo_console import Timeline, clock_time, log_to_file, status_line
from kafka_health.commands.dev_cluster import cluster_spec, print_status
from kafka_health.config import MonitorConfig
from kafka_health.dev.devcluster import ClusterSpec, DevClusterError, LocalCluster, transport_spec
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.monitor import PARTS, MonitorProcesses, scrape
from kafka_health.dev.faults.receiver import RecordingReceiver
from kafka_health.dev.faults.runner import BenchOptions, FaultBench, one_line
from kafka_health.dev.faults.scenarios import SCENARIOS, Scenario
from kafka_health.kafka_clients import python_client_options

HEALTHY_TIMEOUT_S = 600.0
"""Bound on the wait for a healthy monitor before ``--fault`` (Spark's first start included)."""
MONITOR_STATE = ("logs", "checkpoints", "canary", "alerting")
"""The previous demo's monitor state in the folder, dropped with its cluster."""

STOP_REASONS = {
    signal.SIGINT: "Ctrl-C",
    signal.SIGTERM: "SIGTERM",
    signal.SIGALRM: "--duration reached",
}

NAME = "demo"
HELP = "run a local 3-broker Kafka cluster under the whole monitor; print pages and status"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    parser.add_argument("--dir", type=Path, help="demo folder (default: devcluster.dir)")
    parser.add_argument(
        "--duration", type=float, default=None, help="stop by itself after this many seconds"
    )
    parser.add_argument(
        "--interval", type=float, default=30.0, help="seconds between status lines (default 30)"
    )
    parser.add_argument(
        "--fault",
        choices=list(SCENARIOS),
        metavar="NAME",
        help="run this fault-suite scenario once the monitor is healthy and print its latency "
        f"({', '.join(SCENARIOS)})",
    )
    parser.add_argument(
        "--cluster-only", action="store_true", help="start only the Kafka cluster (no monitor)"
    )


class Stopped(KeyboardInterrupt):
    """Raised in the main thread by Ctrl-C, SIGTERM or the end of ``--duration``; a
    KeyboardInterrupt, so that a running fault scenario unwinds through its cleanup (as
    ``bench faults`` does) instead of being recorded as a failed run."""


class Console:
    """The terminal: one line per call, whole lines across threads; ``mute`` ends it."""

    def __init__(self, write: Callable[[str], None] | None = None) -> None:
        self._write = write or (lambda line: print(line, flush=True))
        self._lock = threading.Lock()
        self._muted = False

    def say(self, line: str) -> None:
        with self._lock:
            if not self._muted:
                self._write(line)

    def timed(self, line: str) -> None:
        self.say(f"{clock_time(time.time())} {line.strip()}")

    def mute(self) -> None:
        with self._lock:
            self._muted = True


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    spec = cluster_spec(config.devcluster, dir=args.dir, brokers=3)
    home = spec.dir.resolve()
    console = Console()
    try:
        cluster = LocalCluster.create(spec)
    except DevClusterError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1
    for name in MONITOR_STATE:
        shutil.rmtree(home / name, ignore_errors=True)
    verbose = getattr(args, "verbose", False)
    log_to_file(home / "logs" / "demo.log", logging.DEBUG if verbose else logging.INFO)
    console.say(f"kafka-health demo: a 3-broker Kafka {spec.version} cluster ({spec.mode}) "
                f"in {home}")  # fmt: skip
    bench = demo_bench(config, spec, console)
    bench.cluster = cluster  # close() stops it, also when up() fails half-way
    stopping = threading.Event()
    previous = install_stop_handlers(stopping)
    if args.duration is not None:
        signal.setitimer(signal.ITIMER_REAL, max(args.duration, 0.001))
    ticker: StatusTicker | None = None
    try:
        ctx = start_demo(args, config, bench, cluster, console)
        console.timed(f"status every {args.interval:g} s (? = not reported yet: Spark takes a "
                      "minute or two); Ctrl-C stops the demo")  # fmt: skip
        ticker = StatusTicker(cluster, bench, args.interval, console.say)
        ticker.start()
        if args.fault and ctx is not None:
            run_fault(bench, ctx, SCENARIOS[args.fault], console.timed)
        while True:
            time.sleep(3600.0)
    except Stopped as stop:
        console.say("")
        console.timed(f"{stop}: stopping the monitor, the pager and the cluster ...")
    except DevClusterError as exc:
        console.timed(f"demo: {exc}; stopping ...")
        return 1
    finally:
        stopping.set()  # a signal from here on only waits for the shutdown
        signal.setitimer(signal.ITIMER_REAL, 0)
        if ticker is not None:
            ticker.stop()
        shut_down(bench, cluster, previous, console)
    return 0


def demo_bench(config: MonitorConfig, spec: ClusterSpec, console: Console) -> FaultBench:
    """The fault suite's bench, set up as the demo runs it (no scenarios of its own)."""
    options = BenchOptions(
        scenarios=[],
        workdir=spec.dir.resolve(),
        mode=spec.mode,
        layout="transport",  # the monitor's own topics on a 1-broker cluster beside it
        base=config,
        keep_firing_cap_s=None,  # the shipped rules, as a user runs them
        healthy_timeout_s=HEALTHY_TIMEOUT_S,
    )
    return FaultBench(options, say=console.timed)


StopHandler = Callable[[int, FrameType | None], Any] | int | None


def install_stop_handlers(stopping: threading.Event) -> dict[signal.Signals, StopHandler]:
    """SIGINT, SIGTERM and SIGALRM (``--duration``) raise ``Stopped`` once; returns the
    handlers they replaced."""

    def _request_stop(signum: int, _frame: FrameType | None) -> None:
        if stopping.is_set():
            return  # already stopping: let the shutdown finish
        stopping.set()
        sig = signal.Signals(signum)
        raise Stopped(STOP_REASONS.get(sig, sig.name))

    stop_signals = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)
    return {s: signal.signal(s, _request_stop) for s in stop_signals}


def start_demo(
    args: argparse.Namespace,
    config: MonitorConfig,
    bench: FaultBench,
    cluster: LocalCluster,
    console: Console,
) -> FaultContext | None:
    """Start the cluster, and unless ``--cluster-only`` the transport cluster, the pager and
    the monitor; returns the context a fault runs in (None without a monitor)."""
    home = cluster.spec.dir.resolve()
    cluster.up()
    print_status(cluster)
    if args.cluster_only:
        console.say(f"bootstrap servers: {','.join(cluster.bootstrap_servers)}")
        print_topics(python_client_options(config.with_bootstrap(cluster.bootstrap_servers).kafka))
        console.say(f"log file: {home / 'logs' / 'demo.log'}")
        return None
    console.timed("starting a 1-broker transport cluster for the monitor's own topics "
                  "(a monitor shipping its evidence through the sick cluster goes blind "
                  "with it)")  # fmt: skip
    bench.transport = LocalCluster.create(
        transport_spec(cluster.spec, directory=home / "transport")
    ).up()
    receiver = RecordingReceiver(on_page=Timeline(console.say))
    ctx = bench.start_monitor(cluster, receiver, home / "logs")
    console.timed(f"pager {receiver.url}, metrics "
                  f"http://127.0.0.1:{bench.metrics_port}/metrics")  # fmt: skip
    return ctx


def shut_down(
    bench: FaultBench,
    cluster: LocalCluster,
    previous: dict[signal.Signals, StopHandler],
    console: Console,
) -> None:
    """Stop everything the demo started, put the signal handlers back, say what is left."""
    bench.close()
    for sig, handler in previous.items():
        signal.signal(sig, handler)
    left = survivors(bench, cluster)
    console.timed("demo stopped: every process it started is gone" if not left
                  else f"demo stopped, but still running: {', '.join(left)}")  # fmt: skip
    console.mute()


def survivors(bench: FaultBench, cluster: LocalCluster) -> list[str]:
    """What still runs of the demo's processes (after ``bench.close()``: nothing)."""
    monitor = bench.monitor
    left = [part for part in PARTS if monitor is not None and monitor.alive(part)]
    transport = bench.transport is not None and bench.transport.any_running()
    return (
        left
        + (["Kafka brokers"] if cluster.any_running() else [])
        + (["the transport broker"] if transport else [])
    )


def run_fault(
    bench: FaultBench, ctx: FaultContext, scenario: Scenario, say: Callable[[str], None]
) -> None:
    """One run of ``scenario`` through the fault runner (healthy steady state, inject, page,
    undo, resolution), then its latency line."""
    say(f"fault {scenario.name} ({scenario.description}) once the monitor is healthy")
    result = bench.run_one(ctx, scenario)
    say(f"fault {scenario.name}: {one_line(result)}")


class StatusTicker:
    """A thread printing the status line every ``interval_s`` until ``stop``."""

    def __init__(
        self,
        cluster: LocalCluster,
        bench: FaultBench,
        interval_s: float,
        write: Callable[[str], None],
    ) -> None:
        self.cluster = cluster
        self.bench = bench
        self.interval_s = interval_s
        self.write = write
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="demo-status", daemon=True)
        self._job_seen = False

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=15.0)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                line = self.line()
            except Exception as exc:  # a status line must never end the demo
                logging.getLogger(__name__).warning("status line failed: %s", exc, exc_info=True)
                continue
            if not self._stop.is_set():
                self.write(line)

    def line(self) -> str:
        """Brokers read fresh from the cluster, values from the job's /metrics now."""
        statuses = self.cluster.status()
        monitor = self.bench.monitor
        if monitor is None:
            return status_line(statuses, None, time.time())
        metrics = scrape(self.bench.metrics_port)
        self._job_seen = self._job_seen or bool(metrics)
        return status_line(
            statuses, metrics, time.time(), job_note(monitor, metrics, self._job_seen)
        )


def job_note(monitor: MonitorProcesses, metrics: dict[Any, float], seen: bool) -> str:
    """What the status line says about the monitor itself, when something is to be said."""
    exited = [part for part in PARTS if not monitor.alive(part)]
    if exited:
        return f"exited: {', '.join(exited)} (see {monitor.workdir}/)"
    if not metrics:
        return "job silent" if seen else "job starting"  # /metrics did not answer
    return ""


def print_topics(client_options: dict[str, object]) -> None:
    """List the cluster's topics with partition count, leaders and under-replicated count."""
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(client_id="kafka-health-demo", **client_options)
    try:
        described = admin.describe_topics()
    finally:
        admin.close()
    print(f"topics ({len(described)}):")
    for topic in sorted(described, key=lambda t: str(_get(t, "name", "topic"))):
        partitions = topic["partitions"]
        leaders = sorted({_get(p, "leader_id", "leader") for p in partitions})
        under = sum(
            1
            for p in partitions
            if len(_get(p, "isr_nodes", "isr")) < len(_get(p, "replica_nodes", "replicas"))
        )
        print(
            f"  {_get(topic, 'name', 'topic'):<40} partitions={len(partitions)} "
            f"leaders={leaders} under_replicated={under}"
        )


def _get(mapping: dict[str, Any], key: str, old_key: str) -> Any:
    """kafka-python 3 names (``name``, ``leader_id``...) with 2.x's as fallback."""
    return mapping[key] if key in mapping else mapping[old_key]
