"""A fuzz run through the streaming job itself: hostile records among good ones, on real Kafka.

Two runs of the job (:class:`~kafka_health.job.app.MonitorJob`, processing-time trigger, on the
wall clock as in production), each on topics of its own on a local 1-broker Kafka:

- **clean**: a good timeline only (canary outcomes of 3 partitions over the last minute, a
  cluster-state snapshot with one under-replicated partition, broker logs of brokers 1-3 with
  Full GCs, ISR changes and a leader election among ordinary lines);
- **noisy**: the same good timeline, spread among ``--records`` hostile records:
  the hostile log lines of :mod:`~kafka_health.parsing.hostile` (random bytes, NUL runs, mutated
  and real lines of the parser's test table, the ~1 MB recursion bait) as broker 9's, in the
  shipper's envelope or raw, less those that are still events (a mutated line can be a real
  event, and would change the signals by being one), plus a JSON envelope nested 10,000 deep
  and 2 MB records; and
  malformed canary outcomes and cluster-state records (not JSON, another schema, missing
  fields, wrong types, NaN, future and ancient timestamps, negative latencies from a clock
  stepped back), each of a known reason.

It checks, and prints: the job never restarted a query; every log record is counted
(``kafka_health_log_entries_total``); every malformed record of the monitor's own topics is
rejected with the reason it was built with; the dead-letter topic holds exactly one record
per dead letter counted; the good brokers' signals are the same as in the clean run.

    .venv/bin/python benchmarks/fuzz_job.py [--records 1000000] [--seed 13] [--json OUT]

(``benchmarks/fuzz_job.py`` runs :func:`fuzz`; ``tests/spark/test_job_fuzz.py`` runs it scaled
down.) The label flood, ``--flood``, is :mod:`kafka_health.dev.flood_job`: it builds on the
good timeline, the producers and the run configs here.
"""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kafka_health.canary.records import ProbeOutcome
from kafka_health.cluster_state.records import BrokerState, PartitionState, SnapshotSummary
from kafka_health.config import JobConfig, MonitorConfig, SparkConfig, TopicsConfig
from kafka_health.dev.log_lines import envelope, gc_stamp, stamp
from kafka_health.dev.parsing_cases import case_lines
from kafka_health.job.schemas import CLUSTER_STATE_SCHEMA_ID, RESULT_SCHEMA_ID
from kafka_health.kafka_clients import python_client_options
from kafka_health.parsing.events import BAD_INPUT_REASONS
from kafka_health.parsing.hostile import hostile_lines

NOISE_BROKER = "9"
GOOD_BROKERS = ("1", "2", "3")
PARTITIONS = 3
BIG = 16 * 1_048_576  # topics and clients take the 2 MB records
SIGNALS_ON_THE_CLOCK = ("age", "timestamp", "stale", "silence", "unanswered")
"""Signals whose value is the wall clock's (ages, last-seen times) or the driver's pings of the
real brokers (``*_unanswered_seconds``: present once a ping round has listed them, which a run
of 2-3 s may end before): not compared."""

Record = tuple[str, bytes | None, bytes, int | None]  # (topic, key, value, partition)


