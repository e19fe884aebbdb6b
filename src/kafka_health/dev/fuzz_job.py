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

(``benchmarks/fuzz_job.py`` runs :func:`main`; ``tests/spark/test_job_fuzz.py`` and
``test_job_flood.py`` run :func:`fuzz` and :func:`flood` scaled down.)

``--flood`` runs the label flood instead (issue 55; :func:`flood`, ``--records`` 100,000 by
default there): untrusted values checked at the door, series and alerts capped, one page.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kafka_health.canary.records import ProbeOutcome
from kafka_health.cluster_state.records import BrokerState, PartitionState, SnapshotSummary
from kafka_health.config import (
    ExporterConfig,
    JobConfig,
    MonitorConfig,
    ReceiverConfig,
    SparkConfig,
    TopicsConfig,
)
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
SIGNALS_ON_THE_CLOCK = ("age", "timestamp", "stale", "silence")
"""Signals whose value is the wall clock's (ages, last-seen times): not compared."""
RULES_FILE = Path(__file__).resolve().parents[3] / "conf" / "alerts.yaml"
"""The shipped rules, in the checkout (src/kafka_health/dev/ is three levels down)."""

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
    config: MonitorConfig, records: Iterator[tuple[Record, Any]], spark: Any = None
) -> tuple[int, Counter[tuple[str, str]]]:
    """Send everything; returns (log records sent, expected rejections by (source, reason)).
    With ``spark``, through Spark's Kafka sink (a JVM producer: 100,000 records in seconds,
    where kafka-python took 50 s on a loaded CI machine)."""
    if spark is not None:
        return _produce_with_spark(config, records, spark)
    from kafka import KafkaProducer

    producer = KafkaProducer(
        linger_ms=50, batch_size=262_144, max_request_size=BIG, acks=1,
        **python_client_options(config.kafka),
    )  # fmt: skip
    logs, expected = 0, Counter[tuple[str, str]]()
    for (topic, key, value, partition), reason in records:
        producer.send(topic, key=key, value=value, partition=partition)
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


def run_job(spark: Any, config: MonitorConfig, logs: int, timeout_s: float) -> RunResult:
    """The job on the wall clock until it has counted ``logs`` log records; then its figures."""
    from kafka_health.job.app import QUERY, MonitorJob

    job = MonitorJob(spark, config)
    stop = threading.Event()
    runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
    started = time.monotonic()
    runner.start()
    try:
        _wait_counted(job, logs, timeout_s, runner, poll_s=0.5)
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

    good = good_records(clean_config.topics, now_ms, seed)
    clean_logs, _ = produce(clean_config, ((r, None) for r in good))
    began = time.monotonic()
    noisy_good = good_records(noisy_config.topics, now_ms, seed)
    noisy_logs, expected = produce(
        noisy_config, spread(noisy_good, noise(noisy_config.topics, records, seed, now_ms), records)
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


# ---------------------------------------------------------------------------------- the flood

FLOOD_CAP = 100
"""``alerting.exporter.max_series_per_signal`` in the flood: below the legal random broker
ids' streams, so the store's cap is met."""
LEGAL_NOISE_BROKERS = 400
"""Distinct broker ids in Kafka's range (legal, forged) among the flood's log records."""
NOISE_PARTITIONS = 40
"""Canary partitions (legal) of the flood's failed outcomes with random error strings."""
JOB_HEALTH_RULES = ("MonitorStalled", "MonitorFailed", "MonitorBlind", "ClusterUnreachable",
                    "TransportUnreachable", "MonitorStateNotWritable")  # fmt: skip
"""Rules about the job and its host (a batch of 100,000 records on a loaded CI machine),
not about what the records say."""
REJECTION_RULE = "MonitorInputRejected"
FORGED_FAILING = ("CanaryWriteFailure", "9")
"""The flood's legal failed sends (random error strings) name leader 9: a canary failure of
broker 9, one page, as a dead broker 9 would give."""
STATE_BYTES_PER_LEGAL_RECORD = 64
"""The detectors' state may grow with the flood's legal records (kept for their windows),
not with its rejected ones."""


def _garbage(rng: random.Random, longest: int) -> str:
    """A random text that holds a character no topic name or broker id may hold."""
    alphabet = "abcXYZ019._-!<>@#|{}\u00fc\u0661 \t"
    body = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, longest)))
    return body + rng.choice("!<>@#|{}\u00fc")


