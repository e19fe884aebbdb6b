"""Helpers of the shipper's integration tests: log writers in Kafka's real formats, a reader
of the broker-log topic that checks every line against the files, and a metrics scraper."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import NewTopic

SERVER = (
    "[2026-11-22 10:00:{s:02d},{ms:03d}] INFO [Partition __consumer_offsets-{p} broker=1] "
    "Log loaded for partition __consumer_offsets-{p} with initial high watermark {n} "
    "(kafka.cluster.Partition)"
)
SERVER_ERROR = [
    "[2026-11-22 10:00:{s:02d},{ms:03d}] ERROR Processor got uncaught exception. "
    "(kafka.network.Processor)",
    "java.lang.ArrayIndexOutOfBoundsException: {n}",
    "\tat org.apache.kafka.common.protocol.ApiKeys.forId(ApiKeys.java:68)",
    "\tat kafka.network.Processor.run(SocketServer.scala:421)",
]
GC = (
    "[2026-11-22T10:00:{s:02d}.{ms:03d}+0000][{n}.{ms:03d}s][info][gc] GC({n}) Pause Young "
    "(Normal) (G1 Evacuation Pause) 120M->30M(256M) 4.567ms"
)


@dataclass
class SyntheticLogs:
    """Log files written like a broker writes them; remembers (inode, offset, line) of each."""

    root: Path
    written: list[tuple[int, int, str]] = field(default_factory=list)
    counter: int = 0

    def write(self, name: str, entries: int) -> None:
        path = self.root / name
        with path.open("ab") as handle:
            ino = os.fstat(handle.fileno()).st_ino
            offset = handle.tell()
            for _ in range(entries):
                self.counter += 1
                n = self.counter
                values = {"s": n % 60, "ms": n % 1000, "p": n % 50, "n": n}
                if name.startswith("gc"):
                    lines = [GC.format(**values)]
                elif n % 7 == 0:
                    lines = [t.format(**values) for t in SERVER_ERROR]
                else:
                    lines = [SERVER.format(**values)]
                for line in lines:
                    data = (line + "\n").encode()
                    handle.write(data)
                    self.written.append((ino, offset, line))
                    offset += len(data)
                handle.flush()

    def rotate(self, name: str, new_name: str) -> None:
        os.replace(self.root / name, self.root / new_name)


def create_topic(servers: list[str], topic: str, replication: int) -> None:
    admin = KafkaAdminClient(bootstrap_servers=servers, client_id="shipper-test")
    try:
        admin.create_topics([NewTopic(topic, 1, replication)])
    finally:
        admin.close()


class TopicReader:
    """Reads the broker-log topic from the start and keeps every record's envelope."""

    def __init__(self, servers: list[str], topic: str) -> None:
        self.consumer = KafkaConsumer(bootstrap_servers=servers, enable_auto_commit=False)
        self.consumer.assign([TopicPartition(topic, 0)])
        self.consumer.seek_to_beginning()
        self.records: list[dict[str, Any]] = []
        self.keys: list[bytes] = []

    def poll(self) -> None:
        for batch in self.consumer.poll(timeout_ms=500, max_records=5000).values():
            for message in batch:
                self.keys.append(message.key)
                self.records.append(json.loads(message.value))

    def lines(self, inodes: set[int] | None = None) -> Counter[tuple[int, int, str]]:
        """Every line of every record as (inode, offset of the line, text), counted."""
        found: Counter[tuple[int, int, str]] = Counter()
        for record in self.records:
            if inodes is not None and record["inode"] not in inodes:
                continue
            offset = record["offset"]
            for line in record["message"].split("\n"):
                found[(record["inode"], offset, line)] += 1
                offset += len(line.encode()) + 1
        return found

    def close(self) -> None:
        self.consumer.close()


def wait_until(condition: Callable[[], bool], timeout_s: float, poll_s: float = 0.5) -> bool:
    """Poll ``condition`` until it holds or the deadline passes (no timing is asserted)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(poll_s)
    return condition()


def scrape(port: int) -> dict[str, float]:
    """The shipper's /metrics as {series: value} (series with their labels), without the
    ``cluster`` label every sample carries (one cluster per process)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    values: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            name = CLUSTER_LABEL.sub("", name).replace(",}", "}").replace("{}", "")
            values[name] = float(value)
    return values


CLUSTER_LABEL = re.compile(r'cluster="[^"]*",?')


def total(metrics: dict[str, float], name: str) -> float:
    """Sum of a metric over its label sets."""
    return sum(v for k, v in metrics.items() if k == name or k.startswith(name + "{"))


def saved_offsets(positions_file: Path) -> dict[int, int]:
    """inode -> saved offset, from the shipper's positions file (empty when absent)."""
    try:
        raw = json.loads(positions_file.read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return {int(f["inode"]): int(f["offset"]) for f in raw["files"]}