def good_records(topics: TopicsConfig, t0_ms: int, seed: int) -> list[Record]:
    """The good timeline, ending at ``t0_ms``."""
    rng = random.Random(seed)
    out: list[Record] = []
    for second in range(60):
        send = t0_ms - 60_000 + second * 1000
        for partition in range(PARTITIONS):
            failed = partition == 2 and second in (40, 41, 42)
            latency = rng.uniform(0.002, 0.030)
            result = ProbeOutcome(
                "fuzz", topics.canary, partition, second, "all", send,
                send + (3000 if failed else int(latency * 1000) + 1),
                "failed" if failed else "ok", 3.0 if failed else latency, partition + 1,
                "NotEnoughReplicas" if failed else None, None, None if failed else second,
                None if failed else send + 1,
            )  # fmt: skip
            out.append((topics.canary_results, result.key, result.encode(), partition))
    snapshot = t0_ms - 5000
    for number in (1, 2, 3):
        state = BrokerState(snapshot, number, "localhost", 9090 + number, None, True, number == 1)
        out.append((topics.cluster_state, state.key, state.encode(), 0))
    for partition in range(6):
        leader = partition % 3 + 1
        isr = [leader] if partition == 4 else [1, 2, 3]
        p = PartitionState(snapshot, "orders", partition, leader, 3, [1, 2, 3], isr, [], 2)
        out.append((topics.cluster_state, p.key, p.encode(), 0))
    summary = SnapshotSummary(snapshot, snapshot + 20, 1, 6, 3, 3, 1, "fuzz")
    out.append((topics.cluster_state, SnapshotSummary.key, summary.encode(), 0))
    events = [
        ("1", "gc", f"[{gc_stamp(t0_ms - 30_000)}][43.803s][info][gc] GC(7) Pause Full "
                    "(G1 Compaction Pause) 900M->400M(1024M) 1250.500ms"),
        ("1", "gc", f"[{gc_stamp(t0_ms - 20_000)}][53.803s][info][gc] GC(8) Pause Full "
                    "(Allocation Failure) 1000M->500M(1024M) 7512.250ms"),
        ("2", "server", f"[{stamp(t0_ms - 25_000)}] INFO [Partition orders-4 broker=2] "
                        "Shrinking ISR from 2,3,1 to 2 (kafka.cluster.Partition)"),
        ("1", "controller", f"[{stamp(t0_ms - 15_000)}] INFO [Controller id=1] Partition "
                            "orders-5 completed preferred replica leader election. New leader "
                            "is 3 (kafka.controller.KafkaController)"),
    ]  # fmt: skip
    for i in range(300):
        broker = GOOD_BROKERS[i % 3]
        line = (f"[{stamp(t0_ms - 60_000 + i * 100)}] INFO [ReplicaFetcher replicaId={broker}, "
                f"leaderId=2, fetcherId=0] Node 2 was unable to process the fetch request "
                "(kafka.server.ReplicaFetcherThread)")  # fmt: skip
        events.append((broker, "server", line))
    for broker, kind, message in events:
        out.append((topics.broker_logs, broker.encode(), envelope(broker, kind, message), 0))
    return out


def bad_outcome(rng: random.Random, now_ms: int, i: int) -> tuple[bytes, str]:
    """A canary outcome that must be rejected, and the reason it must be rejected for."""
    ok: dict[str, Any] = {
        "schema": RESULT_SCHEMA_ID, "canary_id": "fuzz", "topic": "c", "partition": 0,
        "seq": 10_000 + i, "acks": "all", "send_ms": now_ms - 1000, "done_ms": now_ms - 990,
        "outcome": "ok", "latency_s": 0.01, "leader": 1,
    }  # fmt: skip
    kind = rng.randrange(9)
    if kind == 0:
        return b'{"schema": "' + RESULT_SCHEMA_ID.encode() + b'", "partition": ', "not_json"
    if kind == 1:
        return json.dumps({**ok, "schema": "someone-else/v2"}).encode(), "wrong_schema"
    if kind == 2:
        return json.dumps({k: v for k, v in ok.items() if k != "seq"}).encode(), "missing_field"
    if kind == 3:
        wrong = rng.choice([("partition", "0"), ("latency_s", "fast"), ("send_ms", 1.5e12),
                            ("leader", [1]), ("partition", True), ("done_ms", {})])  # fmt: skip
        return json.dumps({**ok, wrong[0]: wrong[1]}).encode(), "wrong_type"
    if kind == 4:
        return json.dumps(ok).replace('"latency_s": 0.01', '"latency_s": NaN').encode(), (
            "wrong_type"
        )
    if kind == 5:
        ahead = now_ms + rng.choice([3_600_000, 86_400_000 * 365 * 80])
        return json.dumps({**ok, "send_ms": ahead, "done_ms": ahead + 5}).encode(), (
            "future_timestamp"
        )
    if kind == 6:
        old = rng.choice([0, 86_400_000, now_ms - 30 * 86_400_000])
        return json.dumps({**ok, "send_ms": old, "done_ms": old + 5}).encode(), (
            "ancient_timestamp"
        )
    if kind == 7:
        return json.dumps({**ok, "latency_s": -rng.uniform(0.001, 5)}).encode(), (
            "negative_latency"
        )
    return json.dumps({**ok, "done_ms": ok["send_ms"] - 400}).encode(), "negative_latency"