def _bad_key_id(rng: random.Random) -> bytes:
    """Digits in a record key (``record_key: auto`` takes them for a broker id) that are not
    Kafka's: beyond int32, or a leading zero."""
    if rng.random() < 0.5:
        return str(rng.randrange(2_147_483_648, 10**20)).encode()
    return b"0" + str(rng.randrange(1, 10**6)).encode()


def _bad_envelope_id(rng: random.Random) -> Any:
    kind = rng.randrange(7)
    if kind == 0:
        return -rng.randrange(1, 10**9)
    if kind == 1:
        return rng.randrange(2_147_483_648, 10**30)
    if kind == 2:
        return rng.choice(["1.5", "+3", "1 2", "0x1f", "\u0661", "<!channel>", "NaN"])
    if kind == 3:
        return "9" * rng.randrange(11, 5000)
    return "x" + _garbage(rng, 300)  # not "{...}": an object there is no broker id at all


def flood_records(
    topics: TopicsConfig, count: int, seed: int, now_ms: int
) -> Iterator[tuple[Record, tuple[str, str] | None]]:
    """``count`` records with random broker ids, topics and error strings, each with the
    (source, reason) it must be rejected for, or None: a legal forged broker id (its own
    stream), an error class out of the vocabulary (``other``: not a rejection)."""
    rng = random.Random(seed)
    line = ("[{stamp}] INFO [ReplicaFetcher replicaId=9, leaderId=2, fetcherId=0] Node 2 was "
            "unable to process the fetch request (kafka.server.ReplicaFetcherThread)")  # fmt: skip
    legal = [str(rng.randrange(100, 2_147_483_647)) for _ in range(LEGAL_NOISE_BROKERS)]
    for i in range(count):
        roll = rng.random()
        at = now_ms - rng.randrange(1000, 50_000)
        text = line.format(stamp=stamp(at))
        if roll < 0.20:  # a broker id in the key that is not Kafka's
            yield (
                (topics.broker_logs, _bad_key_id(rng), text.encode(), 0),
                ("broker_logs", "bad_broker_id"),
            )
        elif roll < 0.40:  # ... or in the envelope
            doc = {"broker_id": _bad_envelope_id(rng), "kind": "server", "message": text}
            yield (
                (topics.broker_logs, None, json.dumps(doc).encode(), 0),
                ("broker_logs", "bad_broker_id"),
            )
        elif roll < 0.45:  # legal, forged: a stream of its own, kinds random
            kind = rng.choice(["server", "gc", "controller", _garbage(rng, 40)])
            doc = {"broker_id": rng.choice(legal), "kind": kind, "message": text}
            yield (topics.broker_logs, None, json.dumps(doc).encode(), 0), None
        elif roll < 0.55:  # an event of a topic Kafka would refuse
            topic = _garbage(rng, 400).replace(" ", "_").replace("]", "").replace("\t", "_")
            event = (f"[{stamp(at)}] INFO [Partition {topic}-{rng.randrange(100)} broker=9] "
                     "Shrinking ISR from 9,1 to 9 (kafka.cluster.Partition)")  # fmt: skip
            yield (topics.broker_logs, b"9", event.encode(), 0), ("broker_logs", "bad_topic")
        elif roll < 0.70:  # a canary outcome with a value out of its range
            value, reason = _hostile_outcome(rng, at, i)
            yield (
                (topics.canary_results, b"flood", value, rng.randrange(PARTITIONS)),
                ("canary_results", reason),
            )
        elif roll < 0.80:  # a failed send with a random error string: class "other"
            doc = {"schema": RESULT_SCHEMA_ID, "canary_id": "flood", "topic": "c",
                   "partition": 100 + rng.randrange(NOISE_PARTITIONS), "seq": i, "acks": "all",
                   "send_ms": at, "done_ms": at + 5, "outcome": "failed", "latency_s": 0.005,
                   "leader": 9, "error": _garbage(rng, 2000)}  # fmt: skip
            yield (topics.canary_results, b"flood", json.dumps(doc).encode(), 0), None
        else:  # a cluster-state record with a random topic, partition or broker id
            value, reason = _hostile_cluster(rng, at)
            yield (topics.cluster_state, b"partition", value, 0), ("cluster_state", reason)


