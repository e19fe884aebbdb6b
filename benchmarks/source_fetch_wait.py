"""What a micro-batch of a few records costs to read from Kafka, by ``kafka.fetch.max.wait.ms``.

A local 1-broker cluster, a topic of ``--partitions`` partitions fed a record per partition
every 0.5 s, and a streaming query (``local[2]``, 1 s trigger) whose ``foreachBatch`` collects
the batch's values. Reported: the median and max seconds of that collect (after the first
third of the batches), and the median of each phase of the query's progress, with the Java
client's default fetch wait (500 ms) and with the job's (:data:`FETCH_MAX_WAIT_MS`).

    .venv/bin/python benchmarks/source_fetch_wait.py [--partitions 1 6] [--seconds 45]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kafka_health.config import SparkConfig
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.job.sources import FETCH_MAX_WAIT_MS


def feed(bootstrap: str, partitions: int, stop: threading.Event) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
    n = 0
    while not stop.is_set():
        for p in range(partitions):
            producer.send("t", json.dumps({"n": n}).encode(), partition=p)
        n += 1
        time.sleep(0.5)
    producer.close()


def measure(spark: Any, bootstrap: str, checkpoint: str, wait_ms: int | None, seconds: int) -> str:
    source = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", "t")
        .option("startingOffsets", "latest")
    )
    if wait_ms is not None:
        source = source.option("kafka.fetch.max.wait.ms", str(wait_ms))
    took: list[float] = []

    def body(batch: Any, _batch_id: int) -> None:
        started = time.perf_counter()
        batch.select("value").collect()
        took.append(time.perf_counter() - started)

    query = (
        source.load()
        .writeStream.foreachBatch(body)
        .trigger(processingTime="1 second")
        .option("checkpointLocation", checkpoint)
        .start()
    )
    time.sleep(seconds)
    query.stop()
    late = sorted(took[len(took) // 3 :])
    phases: dict[str, list[float]] = {}
    for progress in query.recentProgress[-10:]:
        for phase, ms in progress["durationMs"].items():
            phases.setdefault(phase, []).append(ms / 1000)
    shown = ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in sorted(phases.items()))
    label = "default (500)" if wait_ms is None else str(wait_ms)
    return (
        f"fetch.max.wait.ms {label:>13}: {len(took)} batches, collect median "
        f"{statistics.median(late):.3f} s, max {late[-1]:.3f} s; phases (s): {shown}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, nargs="+", default=[1, 6])
    parser.add_argument("--seconds", type=int, default=45)
    args = parser.parse_args()

    from kafka.admin import KafkaAdminClient, NewTopic

    from kafka_health.spark import build_spark_session

    for partitions in args.partitions:
        with tempfile.TemporaryDirectory(prefix="fetch-wait-") as tmp:
            cluster = LocalCluster.create(ClusterSpec(dir=Path(tmp) / "kafka", brokers=1)).up()
            stop = threading.Event()
            try:
                servers = cluster.bootstrap_servers
                bootstrap = servers if isinstance(servers, str) else ",".join(servers)
                admin = KafkaAdminClient(bootstrap_servers=bootstrap)
                admin.create_topics([NewTopic("t", partitions, 1)])
                admin.close()
                threading.Thread(target=feed, args=(bootstrap, partitions, stop),
                                 daemon=True).start()  # fmt: skip
                spark = build_spark_session(SparkConfig(master="local[2]"))
                print(f"{partitions} partition(s):")
                for n, wait_ms in enumerate((None, FETCH_MAX_WAIT_MS)):
                    checkpoint = str(Path(tmp) / f"checkpoint-{n}")
                    print("  " + measure(spark, bootstrap, checkpoint, wait_ms, args.seconds))
            finally:
                stop.set()
                cluster.down()


if __name__ == "__main__":
    main()
