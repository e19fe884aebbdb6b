"""The job's write-path signals on real Kafka and real Spark, from known canary records."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from kafka_health.canary.records import Probe, ProbeOutcome
from kafka_health.job.app import MonitorJob
from kafka_health.model import labels
from tests.support.job_support import by_name, create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]

CANARY = "kafka-health-canary"


def outcome(topic: str, partition: int, seq: int, send_ms: int, **kw: Any) -> ProbeOutcome:
    fields: dict[str, Any] = {
        "canary_id": CANARY, "topic": topic, "partition": partition, "seq": seq, "acks": "all",
        "send_ms": send_ms, "done_ms": send_ms + 5, "outcome": "ok", "latency_s": 0.005,
        "leader": 1, "offset": seq, "log_append_ms": send_ms + 2,
    }  # fmt: skip
    fields.update(kw)
    return ProbeOutcome(**fields)


def slot_start(slide_s: float = 10.0) -> int:
    """The start (ms) of the current slide slot, so test records share their windows."""
    slide_ms = int(slide_s * 1000)
    return (int(time.time() * 1000) // slide_ms) * slide_ms


def test_known_latencies_give_exact_counts_and_percentiles(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path)
    create_topics(config)
    base = slot_start()
    records = []
    # 1,000 acknowledgements with latencies 1 ms .. 1000 ms; partitions 0-1 led by broker 1,
    # 2-3 by broker 2; append delay = latency / 2.
    for i in range(1000):
        latency_s = (i + 1) / 1000
        partition = i % 4
        o = outcome(
            config.topics.canary, partition, i, base + i * 5, latency_s=latency_s,
            leader=1 if partition < 2 else 2, log_append_ms=base + i * 5 + (i + 1) // 2,
        )  # fmt: skip
        records.append((o.key, o.encode(), partition))
    # 10 failures on broker 2.
    for j in range(10):
        o = outcome(
            config.topics.canary, 3, 2000 + j, base + 6000 + j, outcome="failed",
            error="NotEnoughReplicas", leader=2, offset=None, log_append_ms=None, latency_s=0.03,
        )  # fmt: skip
        records.append((o.key, o.encode(), 3))
    produce(config, config.topics.canary_results, records)

    job = MonitorJob(spark, config)
    job.run_available_now()
    signals = job.board.signals()

    sends = by_name(signals, "canary_sends")
    assert sends[labels()].value == 1010
    assert sends[labels(broker_id=1)].value == 500
    assert sends[labels(broker_id=2)].value == 510
    failures = by_name(signals, "canary_send_failures")
    assert failures[labels(broker_id=2, error_class="NotEnoughReplicas")].value == 10
    assert labels(broker_id=1, error_class="NotEnoughReplicas") not in failures
    availability = by_name(signals, "canary_availability_ratio")
    assert availability[labels(broker_id=1)].value == 1.0
    assert availability[labels(broker_id=2)].value == pytest.approx(500 / 510)

    latency = by_name(signals, "canary_ack_latency_seconds")
    # percentile_approx with accuracy 10,000 over 1,000 values is exact to one rank (1 ms).
    for q, expected in (("0.5", 0.5), ("0.95", 0.95), ("0.99", 0.99)):
        assert latency[labels(quantile=q)].value == pytest.approx(expected, abs=0.0011), q
    assert latency[labels(quantile="max")].value == pytest.approx(1.0)
    # Broker 1 has partitions 0 and 1: latencies of i % 4 in {0, 1}.
    broker_1 = sorted((i + 1) / 1000 for i in range(1000) if i % 4 < 2)
    assert latency[labels(broker_id=1, quantile="max")].value == pytest.approx(broker_1[-1])
    assert latency[labels(broker_id=1, partition=0, quantile="0.5")].value == pytest.approx(
        0.497, abs=0.0041
    )
    append = by_name(signals, "canary_append_delay_seconds")
    assert append[labels(quantile="0.5")].value == pytest.approx(0.25, abs=0.0011)


@pytest.mark.parametrize("layout", ["one-cluster", "transport"])
def test_missing_and_repeated_sequence_numbers_give_lost_and_duplicate_writes(
    kafka_cluster: Any, spark: Any, tmp_path: Path, layout: str
) -> None:
    """With a transport, the canary topic and the results come from two Kafka sources,
    unioned (here both on the test cluster: the union is what is checked)."""
    config = job_config(kafka_cluster, tmp_path, loss_grace_s=5.0)
    if layout == "transport":
        config = config.with_transport(config.kafka.bootstrap_servers)
    create_topics(config)
    base = slot_start()
    results, canary = [], []
    for seq in range(1, 101):
        send_ms = base + seq * 10
        o = outcome(config.topics.canary, 0, seq, send_ms)
        results.append((o.key, o.encode(), 0))
        probe = Probe(CANARY, 0, seq, "all", send_ms).encode()
        if seq not in (37, 64):
            canary.append((None, probe, 0))
        if seq == 50:
            canary.append((None, probe, 0))  # written twice: a duplicate
    # A later probe moves the watermark past the grace period, so the verdicts are final.
    late_ms = base + 60_000
    o = outcome(config.topics.canary, 0, 1000, late_ms)
    results.append((o.key, o.encode(), 0))
    canary.append((None, Probe(CANARY, 0, 1000, "all", late_ms).encode(), 0))
    produce(config, config.topics.canary_results, results)
    produce(config, config.topics.canary, canary)

    job = MonitorJob(spark, config)
    job.run_available_now()
    signals = job.board.signals()

    lost = by_name(signals, "canary_lost_writes")
    leader_1 = labels(partition=0, acks="all", broker_id="1")  # the leader that acknowledged
    assert lost[leader_1].value == 2
    assert lost[leader_1].details["seqs"] == [37, 64]
    duplicates = by_name(signals, "canary_duplicate_writes")
    assert duplicates[leader_1].value == 1
    assert duplicates[leader_1].details["seqs"] == [50]
    assert job.board.lost_writes() == [(0, "all", 37), (0, "all", 64)]

    # A restart resumes the query and the detectors' state: nothing new, nothing twice.
    again = MonitorJob(spark, config)
    again.start()
    assert again.board.batch_id == job.board.batch_id
    again.run_available_now()
    assert again.board.lost_writes() == [(0, "all", 37), (0, "all", 64)]


def test_a_silent_partition_is_reported_failing_with_no_new_input(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path, canary_silence_s=3.0, trigger_interval_s=1.0)
    create_topics(config)
    now_ms = int(time.time() * 1000)
    produce(
        config,
        config.topics.canary_results,
        [
            (o.key, o.encode(), o.partition)
            for o in (
                outcome(config.topics.canary, 0, 1, now_ms, leader=1),
                outcome(config.topics.canary, 1, 1, now_ms, leader=2),
            )
        ],
    )
    job = MonitorJob(spark, config)
    job.run_available_now()  # the query has stopped: only the driver's clock moves on
    batches = job.board.batch_id
    deadline = time.monotonic() + 60
    silent: dict[Any, Any] = {}
    while time.monotonic() < deadline:
        silent = by_name(job.board.signals(), "canary_partition_silent_seconds")
        if len(silent) == 2 and all(s.value > 0 for s in silent.values()):
            break
        time.sleep(0.2)
    assert set(silent) == {labels(broker_id=1, partition=0), labels(broker_id=2, partition=1)}
    assert all(s.value >= 3.0 for s in silent.values()), "silent for at least the threshold"
    assert job.board.batch_id == batches and not spark.streams.active, "no batch since"