def _hostile_outcome(rng: random.Random, at: int, i: int) -> tuple[bytes, str]:
    ok: dict[str, Any] = {
        "schema": RESULT_SCHEMA_ID, "canary_id": "flood", "topic": "c", "partition": 0,
        "seq": i, "acks": "all", "send_ms": at, "done_ms": at + 5, "outcome": "ok",
        "latency_s": 0.005, "leader": 9,
    }  # fmt: skip
    kind = rng.randrange(4)
    if kind == 0:
        return json.dumps({**ok, "acks": _garbage(rng, 50)}).encode(), "bad_acks"
    if kind == 1:
        bad = rng.choice([-rng.randrange(1, 10**9), rng.randrange(2**31, 2**62)])
        return json.dumps({**ok, "partition": bad}).encode(), "bad_partition"
    if kind == 2:
        bad = rng.choice([-rng.randrange(1, 10**9), rng.randrange(2**31, 2**62)])
        return json.dumps({**ok, "leader": bad}).encode(), "bad_broker_id"
    return json.dumps({**ok, "canary_id": _garbage(rng, 3000) + "x" * 257}).encode(), "too_long"


def _hostile_cluster(rng: random.Random, at: int) -> tuple[bytes, str]:
    ok: dict[str, Any] = {
        "schema": CLUSTER_STATE_SCHEMA_ID, "kind": "partition", "snapshot_ms": at,
        "topic": "orders", "partition": 0, "leader": 1, "leader_epoch": 3,
        "replicas": [1, 2, 3], "isr": [1, 2, 3], "min_isr": 2,
    }  # fmt: skip
    kind = rng.randrange(4)
    if kind == 0:
        topic = rng.choice([_garbage(rng, 300), "t" * rng.randrange(250, 5000), ".", ".."])
        return json.dumps({**ok, "topic": topic}).encode(), "bad_topic"
    if kind == 1:
        return json.dumps({**ok, "partition": -rng.randrange(1, 10**6)}).encode(), "bad_partition"
    if kind == 2:
        bad = rng.choice([-rng.randrange(2, 10**9), rng.randrange(2**31, 2**62)])
        return json.dumps({**ok, "leader": bad}).encode(), "bad_broker_id"
    bad = rng.choice([-1, rng.randrange(2**31, 2**62)])
    return json.dumps({**ok, "replicas": [1, 2, bad]}).encode(), "bad_broker_id"


def rss_kb(pid: int) -> int:
    """Resident memory of process ``pid`` (kB, /proc)."""
    for text in Path(f"/proc/{pid}/status").read_text().splitlines():
        if text.startswith("VmRSS:"):
            return int(text.split()[1])
    return 0


def jvm_pid(spark: Any) -> int | None:
    """The pid of the session's JVM (launched by PySpark), if this process started it."""
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    return None if proc is None else int(proc.pid)


@dataclasses.dataclass
class FloodRun:
    signals: dict[str, float]
    rejected: dict[tuple[str, str], int]
    entries: int
    series: dict[str, int]
    series_dropped: dict[str, int]
    alerts_dropped: dict[str, int]
    active: set[tuple[str, tuple[tuple[str, str], ...]]]
    pages: list[list[tuple[str, str]]]
    """Per notification that told of new firing alerts: its firing alerts' (name, broker)."""
    state_bytes: int
    restarts: int
    rss_kb: dict[str, int]
    error_classes: set[str]
    produce_s: float


def _compared(signals: list[Any]) -> dict[str, float]:
    """The good brokers' series (1-3), and the cluster's but the canary's (the flood's
    failed sends count in those, by design), less the values on the clock."""
    from kafka_health.model import SOURCE_SIGNALS

    out = {}
    for s in signals:
        broker = dict(s.labels).get("broker_id")
        if broker not in (None, *GOOD_BROKERS) or any(w in s.name for w in SIGNALS_ON_THE_CLOCK):
            continue
        if broker is None and s.name in SOURCE_SIGNALS["canary"]:
            continue
        out[f"{s.name}{dict(s.labels)}"] = float(s.value)
    return out


