"""The fault runner's receiver and its handling of a page that never comes, over real HTTP
(no Kafka: the scenarios here touch no broker)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tests.support.waiting import wait_for

from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.receiver import RecordingReceiver
from kafka_health.dev.faults.runner import BenchOptions, FaultBench
from kafka_health.dev.faults.scenarios import Scenario


def post(url: str, key: str, body: dict[str, Any], timeout_s: float = 2.0) -> int:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": key},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code


NOTIFICATION = {"groupKey": "g", "status": "firing", "alerts": [{"status": "firing"}]}


def test_receiver_records_arrivals_dedups_keys_and_switches_modes() -> None:
    receiver = RecordingReceiver(hang_s=5.0).start()
    try:
        assert post(receiver.url, "k1", NOTIFICATION) == 200
        assert post(receiver.url, "k1", NOTIFICATION) == 200  # the sender re-sent after a 200
        receiver.set_mode("500")
        assert post(receiver.url, "k2", NOTIFICATION) == 500
        receiver.set_mode("hang")
        with pytest.raises((TimeoutError, urllib.error.URLError, OSError)):
            post(receiver.url, "k3", NOTIFICATION, timeout_s=0.5)
        # Under load the handler can reach the receiver after the client gave up: wait for it,
        # or switching back to "ok" would answer it.
        wait_for(lambda: receiver.held_connections == 1, 10.0, "the receiver to hold k3", 0.01)
        receiver.set_mode("ok")
        assert post(receiver.url, "k2", NOTIFICATION) == 200
    finally:
        receiver.stop()
    assert [p.idempotency_key for p in receiver.pages] == ["k1", "k2"]
    assert receiver.repeats_after_ack == ["k1"]
    # The hung request is recorded when its handler gives up, which under load can come after
    # the next request's answer: the order of the others is fixed, the hung one is not. ``stop``
    # joined its handler, so it is recorded by now.
    answered = [r.answered for r in receiver.requests]
    assert [a for a in answered if a is not None] == [200, 200, 500, 200]
    assert answered.count(None) == 1
    assert receiver.open_groups() == {"g"}


class NoCluster:
    """A cluster the test scenarios never touch."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []

    def down(self) -> None:
        pass


def bench_with_receiver(
    tmp_path: Path, receiver: RecordingReceiver
) -> tuple[FaultBench, FaultContext]:
    options = BenchOptions(scenarios=[], workdir=tmp_path, resolve_timeout_s=2.0, calm_s=0.0)
    bench = FaultBench(options, say=lambda line: None)
    bench.healthy = lambda: None  # type: ignore[method-assign]
    ctx = FaultContext(
        cluster=NoCluster(),  # type: ignore[arg-type]
        receiver=receiver, monitor=None, config_file=tmp_path / "monitor.yaml", workdir=tmp_path,
    )  # fmt: skip
    return bench, ctx


def test_a_page_that_never_comes_is_reported_missed_within_the_bound(tmp_path: Path) -> None:
    receiver = RecordingReceiver().start()
    try:
        bench, ctx = bench_with_receiver(tmp_path, receiver)
        never = Scenario("never", "nothing happens", (3,), ("NeverFires",), lambda ctx: None,
                         bound_s=3.0)  # fmt: skip
        result = bench.run_one(ctx, never)  # pytest-timeout fails it if it hangs
    finally:
        receiver.stop()
    assert result.missed and result.latency_s is None and result.error is None


def test_a_scenario_that_raises_is_an_error_and_the_next_one_runs(tmp_path: Path) -> None:
    receiver = RecordingReceiver().start()
    cleaned = threading.Event()
    try:
        bench, ctx = bench_with_receiver(tmp_path, receiver)
        bench._restore = lambda ctx: None  # type: ignore[method-assign]

        def boom(ctx: FaultContext) -> None:
            raise RuntimeError("injection failed")

        raising = Scenario("raises", "fails", (3,), ("BrokerFailed",), boom,
                           cleanup=lambda ctx: cleaned.set())  # fmt: skip
        result = bench.run_one(ctx, raising)
    finally:
        receiver.stop()
    assert result.error == "RuntimeError: injection failed"
    assert result.missed
    assert cleaned.is_set()
    assert "injection failed" in (tmp_path / "errors.log").read_text()


def test_steady_state_waits_until_every_broker_leads_a_canary_partition_again() -> None:
    """A broker back from a fault leads nothing until the preferred leader election; faulting
    it then would test a follower. (This process stands in for the three brokers.)"""
    import os
    import time
    from types import SimpleNamespace

    from kafka_health.dev.faults.monitor import Sample
    from kafka_health.dev.faults.runner import healthy_reason

    nodes = [SimpleNamespace(broker_id=b, pid=os.getpid()) for b in (1, 2, 3)]
    cluster: Any = SimpleNamespace(nodes=nodes)
    receiver: Any = SimpleNamespace(open_groups=lambda: set())
    metrics: dict[Sample, float] = {
        ("kafka_health_job_last_batch_timestamp", (("query", "monitor"),)): time.time(),
        ("kafka_health_canary_availability_ratio", ()): 1.0,
        **{("kafka_health_canary_availability_ratio", (("broker_id", b),)): 1.0 for b in "123"},
        **{
            ("kafka_health_canary_partition_silent_seconds",
             (("broker_id", leader), ("partition", str(p)))): 0.0
            for p, leader in enumerate("121")
        },
    }  # fmt: skip
    assert healthy_reason(cluster, metrics, receiver) == "brokers leading no canary partition: [3]"
    metrics[
        ("kafka_health_canary_partition_silent_seconds", (("broker_id", "3"), ("partition", "2")))
    ] = 0.0
    assert healthy_reason(cluster, metrics, receiver) is None