def bad_cluster_record(rng: random.Random, now_ms: int) -> tuple[bytes, str]:
    """A cluster-state record that must be rejected, and the reason it must be rejected for."""
    ok: dict[str, Any] = {
        "schema": CLUSTER_STATE_SCHEMA_ID, "kind": "partition", "snapshot_ms": now_ms - 2000,
        "topic": "orders", "partition": 0, "leader": 1, "leader_epoch": 3,
        "replicas": [1, 2, 3], "isr": [1, 2, 3], "min_isr": 2,
    }  # fmt: skip
    kind = rng.randrange(7)
    if kind == 0:
        return b"\x00\xff" + rng.randbytes(rng.randrange(40)), "not_json"
    if kind == 1:
        return json.dumps([ok]).encode(), "wrong_schema"
    if kind == 2:
        return json.dumps({**ok, "kind": "rumour"}).encode(), "unknown_kind"
    if kind == 3:
        return json.dumps({**ok, "snapshot_ms": None}).encode(), "missing_field"
    if kind == 4:
        wrong = rng.choice([("isr", ["1", "2"]), ("replicas", "1,2,3"), ("leader", "1"),
                            ("min_isr", 2.5), ("snapshot_ms", "now")])  # fmt: skip
        return json.dumps({**ok, wrong[0]: wrong[1]}).encode(), "wrong_type"
    if kind == 5:
        return json.dumps({**ok, "snapshot_ms": now_ms + 7_200_000}).encode(), "future_timestamp"
    return json.dumps({**ok, "snapshot_ms": 1_000}).encode(), "ancient_timestamp"


def noise(topics: TopicsConfig, count: int, seed: int, now_ms: int) -> Iterator[
    tuple[Record, tuple[str, str] | None]
]:  # fmt: skip
    """``count`` hostile records, each with the (source, reason) it must be rejected for, or
    None for a log record (what the parser makes of it is counted, not predicted)."""
    rng = random.Random(seed)
    lines = hostile_lines(case_lines(), max(1, int(count * 0.8)), seed)
    key = NOISE_BROKER.encode()
    specials = [b'{"message": ' + b'{"a": ' * 10_000 + b"1" + b"}" * 10_001, b"y" * 2_097_152]
    for i in range(count):
        roll = rng.random()
        if i < len(specials):
            yield (topics.broker_logs, key, specials[i], 0), None
        elif roll < 0.1:
            value, reason = bad_outcome(rng, now_ms, i)
            yield (
                (topics.canary_results, b"fuzz/0", value, rng.randrange(PARTITIONS)),
                ("canary_results", reason),
            )
        elif roll < 0.2:
            value, reason = bad_cluster_record(rng, now_ms)
            yield (topics.cluster_state, b"partition/orders/0", value, 0), ("cluster_state", reason)
        else:
            line = next(lines, None) or rng.randbytes(rng.randrange(1, 100))
            while _an_event(line):  # a mutated line can still be a real event: not noise
                line = next(lines, None) or rng.randbytes(rng.randrange(1, 100))
            if len(line) > 100_000 or rng.random() < 0.3:  # raw, as a shipper of lines sends
                yield (topics.broker_logs, key, line, 0), None
            else:
                message = line.decode("utf-8", "replace")
                kind = rng.choice(["server", "controller", "state-change", "gc"])
                yield (topics.broker_logs, key, envelope(NOISE_BROKER, kind, message), 0), None


def _an_event(line: bytes) -> bool:
    """Whether the parser's table (its Python twin) reads ``line`` as an event: such a line is
    not hostile, and would change the good timeline's signals by being one."""
    from kafka_health.parsing.reference import classify

    if len(line) > 100_000:
        return False  # the huge lines are bait, never events within the scan window
    return classify(line.decode("utf-8", "replace")).outcome == "event"


