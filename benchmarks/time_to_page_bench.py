"""Seconds from a fault to the page, on real parts: the whole monitor on a local cluster.

Scenarios (each on a fresh 3-broker cluster, the monitor as the demo runs it, pages to the
demo's console pager, a real webhook receiver):

- ``gc``: the second seed incident: Kafka 3.9 with ZooKeeper sessions of 6 s, a real Full GC
  of broker 3 held for ``--pause`` seconds (``kafka-health dev-cluster gc-pause``). Reported:
  pause start -> page, pause end -> page, and what the page says.
- ``kill``: Kafka 4.1 KRaft, broker 3 killed with SIGKILL. Reported: kill -> first page.

Faults are injected once the monitor reports a healthy baseline with no leader elections in
its window (the canary topic's setup elections have aged out).

    .venv/bin/python benchmarks/time_to_page_bench.py [--scenario gc|kill] [--pause 10]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafka_health.commands.demo import start_monitor
from kafka_health.commands.demo_pager import ConsolePager
from kafka_health.config import MonitorConfig
from kafka_health.devcluster import ClusterSpec, LocalCluster
from kafka_health.model import labels

CACHE = Path("~/.cache/kafka-health/kafka").expanduser()


def wait_for(what: str, condition: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def run(scenario: str, pause_s: float) -> dict[str, Any]:
    spec = dict(mode="zookeeper", zookeeper_session_timeout_ms=6000) if scenario == "gc" else {}
    with tempfile.TemporaryDirectory(prefix="kh-ttp-") as tmp:
        cluster = LocalCluster.create(
            ClusterSpec(dir=Path(tmp), brokers=3, cache_dir=CACHE, **spec)  # type: ignore[arg-type]
        ).up()
        pager = ConsolePager()
        stack: list[Any] = []
        try:
            job = start_monitor(MonitorConfig(), cluster, stack, pager=pager)

            def value(name: str, **lbl: Any) -> float | None:
                found = [
                    s.value for s in job.signals() if s.name == name and s.labels == labels(**lbl)
                ]
                return found[0] if found else None

            def elections() -> float:
                return sum(
                    s.value for s in job.signals()
                    if s.name == "leader_elections_per_minute" and dict(s.labels).get("broker_id")
                )  # fmt: skip

            wait_for("a healthy baseline", lambda: value("canary_availability_ratio") == 1.0, 300)
            wait_for("no elections in the window", lambda: elections() == 0, 300)
            wait_for("no page", lambda: not pager.alerts, 1)
            started = time.monotonic()
            if scenario == "gc":
                logged = cluster.gc_pause_broker(3, pause_s)
            else:
                cluster.kill_broker(3)
                logged = 0.0
            ended = time.monotonic()
            wait_for("the page", lambda: any(a["status"] == "firing" for a in pager.alerts), 600)
            paged = time.monotonic()
            time.sleep(60)  # anything else the fault pages comes within a minute
            firing = [a for a in pager.alerts if a["status"] == "firing"]
            return {
                "scenario": scenario,
                "kafka": cluster.spec.version,
                "logged_pause_s": round(logged, 3),
                "fault_start_to_page_s": round(paged - started, 1),
                "fault_end_to_page_s": round(paged - ended, 1),
                "pages": [
                    f"{a['labels']['alertname']} broker {a['labels'].get('broker_id', '-')}"
                    for a in firing
                ],
                "cause": firing[0]["annotations"].get("cause", ""),
            }
        finally:
            for stop in reversed(stack):
                stop()
            cluster.down()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("gc", "kill"), default="gc")
    parser.add_argument("--pause", type=float, default=10.0, help="gc: pause seconds")
    args = parser.parse_args()
    result = run(args.scenario, args.pause)
    print("RESULT", result)


if __name__ == "__main__":
    main()