def flood_run(
    spark: Any, config: MonitorConfig, good: list[Record],
    noise: Iterator[tuple[Record, Any]] | None, timeout_s: float, settle_s: float = 4.0,
) -> tuple[FloodRun, Counter[tuple[str, str]], int]:  # fmt: skip
    """The job with the real alert service (pages over HTTP to a receiver) on the good
    timeline, then, once it is folded, ``noise``; its figures when all is counted."""
    import orjson

    from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver
    from kafka_health.job.app import QUERY, MonitorJob
    from kafka_health.job.sinks import build_sinks

    receiver = ReceiverState()
    expected: Counter[tuple[str, str]] = Counter()
    with webhook_receiver(receiver) as url:
        alerting = dataclasses.replace(
            config.alerting,
            rules_file=str(RULES_FILE),
            state_dir=str(Path(config.spark.checkpoint_dir).parent / "alerting"),
            receivers=[ReceiverConfig(name="pager", url=f"{url}/pager", timeout_s=5.0)],
            exporter=ExporterConfig(port=None, max_series_per_signal=FLOOD_CAP),
        )
        config = dataclasses.replace(config, alerting=alerting)
        logs, _ = produce(config, ((r, None) for r in good), spark)
        job = MonitorJob(spark, config)
        sinks = build_sinks(config, job)
        job.sinks.extend(sinks)
        service = sinks[0]
        stop = threading.Event()
        runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
        for sink in sinks:
            sink.start()
        runner.start()
        jvm = jvm_pid(spark)
        rss: dict[str, int] = {}
        try:
            _wait_counted(job, logs, timeout_s, runner)
            rss["driver_before_kb"] = rss_kb(os.getpid())
            if jvm is not None:
                rss["jvm_before_kb"] = rss_kb(jvm)
            produce_began = time.monotonic()
            if noise is not None:
                more, expected = produce(config, noise, spark)
                logs += more
            produce_s = round(time.monotonic() - produce_began, 1)
            _wait_counted(job, logs, timeout_s, runner)
            time.sleep(settle_s)  # the last publish, evaluation and pages
            rss["driver_after_kb"] = rss_kb(os.getpid())
            if jvm is not None:
                rss["jvm_after_kb"] = rss_kb(jvm)
            signals = job.board.signals()
            store = service.store  # type: ignore[attr-defined]
            engine = service.engine  # type: ignore[attr-defined]
            names = {s.name for s in store.signals()}
            run = FloodRun(
                signals=_compared(signals),
                rejected=job.rejected_counts.totals(),
                entries=sum(job.parse_counts.totals().values()),
                series={n: store.count(n) for n in sorted(names)},
                series_dropped=store.dropped(),
                alerts_dropped=engine.dropped(),
                active={
                    (a.rule, tuple(sorted((k, v) for k, v in a.labels.items())))
                    for a in engine.active()
                },
                pages=[],
                state_bytes=len(orjson.dumps(job.board.state())),
                restarts=job.health.query(QUERY).restarts_total,
                rss_kb=rss,
                error_classes={
                    s.label("error_class") for s in signals if s.name == "canary_send_failures"
                },
                produce_s=produce_s,
            )
        finally:
            stop.set()
            runner.join(timeout=120)
            for sink in reversed(sinks):
                sink.stop()
        for body in receiver.bodies("/pager"):
            firing = [(a["labels"]["alertname"], a["labels"].get("broker_id", ""))
                      for a in body.get("alerts", []) if a.get("status") == "firing"]  # fmt: skip
            if body.get("status") == "firing" and firing:
                run.pages.append(firing)
    return run, expected, logs