def spread(good: list[Record], noisy: Iterator[tuple[Record, Any]], count: int) -> Iterator[
    tuple[Record, Any]
]:  # fmt: skip
    """The noise with the good records evenly among it (in their own order)."""
    every = max(1, count // max(1, len(good)))
    pending = list(good)
    for i, item in enumerate(noisy):
        if i % every == 0 and pending:
            yield pending.pop(0), None
        yield item
    for record in pending:
        yield record, None


def produce(
    config: MonitorConfig,
    records: Iterator[tuple[Record, Any]],
    spark: Any = None,
    timestamp_ms: int | None = None,
) -> tuple[int, Counter[tuple[str, str]]]:
    """Send everything; returns (log records sent, expected rejections by (source, reason)).
    With ``spark``, through Spark's Kafka sink (a JVM producer: 100,000 records in seconds,
    where kafka-python took 50 s on a loaded CI machine). With ``timestamp_ms``, every record
    carries it as its Kafka timestamp (kafka-python only): the time it was shipped, which the
    job's log clock follows (:func:`~kafka_health.detectors.logwindow.shipping_clock`)."""
    if spark is not None:
        return _produce_with_spark(config, records, spark)
    from kafka import KafkaProducer

    producer = KafkaProducer(
        linger_ms=50, batch_size=262_144, max_request_size=BIG, acks=1,
        **python_client_options(config.kafka),
    )  # fmt: skip
    logs, expected = 0, Counter[tuple[str, str]]()
    for (topic, key, value, partition), reason in records:
        producer.send(topic, key=key, value=value, partition=partition, timestamp_ms=timestamp_ms)
        logs += topic == config.topics.broker_logs
        if reason is not None:
            expected[reason] += 1
    producer.flush()
    producer.close()
    return logs, expected


def _produce_with_spark(
    config: MonitorConfig, records: Iterator[tuple[Record, Any]], spark: Any
) -> tuple[int, Counter[tuple[str, str]]]:
    from kafka_health.kafka_clients import spark_kafka_options

    rows, logs, expected = [], 0, Counter[tuple[str, str]]()
    for (topic, key, value, partition), reason in records:
        rows.append((topic, key, value, partition))
        logs += topic == config.topics.broker_logs
        if reason is not None:
            expected[reason] += 1
    frame = spark.createDataFrame(rows, "topic string, key binary, value binary, partition int")
    options = {**spark_kafka_options(config.kafka), "kafka.max.request.size": str(BIG)}
    frame.write.format("kafka").options(**options).save()
    return logs, expected


def fuzz_config(base: MonitorConfig, tmp: Path, name: str) -> MonitorConfig:
    """Topics and checkpoints of one run; nothing goes stale or silent while it runs."""
    topics = TopicsConfig(
        canary=f"{name}-canary", canary_results=f"{name}-canary-results",
        cluster_state=f"{name}-cluster-state", broker_logs=f"{name}-broker-logs",
        dead_letter=f"{name}-dead-letter",
    )  # fmt: skip
    hour = 3600.0
    return dataclasses.replace(
        base,
        topics=topics,
        spark=SparkConfig(checkpoint_dir=str(tmp / name / "checkpoints")),
        job=JobConfig(
            starting_offsets="earliest",
            canary_silence_s=hour,
            log_silence_s=hour,
            stale_after_s={"canary": hour, "cluster_state": hour, "canary_topic": hour},
        ),
    )


def create_topics(config: MonitorConfig) -> None:
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(**python_client_options(config.kafka))
    try:
        names = [getattr(config.topics, f.name) for f in dataclasses.fields(config.topics)]
        admin.create_topics(
            [
                NewTopic(n, PARTITIONS, 1, topic_configs={"max.message.bytes": str(BIG)})
                for n in names
            ]
        )
    finally:
        admin.close()


@dataclasses.dataclass
class RunResult:
    seconds: float
    signals: dict[str, float]
    entries: int
    entries_by_reason: dict[str, int]
    rejected: dict[tuple[str, str], int]
    dead_letters_counted: int
    dead_letters_in_topic: int
    restarts: int
    terminations: int
    quarantined: int


def dead_letters_counted(entries: dict[tuple[str, str, str], int], rejected: int) -> int:
    """Dead letters the job's counters account for, under the default dead-letter config."""
    bad = set(BAD_INPUT_REASONS) | {"unknown_format", "parse_failed"}
    logs = sum(
        n for (o, r, _t), n in entries.items()
        if (o == "unrecognised" and r in bad) or o == "malformed"
    )  # fmt: skip
    return logs + rejected


def count_topic(config: MonitorConfig, topic: str) -> int:
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(**python_client_options(config.kafka))
    try:
        parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
        ends = consumer.end_offsets(parts)
        starts = consumer.beginning_offsets(parts)
        return sum(ends[p] - starts[p] for p in parts)
    finally:
        consumer.close()


def wait_counted(
    job: Any, logs: int, timeout_s: float, runner: threading.Thread, poll_s: float = 0.25
) -> None:
    """Until ``job`` has counted ``logs`` log records; RuntimeError when ``runner`` (the job's
    thread) ends first or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while sum(job.parse_counts.totals().values()) < logs:
        if time.monotonic() > deadline or not runner.is_alive():
            raise RuntimeError(
                f"the job counted {sum(job.parse_counts.totals().values())} of {logs} log "
                f"records in {timeout_s:.0f} s"
            )
        time.sleep(poll_s)


def run_job(spark: Any, config: MonitorConfig, logs: int, timeout_s: float) -> RunResult:
    """The job on the wall clock until it has counted ``logs`` log records; then its figures."""
    from kafka_health.job.app import QUERY, MonitorJob

    job = MonitorJob(spark, config)
    stop = threading.Event()
    runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
    started = time.monotonic()
    runner.start()
    try:
        wait_counted(job, logs, timeout_s, runner, poll_s=0.5)
        seconds = time.monotonic() - started
        # The batch that brought the last count also wrote its dead letters and rejections
        # (before its fold): nothing more to wait for.
        signals = {
            f"{s.name}{dict(s.labels)}": float(s.value)
            for s in job.board.signals()
            if s.value is not None
            and dict(s.labels).get("broker_id") != NOISE_BROKER
            and not any(word in s.name for word in SIGNALS_ON_THE_CLOCK)
        }
        health = job.health.query(QUERY)
        entries = job.parse_counts.totals()
        rejected = job.rejected_counts.totals()
    finally:
        stop.set()
        runner.join(timeout=120)
    by_reason: Counter[str] = Counter()
    for (outcome, reason, _type), n in entries.items():
        by_reason[f"{outcome}/{reason}" if reason else outcome] += n
    return RunResult(
        seconds, signals, sum(entries.values()), dict(by_reason), rejected,
        dead_letters_counted(entries, sum(rejected.values())),
        count_topic(config, config.topics.dead_letter), health.restarts_total,
        health.terminations_total, health.quarantined_records_total,
    )  # fmt: skip


def two_runs(
    bootstrap: list[str], tmp: Path, clean: str, noisy: str, spark: Any = None
) -> tuple[MonitorConfig, MonitorConfig, Any]:
    """The configs of a clean run and a noisy one against the Kafka at ``bootstrap`` (named
    ``clean`` and ``noisy``; their topics created), and a Spark session (``spark``, or one
    built for them)."""
    from kafka_health.spark import build_spark_session

    base = MonitorConfig().with_bootstrap(bootstrap)
    configs = fuzz_config(base, tmp, clean), fuzz_config(base, tmp, noisy)
    for config in configs:
        create_topics(config)
    return *configs, spark or build_spark_session(configs[0].spark)


def fuzz(
    bootstrap: list[str], records: int, seed: int, tmp: Path, spark: Any = None
) -> dict[str, Any]:
    """Both runs against the Kafka at ``bootstrap``; the figures and the checks' verdicts."""
    clean_config, noisy_config, spark = two_runs(
        bootstrap, tmp, f"clean-{seed}", f"noisy-{seed}", spark
    )
    now_ms = int(time.time() * 1000)

    # Both runs' records are stamped as shipped at ``now_ms``: the noisy run's produce takes
    # minutes at 1,000,000 records, and records stamped as they were sent would move its log
    # clock (a window behind the newest shipping time) past the good timeline's GCs and
    # election, which the clean run still counts: a difference of the bench, not of the noise.
    good = good_records(clean_config.topics, now_ms, seed)
    clean_logs, _ = produce(clean_config, ((r, None) for r in good), timestamp_ms=now_ms)
    began = time.monotonic()
    noisy_good = good_records(noisy_config.topics, now_ms, seed)
    noisy_logs, expected = produce(
        noisy_config,
        spread(noisy_good, noise(noisy_config.topics, records, seed, now_ms), records),
        timestamp_ms=now_ms,
    )
    produced_s = time.monotonic() - began
    clean = run_job(spark, clean_config, clean_logs, 600)
    noisy = run_job(spark, noisy_config, noisy_logs, 3600)
    differ = {
        k: (clean.signals.get(k), noisy.signals.get(k))
        for k in set(clean.signals) | set(noisy.signals)
        if clean.signals.get(k) != noisy.signals.get(k)
    }
    checks = {
        "no_restart": noisy.restarts == 0 and noisy.terminations == 0,
        "every_log_record_counted": noisy.entries == noisy_logs,
        "every_bad_own_record_rejected_by_reason": {
            k: n for k, n in noisy.rejected.items() if k[0] != "broker_logs"
        }
        == dict(expected),
        "dead_letters_in_topic_equal_counted": (
            noisy.dead_letters_in_topic == noisy.dead_letters_counted
        ),
        "good_signals_unchanged": not differ and bool(clean.signals),
    }
    return {
        "records": records + len(noisy_good),
        "hostile_records": records,
        "log_records": noisy_logs,
        "produce_s": round(produced_s, 1),
        "job_s": round(noisy.seconds, 1),
        "records_per_s": round((records + len(noisy_good)) / noisy.seconds),
        "entries_by_outcome_reason": noisy.entries_by_reason,
        "rejected": {f"{s}/{r}": n for (s, r), n in sorted(noisy.rejected.items())},
        "expected_rejected": {f"{s}/{r}": n for (s, r), n in sorted(expected.items())},
        "dead_letters_counted": noisy.dead_letters_counted,
        "dead_letters_in_topic": noisy.dead_letters_in_topic,
        "restarts": noisy.restarts,
        "terminations": noisy.terminations,
        "quarantined_records": noisy.quarantined,
        "signals_compared": len(clean.signals),
        "signals_that_differ": {k: list(v) for k, v in sorted(differ.items())},
        "checks": checks,
    }
