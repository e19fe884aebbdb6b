"""Records per second through the whole streaming job (logs + canary) on this machine.

Two phases on a local 1-broker Kafka and Spark ``local[2]``:

1. **Backlog**: the topics are filled first (broker log records in the project's envelope,
   about one event in ten as in parse_bench, plus canary probes and their outcomes), then
   the job's one query (:class:`~kafka_health.job.app.MonitorJob`) processes the backlog
   (``availableNow``). Throughput = input records / wall time.
2. **Sustained**: the job runs as in production (processing-time trigger) while a producer
   feeds logs at ``--rate`` records per second plus one canary probe per partition per
   second; reported are the batch durations (median, p95) and whether it kept up.

    .venv/bin/python benchmarks/job_bench.py [--logs 200000] [--rate 1000] [--seconds 120]
        [--trigger 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.parse_bench import corpus
from kafka_health.canary.records import Probe, ProbeOutcome
from kafka_health.config import JobConfig, MonitorConfig, SparkConfig, TopicsConfig
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.log_lines import envelope as log_envelope
from kafka_health.kafka_clients import python_client_options

PARTITIONS = 3


def envelope(broker: int, message: str) -> bytes:
    kind = "gc" if "[gc" in message or "GC(" in message else "server"
    return log_envelope(str(broker), kind, message)


def canary_pair(topic: str, partition: int, seq: int, send_ms: int) -> tuple[bytes, bytes]:
    probe = Probe("bench", partition, seq, "all", send_ms).encode()
    outcome = ProbeOutcome(
        "bench", topic, partition, seq, "all", send_ms, send_ms + 4, "ok", 0.004,
        partition + 1, None, None, seq, send_ms + 2,
    ).encode()  # fmt: skip
    return probe, outcome


def produce_backlog(config: MonitorConfig, logs: int, canary_seconds: int) -> int:
    from kafka import KafkaProducer

    producer = KafkaProducer(linger_ms=50, batch_size=262144, **python_client_options(config.kafka))
    lines = corpus(logs)
    for n, line in enumerate(lines):
        producer.send(
            config.topics.broker_logs, key=str(n % 3 + 1).encode(), value=envelope(n % 3 + 1, line)
        )
    start = int(time.time() * 1000) - canary_seconds * 1000
    for second in range(canary_seconds):
        for partition in range(PARTITIONS):
            probe, outcome = canary_pair(
                config.topics.canary, partition, second, start + second * 1000
            )
            producer.send(config.topics.canary, value=probe, partition=partition)
            producer.send(config.topics.canary_results, value=outcome, partition=partition)
    producer.flush()
    producer.close()
    return logs + 2 * canary_seconds * PARTITIONS


def feed(config: MonitorConfig, rate: int, stop: threading.Event) -> None:
    """Logs at ``rate`` per second and one canary probe per partition per second."""
    from kafka import KafkaProducer

    producer = KafkaProducer(linger_ms=20, **python_client_options(config.kafka))
    lines = corpus(rate * 10, seed=7)
    seq, n = 10_000_000, 0
    while not stop.is_set():
        tick = time.monotonic()
        for _ in range(rate):
            producer.send(
                config.topics.broker_logs, value=envelope(n % 3 + 1, lines[n % len(lines)])
            )
            n += 1
        now_ms = int(time.time() * 1000)
        for partition in range(PARTITIONS):
            probe, outcome = canary_pair(config.topics.canary, partition, seq, now_ms)
            producer.send(config.topics.canary, value=probe, partition=partition)
            producer.send(config.topics.canary_results, value=outcome, partition=partition)
        seq += 1
        stop.wait(max(0.0, 1.0 - (time.monotonic() - tick)))
    producer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=200_000)
    parser.add_argument("--canary-seconds", type=int, default=600)
    parser.add_argument("--rate", type=int, default=1000, help="log records/s, phase 2")
    parser.add_argument("--trigger", type=float, default=None, help="job.trigger_interval_s")
    parser.add_argument("--seconds", type=int, default=120, help="length of phase 2")
    args = parser.parse_args()

    from kafka.admin import KafkaAdminClient, NewTopic

    from kafka_health.job.app import QUERY, MonitorJob
    from kafka_health.spark import build_spark_session

    with tempfile.TemporaryDirectory(prefix="job-bench-") as tmp:
        cluster = LocalCluster.create(ClusterSpec(dir=Path(tmp) / "kafka", brokers=1)).up()
        try:
            config = dataclasses.replace(
                MonitorConfig().with_bootstrap(cluster.bootstrap_servers),
                topics=TopicsConfig(),
                spark=SparkConfig(checkpoint_dir=str(Path(tmp) / "checkpoints")),
                job=JobConfig(starting_offsets="earliest"),
            )
            if args.trigger is not None:
                config = dataclasses.replace(
                    config, job=dataclasses.replace(config.job, trigger_interval_s=args.trigger)
                )
            config = dataclasses.replace(
                config,
            )
            admin = KafkaAdminClient(**python_client_options(config.kafka))
            names = [getattr(config.topics, f.name) for f in dataclasses.fields(config.topics)]
            admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in names])
            admin.close()
            records = produce_backlog(config, args.logs, args.canary_seconds)
            spark = build_spark_session(config.spark)

            job = MonitorJob(spark, config)
            started = time.perf_counter()
            job.run_available_now()
            total = time.perf_counter() - started
            print(f"phase 1: {records} records ({args.logs} log records) in {total:.1f} s "
                  f"= {records / total:,.0f} records/s")  # fmt: skip

            stop = threading.Event()
            feeder = threading.Thread(target=feed, args=(config, args.rate, stop), daemon=True)
            durations: dict[str, list[float]] = {}
            behind: dict[str, list[float]] = {}
            job_stop = threading.Event()
            runner = threading.Thread(target=job.run, args=(job_stop,), daemon=True)
            runner.start()
            feeder.start()
            deadline = time.monotonic() + args.seconds
            seen: float | None = None
            while time.monotonic() < deadline:
                time.sleep(0.5)
                health = job.health.query(QUERY)
                if health.last_batch_s is not None and health.last_batch_s != seen:
                    seen = health.last_batch_s
                    durations.setdefault(QUERY, []).append(health.batch_duration_s)
                    behind.setdefault(QUERY, []).append(health.offsets_behind)
            stop.set()
            job_stop.set()
            runner.join(timeout=120)
            print(f"phase 2: {args.rate} log records/s + {PARTITIONS} canary probes/s for "
                  f"{args.seconds} s (trigger {config.job.trigger_interval_s:g} s)")  # fmt: skip
            for name, values in durations.items():
                late = sorted(values[len(values) // 2 :])  # after warm-up
                p95 = late[max(0, round(0.95 * len(late)) - 1)]
                print(
                    f"  {name:<14} batches {len(values):3d}  median "
                    f"{statistics.median(late):5.2f} s  p95 {p95:5.2f} s  max {late[-1]:5.2f} s  "
                    f"records behind at end {behind[name][-1]:,.0f}"
                )
        finally:
            cluster.down()


if __name__ == "__main__":
    main()
