"""Throughput of the log shipper: entries per second on one core.

    taskset -c 0 .venv/bin/python benchmarks/shipper_bench.py [--entries N]
        [--bootstrap HOST:PORT]

Writes N entries in Kafka's server.log format (one in seven an ERROR with a 3-line stack
trace) and ships them. Without --bootstrap the producer acknowledges at once, which measures
the shipper's own work (tail, multi-line join, envelope, bookkeeping, positions); with it,
kafka-python sends to a real broker (topic ``shipper_bench``) with acks=all.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kafka_health.config import (
    KafkaConfig,
    ShipperBrokerConfig,
    ShipperConfig,
    ShipperFileConfig,
)
from kafka_health.shipper.sender import ProducerLike, kafka_producer
from kafka_health.shipper.service import Shipper

LINE = (
    "[2026-11-22 10:00:{s:02d},{ms:03d}] INFO [Partition __consumer_offsets-{p} broker=1] "
    "Log loaded for partition __consumer_offsets-{p} with initial high watermark {n} "
    "(kafka.cluster.Partition)\n"
)
TRACE = (
    "[2026-11-22 10:00:{s:02d},{ms:03d}] ERROR Processor got uncaught exception. "
    "(kafka.network.Processor)\njava.lang.ArrayIndexOutOfBoundsException: {n}\n"
    "\tat org.apache.kafka.common.protocol.ApiKeys.forId(ApiKeys.java:68)\n"
    "\tat kafka.network.Processor.run(SocketServer.scala:421)\n"
)


class _Acked:
    """A future that is already acknowledged."""

    def add_callback(self, f: Any, *args: Any) -> _Acked:
        f(*args, None)
        return self

    def add_errback(self, f: Any, *args: Any) -> _Acked:
        return self


class NullProducer:
    """Acknowledges every record at once: measures the shipper without the network."""

    def send(self, topic: str, value: bytes | None = None, key: bytes | None = None) -> _Acked:
        return _Acked()

    def flush(self, timeout: float | None = None) -> None:
        pass

    def close(self, timeout: float | None = None) -> None:
        pass


def write_log(path: Path, entries: int) -> int:
    with path.open("w", encoding="utf-8") as handle:
        for n in range(entries):
            template = TRACE if n % 7 == 0 else LINE
            handle.write(template.format(s=n % 60, ms=n % 1000, p=n % 50, n=n))
    return path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200_000)
    parser.add_argument("--bootstrap", help="a real broker, e.g. 127.0.0.1:9092")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        size = write_log(log, args.entries)
        config = ShipperConfig(
            brokers=[
                ShipperBrokerConfig(
                    broker_id="1", host="bench", files=[ShipperFileConfig("server", str(log))]
                )
            ],
            positions_file=str(Path(tmp) / "positions.json"),
            buffer_max_entries=20_000,
            read_chunk_bytes=1024 * 1024,
            flush_timeout_s=0.05,
        )
        producer: ProducerLike = NullProducer()
        if args.bootstrap:
            producer = kafka_producer(KafkaConfig(bootstrap_servers=[args.bootstrap]), config)
        shipper = Shipper(config, "shipper_bench", producer)
        sent = shipper.metrics.entries_sent.labels("1", "server", str(log))
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        while sent._value.get() < args.entries:
            if not shipper.step():
                time.sleep(0.01)
                shipper.sender.flush(0.5)
        elapsed = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        shipper.close(10.0)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    mode = f"kafka-python to {args.bootstrap}" if args.bootstrap else "null producer"
    print(
        f"{args.entries} entries ({size / 1e6:.1f} MB, {mode}): {elapsed:.2f} s wall, "
        f"{cpu:.2f} s CPU -> {args.entries / elapsed:,.0f} entries/s wall, "
        f"{args.entries / cpu:,.0f} entries per CPU second"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
