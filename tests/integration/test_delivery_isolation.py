"""Delivery isolated per receiver, on real HTTP servers with the service's own threads and
clock: a receiver that drips its answer and one that answers 500 hold back no page to a
healthy one, and get theirs once they recover; a request has one deadline for the whole
exchange, whatever pace the answer's bytes come at."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from tests.support.waiting import wait_for

from kafka_health.alerting.notification import Notification
from kafka_health.alerting.rule_config import load_rules
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.webhook import DeliveryResult, HttpTransport
from kafka_health.config import AlertingConfig, ExporterConfig, ReceiverConfig
from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver
from kafka_health.model import Signal, labels

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "conf" / "alerts.yaml"
TIMEOUT_S = 2.0
NOTE = Notification("pager", "{}", {}, "firing", "first", "key-1", [])


@pytest.mark.parametrize("mode", ["drip", "drip-body"])
def test_an_answer_dripped_within_each_timeout_still_ends_at_the_deadline(mode: str) -> None:
    """Every byte of the answer (its status line, or its body) comes well within
    ``timeout_s`` of the one before, the whole answer not: the attempt is a timeout, not the
    200 the answer would end with (urllib's per-read timeout waited it out)."""
    state = ReceiverState(drip_s=0.25)  # 100 bytes or so: 25 s whole
    state.mode = lambda: mode
    with webhook_receiver(state) as url:
        receiver = ReceiverConfig(name="pager", url=f"{url}/pager", timeout_s=1.0)
        result = HttpTransport().send(receiver, NOTE)
    assert (result.ok, result.retryable, result.reason) == (False, True, "timeout")
    assert [r.path for r in state.requests] == ["/pager"], "the request did reach it"


@dataclass
class Attempts:
    """HttpTransport, recording when each receiver's attempts ended and how."""

    http: HttpTransport = field(default_factory=HttpTransport)
    ended: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult:
        result = self.http.send(receiver, notification)
        with self.lock:
            self.ended.setdefault(receiver.name, []).append((time.monotonic(), result.reason))
        return result

    def of(self, name: str) -> list[tuple[float, str]]:
        with self.lock:
            return list(self.ended.get(name, []))


def service(tmp_path: Path, receivers: list[ReceiverConfig], transport: Attempts) -> AlertService:
    config = AlertingConfig(
        rules_file=str(RULES), state_dir=str(tmp_path / "state"), receivers=receivers,
        exporter=ExporterConfig(port=None), tick_s=0.1, group_wait_s=0, root_group_wait_s=0,
    )  # fmt: skip
    return AlertService(config, load_rules(RULES), cluster="it", transport=transport,
                        registry=CollectorRegistry())  # fmt: skip


def receiver(name: str, url: str) -> ReceiverConfig:
    return ReceiverConfig(
        name=name, url=f"{url}/{name}", timeout_s=TIMEOUT_S, backoff_initial_s=0.2,
        backoff_max_s=1.0,
    )  # fmt: skip


@dataclass
class Run:
    """One service run: the first page's seconds after the signal, per receiver."""

    svc: AlertService
    transport: Attempts
    began: float = 0.0

    def fire(self) -> None:
        self.svc.start()
        self.began = time.monotonic()
        self.svc.submit(
            [Signal("processor_uncaught_exceptions", labels(broker_id=1), 1.0, time.time())]
        )

    def first_page_s(self, state: ReceiverState) -> float:
        def arrived() -> float | None:
            with state.lock:
                return min((r.at for r in state.processed.values()), default=None)

        return wait_for(arrived, 60, "the first page", poll_s=0.01) - self.began


def failed_twice(transport: Attempts, name: str, reason: str) -> bool:
    return [r for _, r in transport.of(name)].count(reason) >= 2


def acked(state: ReceiverState) -> bool:
    with state.lock:
        return bool(state.acked)


@pytest.fixture
def servers() -> Iterator[dict[str, tuple[ReceiverState, str]]]:
    with ExitStack() as stack:
        found = {}
        for name in ("dripping", "failing", "healthy"):
            state = ReceiverState(drip_s=0.5)
            found[name] = (state, stack.enter_context(webhook_receiver(state)))
        yield found


def test_a_dripping_and_a_failing_receiver_hold_back_no_page(
    tmp_path: Path, servers: dict[str, tuple[ReceiverState, str]]
) -> None:
    (dripping, drip_url), (failing, fail_url), (healthy, ok_url) = servers.values()
    # The healthy receiver alone: its first page's time after the signal.
    solo = Attempts()
    alone = Run(service(tmp_path / "alone", [receiver("healthy", ok_url)], solo), solo)
    try:
        alone.fire()
        alone_s = alone.first_page_s(healthy)
    finally:
        alone.svc.stop()
    healthy.processed.clear()

    recovered = threading.Event()
    dripping.mode = lambda: "ok" if recovered.is_set() else "drip"
    failing.mode = lambda: "ok" if recovered.is_set() else "500"
    transport = Attempts()
    three = Run(
        service(
            tmp_path / "three",
            [receiver("dripping", drip_url), receiver("failing", fail_url),
             receiver("healthy", ok_url)],  # listed, and their pages made, first
            transport,
        ),
        transport,
    )  # fmt: skip
    try:
        three.fire()
        behind_s = three.first_page_s(healthy)
        page_at = three.began + behind_s
        print(f"healthy receiver's first page: alone {alone_s:.3f} s, "
              f"beside a dripping and a failing receiver {behind_s:.3f} s")  # fmt: skip
        # Not behind the dripping receiver's attempt: that ends at its deadline, after.
        first_drip_end, reason = wait_for(lambda: transport.of("dripping"), 30, "drip's end")[0]
        assert reason == "timeout" and page_at < first_drip_end
        assert behind_s <= alone_s + TIMEOUT_S / 2, "as soon as alone, give or take scheduling"
        for name, why in (("dripping", "timeout"), ("failing", "server_error")):
            wait_for(partial(failed_twice, transport, name, why), 60, f"{name} retried")
        assert dripping.processed == {} and failing.processed == {}
        recovered.set()
        for state in (dripping, failing):
            wait_for(partial(acked, state), 60, "the page after recovery", poll_s=0.05)
        time.sleep(1.0)  # anything more would be a duplicate
    finally:
        three.svc.stop()
    for state in (dripping, failing, healthy):
        bodies = state.bodies()
        assert [b["status"] for b in bodies] == ["firing"], "one page each, once"
        assert bodies[0]["alerts"][0]["labels"]["alertname"] == "ProcessorUncaughtException"
        assert state.resent_after_ack == []
    assert {r.path for r in healthy.requests} == {"/healthy"}
    count = three.svc.registry.get_sample_value
    assert count("kafka_health_notifications_total", {"receiver": "healthy"}) == 1
    assert count("kafka_health_notifications_failed_total",
                 {"receiver": "healthy", "reason": "timeout"}) == 0  # fmt: skip
