"""Seconds from SIGSTOP of a broker to the first ``Timeout`` outcome in the results topic.

The canary (as ``kafka-health canary`` runs it, default settings) probes a fresh local
3-broker cluster; its outcomes go to a separate 1-broker transport cluster (``transport``
layout) or to the monitored cluster itself (``single`` layout). Each run freezes the leader of
one canary partition (SIGSTOP) and reads the results topic until a failed outcome of that
partition, sent after the freeze, is there; then thaws the broker and waits for every
partition's probes to succeed again. Reported per run: seconds until the outcome was
readable, until the send that delivered it (the record's CreateTime), until the canary decided
it (its ``done_ms``), and, over ``--observe`` seconds of
the freeze, the other partitions' outcomes (their acks=all probes wait for the frozen
follower until it leaves their ISR).

    .venv/bin/python benchmarks/hung_probe_bench.py [--layout transport|single|both] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition

from kafka_health.config import MonitorConfig, from_mapping
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster, transport_spec
from kafka_health.services.canary import CanaryService

CACHE = Path("~/.cache/kafka-health/kafka").expanduser()


class Results:
    """The results topic, read from the start; ``fresh()`` returns what arrived since."""

    def __init__(self, servers: list[str], topic: str) -> None:
        # Short timeouts and fresh metadata: the reader follows a moved leader at once, so
        # what is measured is the canary, not the reader.
        self.consumer = KafkaConsumer(
            bootstrap_servers=servers,
            enable_auto_commit=False,
            request_timeout_ms=3000,
            metadata_max_age_ms=1000,
            fetch_max_wait_ms=100,
        )
        self.consumer._cluster.config["allow_auto_create_topics"] = False
        self.topic = topic
        self.records: list[dict[str, Any]] = []

    def fresh(self) -> list[dict[str, Any]]:
        if not self.consumer.assignment():
            partitions = self.consumer.partitions_for_topic(self.topic)
            if not partitions:
                return []
            self.consumer.assign([TopicPartition(self.topic, p) for p in sorted(partitions)])
            self.consumer.seek_to_beginning()
        new = [
            {**json.loads(m.value), "_written_ms": m.timestamp}
            for batch in self.consumer.poll(timeout_ms=100).values()
            for m in batch
        ]
        self.records.extend(new)
        return new


def wait_for(what: str, condition: Any, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)
    return found


def canary_leaders(admin: KafkaAdminClient, topic: str) -> dict[int, int]:
    return {
        p["partition_index"]: p["leader_id"]
        for t in admin.describe_topics([topic])
        for p in t["partitions"]
    }


def all_ok_since(results: Results, since_ms: int, partitions: set[int]) -> bool:
    results.fresh()
    ok = {
        r["partition"] for r in results.records if r["outcome"] == "ok" and r["send_ms"] >= since_ms
    }
    return partitions <= ok


def run_layout(layout: str, runs: int, observe_s: float) -> list[dict[str, Any]]:
    measured: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kh-hung-") as tmp:
        spec = ClusterSpec(dir=Path(tmp) / "monitored", brokers=3, cache_dir=CACHE)
        started: list[LocalCluster] = []
        try:
            monitored = LocalCluster.create(spec)
            started.append(monitored)
            monitored.up()
            raw: dict[str, Any] = {
                "kafka": {"bootstrap_servers": monitored.bootstrap_servers},
                "canary": {"state_dir": str(Path(tmp) / "canary"), "metrics_port": None,
                           "manage_interval_s": 5},
            }  # fmt: skip
            results_servers = monitored.bootstrap_servers
            if layout == "transport":
                transport = LocalCluster.create(transport_spec(spec))
                started.append(transport)
                transport.up()
                raw["transport"] = {"bootstrap_servers": transport.bootstrap_servers}
                results_servers = transport.bootstrap_servers
            config: MonitorConfig = from_mapping(raw)
            service = CanaryService(config)
            service.start()
            admin = KafkaAdminClient(bootstrap_servers=monitored.bootstrap_servers)
            results = Results(results_servers, config.topics.canary_results)
            try:
                for run in range(runs):
                    layout_now = wait_for(
                        "each broker leading a canary partition",
                        lambda: (
                            (found := canary_leaders(admin, config.topics.canary))
                            and set(found.values()) == {1, 2, 3}
                            and found
                        ),
                        180,
                    )
                    since = int(time.time() * 1000)
                    wait_for(
                        "ok probes everywhere",
                        lambda since=since, wanted=set(layout_now): all_ok_since(
                            results, since, wanted
                        ),
                        180,
                    )
                    time.sleep(3)
                    partition = run % len(layout_now)
                    victim = layout_now[partition]
                    results.fresh()
                    frozen_ms = int(time.time() * 1000)
                    frozen = time.monotonic()
                    monitored.freeze_broker(victim)
                    first: dict[str, Any] | None = None
                    seen_s = None
                    while time.monotonic() - frozen < 120:
                        for r in results.fresh():
                            if (r["partition"] == partition and r["outcome"] == "failed"
                                    and r["send_ms"] >= frozen_ms and first is None):  # fmt: skip
                                first, seen_s = r, time.monotonic() - frozen
                        if first is not None:
                            break
                    # Stay frozen a while: do the other brokers' acks=all probes wait for the
                    # frozen follower (until it leaves their ISR)?
                    until = time.monotonic() + observe_s
                    while time.monotonic() < until:
                        results.fresh()
                    monitored.thaw_broker(victim)
                    window = [
                        r
                        for r in results.records
                        if frozen_ms <= r["send_ms"] <= frozen_ms + observe_s * 1000
                        and r["partition"] != partition
                    ]
                    others_failed = [r for r in window if r["outcome"] == "failed"]
                    row = {
                        "layout": layout,
                        "run": run + 1,
                        "broker": victim,
                        "partition": partition,
                        "readable_s": None if seen_s is None else round(seen_s, 2),
                        "written_s": None
                        if first is None
                        else round((first["_written_ms"] - frozen_ms) / 1000, 2),
                        "decided_s": None
                        if first is None
                        else round((first["done_ms"] - frozen_ms) / 1000, 2),
                        "error": None if first is None else first["error"],
                        "others_ok": sum(r["outcome"] == "ok" for r in window),
                        "others_failed": len(others_failed),
                        "others_last_failure_sent_s": max(
                            ((r["send_ms"] - frozen_ms) / 1000 for r in others_failed),
                            default=None,
                        ),
                        "others_errors": sorted({str(r["error"]) for r in others_failed}),
                    }
                    print(json.dumps(row), flush=True)
                    measured.append(row)
            finally:
                service.stop(deliver_timeout_s=0)
                results.consumer.close()
                admin.close()
        finally:
            for cluster in reversed(started):
                cluster.down()
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", choices=["transport", "single", "both"], default="both")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--observe", type=float, default=20.0, help="seconds to stay frozen after the Timeout"
    )
    args = parser.parse_args()
    layouts = ["transport", "single"] if args.layout == "both" else [args.layout]
    for layout in layouts:
        run_layout(layout, args.runs, args.observe)


if __name__ == "__main__":
    main()