def _wait_counted(
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


def flood(
    bootstrap: list[str], records: int, seed: int, tmp: Path, spark: Any = None
) -> dict[str, Any]:
    """A good timeline alone, then the same among ``records`` records with random broker
    ids, topics and error strings; the figures and the checks' verdicts."""
    from kafka_health.job.own_records import ERROR_CLASSES, OTHER_ERROR

    clean_config, flood_config, spark = two_runs(
        bootstrap, tmp, f"flood-clean-{seed}", f"flood-{seed}", spark
    )
    now_ms = int(time.time() * 1000)
    clean, _, _ = flood_run(spark, clean_config, good_records(clean_config.topics, now_ms, seed),
                            None, 300)  # fmt: skip
    began = time.monotonic()
    noisy, expected, logs = flood_run(
        spark, flood_config, good_records(flood_config.topics, now_ms, seed),
        flood_records(flood_config.topics, records, seed, now_ms), 600,
    )  # fmt: skip
    seconds = time.monotonic() - began
    differ = {
        k: (clean.signals.get(k), noisy.signals.get(k))
        for k in set(clean.signals) | set(noisy.signals)
        if clean.signals.get(k) != noisy.signals.get(k)
    }

    def unexplained(run: FloodRun) -> list[list[tuple[str, str]]]:
        known = {(rule, dict(lbl).get("broker_id", "")) for rule, lbl in clean.active}
        return [
            page
            for page in run.pages
            if any(
                a not in known
                and a != FORGED_FAILING
                and a[0] not in (*JOB_HEALTH_RULES, REJECTION_RULE)
                for a in page
            )
        ]

    def rejection_pages(run: FloodRun) -> int:
        return sum(any(name == REJECTION_RULE for name, _ in page) for page in run.pages)

    checks = {
        "no_restart": noisy.restarts == 0,
        "every_log_record_counted": noisy.entries == logs,
        "rejected_by_reason_as_built": noisy.rejected == dict(expected),
        "series_within_the_cap": max(noisy.series.values()) <= FLOOD_CAP,
        "the_cap_was_met_and_counted": noisy.series_dropped.get("log_stream_age_seconds", 0) > 0,
        "one_page_says_input_is_rejected": rejection_pages(noisy) == 1
        and rejection_pages(clean) == 0,
        "no_page_for_anything_the_flood_made_up": not unexplained(noisy),
        "error_classes_from_the_vocabulary": noisy.error_classes <= ERROR_CLASSES | {OTHER_ERROR}
        and OTHER_ERROR in noisy.error_classes,
        "detector_state_bounded": noisy.state_bytes
        <= clean.state_bytes + STATE_BYTES_PER_LEGAL_RECORD * (records - sum(expected.values())),
        "good_signals_unchanged": not differ and len(clean.signals) >= 10,
    }
    return {
        "records": records,
        "good_records": len(good_records(flood_config.topics, now_ms, seed)),
        "log_records": logs,
        "flood_run_s": round(seconds, 1),
        "rejected": {f"{s}/{r}": n for (s, r), n in sorted(noisy.rejected.items())},
        "expected_rejected": {f"{s}/{r}": n for (s, r), n in sorted(expected.items())},
        "produce_s": noisy.produce_s,
        "unexplained_pages": unexplained(noisy),
        "rejected_total": sum(noisy.rejected.values()),
        "series_max_per_signal": max(noisy.series.values()),
        "series_total": sum(noisy.series.values()),
        "series_total_clean": sum(clean.series.values()),
        "series_cap": FLOOD_CAP,
        "series_dropped": noisy.series_dropped,
        "alerts_dropped": noisy.alerts_dropped,
        "pages": [sorted(set(p)) for p in noisy.pages],
        "pages_clean": [sorted(set(p)) for p in clean.pages],
        "rejection_pages": rejection_pages(noisy),
        "detector_state_bytes": {"clean": clean.state_bytes, "flood": noisy.state_bytes},
        "rss_kb": {"clean": clean.rss_kb, "flood": noisy.rss_kb},
        "signals_compared": len(clean.signals),
        "signals_that_differ": {k: list(v) for k, v in sorted(differ.items())},
        "checks": checks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--flood", action="store_true", help="the label flood (issue 55)")
    args = parser.parse_args()

    from kafka_health.dev.devcluster import ClusterSpec, LocalCluster

    run = flood if args.flood else fuzz
    records = args.records or (100_000 if args.flood else 1_000_000)
    with tempfile.TemporaryDirectory(prefix="fuzz-job-") as tmp:
        cluster = LocalCluster.create(ClusterSpec(dir=Path(tmp) / "kafka", brokers=1)).up()
        try:
            result = run(cluster.bootstrap_servers, records, args.seed, Path(tmp))
        finally:
            cluster.down()
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    sys.exit(0 if all(result["checks"].values()) else 1)


if __name__ == "__main__":
    main()
