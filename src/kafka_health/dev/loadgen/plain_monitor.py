"""A plain-Python Kafka health monitor: the yardstick of the throughput benchmark.

What a competent engineer would write without Spark: one kafka-python consumer over the
monitor's topics, ``json`` for the envelopes and records, one combined regular expression as a
cheap filter and then one ``re`` per event, and the same detections as the job in their
simplest useful form: ISR shrinks and expands, leader changes and elections per broker, Full
and young GC pauses (count, longest), NotLeaderOrFollower errors, ZooKeeper session expiries
and broker failures from the logs; canary outcomes (count, failures, latency percentiles per
partition); under-replicated and under-min-ISR partitions from the prober's snapshots.

    .venv/bin/python benchmarks/plain_monitor.py --bootstrap 127.0.0.1:9092 --records N

``consume(...)`` is what ``kafka-health bench throughput`` times
(:func:`kafka_health.dev.loadgen.throughput.plain_rate`). It imports nothing of kafka-health:
it lives in the dev package only so the bench, its test and ``benchmarks/`` share one copy.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

TRIGGER = re.compile(
    r"Shrinking ISR|Expanding ISR|starts at leader epoch|completed preferred replica leader "
    r"election|Pause Full|Pause Young|NotLeader|NOT_LEADER|Session expired|Expired|fenced"
)
ISR_CHANGE = r"\[Partition (\S+) broker=(\d+)\] {} ISR from ([\d,]+) to ([\d,]+)"
EVENTS: list[tuple[str, re.Pattern[str]]] = [
    ("isr_shrink", re.compile(ISR_CHANGE.format("Shrinking"))),
    ("isr_expand", re.compile(ISR_CHANGE.format("Expanding"))),
    (
        "leader_change",
        re.compile(r"Leader (\S+) (?:with topic id \S+ )?starts at leader epoch (\d+)"),
    ),
    ("election", re.compile(r"Partition (\S+) completed preferred replica leader election")),
    ("full_gc", re.compile(r"GC\(\d+\) Pause Full .*? ([\d.]+)ms")),
    ("young_gc", re.compile(r"GC\(\d+\) Pause Young .*? ([\d.]+)ms")),
    ("not_leader", re.compile(r"NotLeader(?:ForPartition|OrFollower)|NOT_LEADER_")),
    ("zk_session_expired", re.compile(r"Session expired|ZooKeeper session \S+ has expired")),
    ("broker_failure", re.compile(r"[Ff]encing broker (\d+)")),
]
LOG4J_TIME = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\]")


@dataclass
class PlainMonitor:
    """The detections' state, fed one record at a time."""

    events: Counter[tuple[str, str]] = field(default_factory=Counter)
    gc_pause_max_s: dict[str, float] = field(default_factory=dict)
    isr: dict[str, list[str]] = field(default_factory=dict)
    canary: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    canary_failures: Counter[int] = field(default_factory=Counter)
    under_replicated: set[tuple[Any, Any]] = field(default_factory=set)  # (topic, partition)
    under_min_isr: set[tuple[Any, Any]] = field(default_factory=set)
    bad: Counter[str] = field(default_factory=Counter)
    last_event_ms: int = 0

    def broker_log(self, value: bytes) -> None:
        try:
            envelope = json.loads(value)
            message, broker = envelope["message"], str(envelope.get("broker_id"))
        except (ValueError, KeyError, TypeError):
            self.bad["envelope"] += 1
            return
        if not TRIGGER.search(message):
            return
        for name, pattern in EVENTS:
            m = pattern.search(message)
            if m is None:
                continue
            self.events[(name, broker)] += 1
            stamp = LOG4J_TIME.match(message)
            if stamp:
                at = datetime.strptime(stamp.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
                self.last_event_ms = int(at.timestamp() * 1000) + int(stamp.group(2))
            if name in ("full_gc", "young_gc"):
                pause = float(m.group(1)) / 1000
                self.gc_pause_max_s[broker] = max(self.gc_pause_max_s.get(broker, 0.0), pause)
            elif name in ("isr_shrink", "isr_expand"):
                self.isr[m.group(1)] = m.group(4).split(",")
            return

    def canary_result(self, value: bytes) -> None:
        try:
            r = json.loads(value)
            partition, ok = int(r["partition"]), r.get("outcome") == "ok"
        except (ValueError, KeyError, TypeError):
            self.bad["canary"] += 1
            return
        if ok:
            self.canary[partition].append(float(r.get("latency_s") or 0.0))
            del self.canary[partition][:-600]  # the last ten minutes at one probe a second
        else:
            self.canary_failures[partition] += 1

    def cluster_state(self, value: bytes) -> None:
        try:
            r: dict[str, Any] = json.loads(value)
        except ValueError:
            self.bad["cluster_state"] += 1
            return
        if r.get("kind") != "partition":
            return
        key = (r.get("topic"), r.get("partition"))
        replicas, isr, min_isr = r.get("replicas") or [], r.get("isr") or [], r.get("min_isr")
        for found, where in (
            (len(isr) < len(replicas), self.under_replicated),
            (min_isr is not None and len(isr) < min_isr, self.under_min_isr),
        ):
            if found:
                where.add(key)
            else:
                where.discard(key)

    def percentiles(self) -> dict[int, tuple[float, float]]:
        """p50 and p99 canary latency per partition."""
        out = {}
        for partition, values in self.canary.items():
            ordered = sorted(values)
            out[partition] = (ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.99)])
        return out


def consume(
    bootstrap: list[str], topics: dict[str, str], expected: int, timeout_s: float = 600.0
) -> tuple[PlainMonitor, int, float]:
    """Read ``expected`` records of the topics (``{"broker_logs": name, ...}``) from the
    beginning; returns the monitor, the records read and the seconds it took (from the first
    record)."""
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(
        *topics.values(), bootstrap_servers=bootstrap, auto_offset_reset="earliest",
        enable_auto_commit=False, group_id=None, fetch_max_bytes=52_428_800,
        max_partition_fetch_bytes=10_485_760, max_poll_records=10_000,
    )  # fmt: skip
    handlers = {
        topics["broker_logs"]: PlainMonitor.broker_log,
        topics["canary_results"]: PlainMonitor.canary_result,
        topics["cluster_state"]: PlainMonitor.cluster_state,
    }
    monitor = PlainMonitor()
    read, started = 0, None
    deadline = time.monotonic() + timeout_s
    try:
        while read < expected and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=500).items():
                if started is None:
                    started = time.perf_counter()
                handle = handlers[tp.topic]
                for record in records:
                    handle(monitor, record.value)
                read += len(records)
    finally:
        consumer.close()
    return monitor, read, time.perf_counter() - (started or time.perf_counter())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--records", type=int, required=True, help="records to read, then stop")
    parser.add_argument("--broker-logs", default="__kafka_health_broker_logs")
    parser.add_argument("--canary-results", default="__kafka_health_canary_results")
    parser.add_argument("--cluster-state", default="__kafka_health_cluster_state")
    args = parser.parse_args()
    topics = {"broker_logs": args.broker_logs, "canary_results": args.canary_results,
              "cluster_state": args.cluster_state}  # fmt: skip
    monitor, read, seconds = consume(args.bootstrap.split(","), topics, args.records)
    print(f"{read} records in {seconds:.1f} s = {read / seconds:,.0f} records/s; "
          f"{sum(monitor.events.values())} events, {len(monitor.under_replicated)} "
          "under-replicated partitions")  # fmt: skip


if __name__ == "__main__":
    main()
