"""Alert delivery against a real HTTP receiver (http.server in a thread on 127.0.0.1).

The in-process tests drive the service with a hand-advanced clock (backoff and windows are
simulated time; HTTP, timeouts, retries and the outbox are real). The kill -9 test runs
``kafka-health alerts run`` in a subprocess fed signals on stdin, with short windows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry
from tests.support.waiting import wait_for

from kafka_health.alerting.notification import Notification
from kafka_health.alerting.rule_config import load_rules
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.webhook import HttpTransport
from kafka_health.config import AlertingConfig, ExporterConfig, ReceiverConfig, Secret
from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver
from kafka_health.model import Signal, labels

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "conf" / "alerts.yaml"
T0 = 1_700_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def sig(name: str, value: float, t: float, **lbl: Any) -> Signal:
    return Signal(name, labels(**lbl), float(value), T0 + t)


def service(tmp_path: Path, receivers: list[ReceiverConfig], clock: Clock) -> AlertService:
    config = AlertingConfig(
        rules_file=str(RULES),
        state_dir=str(tmp_path / "state"),
        receivers=receivers,
        exporter=ExporterConfig(port=None),
    )
    svc = AlertService(
        config,
        load_rules(RULES),
        cluster="it",
        clock=clock,
        transport=HttpTransport(clock),
        registry=CollectorRegistry(),
    )
    svc.open()
    return svc


def drive(
    svc: AlertService, clock: Clock, end: float, signals: Callable[[float], Iterable[Signal]]
) -> list[Notification]:
    """Tick once a simulated second up to ``end``; return what was enqueued."""
    enqueued: list[Notification] = []
    t = clock.now - T0
    while t <= end:
        clock.now = T0 + t
        svc.submit(signals(t))
        enqueued += svc.step()
        svc.deliver()
        t += 1
    return enqueued


def test_each_format_is_delivered_and_routed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KH_IT_TOKEN", "t0ken")
    monkeypatch.setenv("KH_IT_HMAC", "s3cret")
    monkeypatch.setenv("KH_IT_PD", "pd-routing-key")
    state = ReceiverState(hmac_secret="s3cret")
    with webhook_receiver(state) as url:
        receivers = [
            ReceiverConfig(
                name="am", url=f"{url}/am", matchers=['broker_id="3"'],
                bearer_token=Secret(env="KH_IT_TOKEN"), hmac_secret=Secret(env="KH_IT_HMAC"),
            ),
            ReceiverConfig(
                name="pd", url=f"{url}/pd", format="pagerduty", severities=["critical"],
                routing_key=Secret(env="KH_IT_PD"), hmac_secret=Secret(env="KH_IT_HMAC"),
            ),
            ReceiverConfig(name="slack", url=f"{url}/slack", format="slack",
                           hmac_secret=Secret(env="KH_IT_HMAC")),
        ]  # fmt: skip
        clock = Clock()
        svc = service(tmp_path, receivers, clock)

        def incident(t: float) -> list[Signal]:
            return [
                sig("processor_uncaught_exceptions", 1 if t < 20 else 0, t, broker_id=3),
                sig("full_gc_count", 1 if t == 0 else 0, t, broker_id=1),
            ]

        drive(svc, clock, 700, incident)

    assert state.bad_signatures == 0
    am, pd, slack = state.bodies("/am"), state.bodies("/pd"), state.bodies("/slack")
    assert [(b["status"], b["groupLabels"]) for b in am] == [
        ("firing", {"broker_id": "3"}),
        ("resolved", {"broker_id": "3"}),
    ], "the am receiver only takes broker 3"
    assert am[0]["version"] == "4" and am[0]["alerts"][0]["labels"]["cluster"] == "it"
    assert [e["event_action"] for e in pd] == ["trigger", "resolve"], "critical only"
    assert pd[0]["dedup_key"] == pd[1]["dedup_key"] and pd[0]["routing_key"] == "pd-routing-key"
    assert pd[0]["payload"]["severity"] == "critical"
    # "[incident <id>] [FIRING:1] ...": one incident tag per broker, on its firing and resolved
    tagged = sorted((b["text"].split("] ")[0], b["text"].split("] ")[1].split("]")[0])
                    for b in slack)  # fmt: skip
    assert sorted(status for _, status in tagged) == [
        "[FIRING:1", "[FIRING:1", "[RESOLVED", "[RESOLVED",
    ], "slack takes every severity: both brokers"  # fmt: skip
    assert len({tag for tag, _ in tagged}) == 2, "one incident tag per broker"
    first = next(r for r in state.requests if r.path == "/am")
    assert first.headers["authorization"] == "Bearer t0ken"
    assert first.headers["content-type"] == "application/json"


def test_outage_then_recovery_delivers_everything_once(tmp_path: Path) -> None:
    """The receiver answers 500 for a minute, then hangs (timeouts) for two, then recovers:
    every notification arrives, in order per group, each processed once by idempotency key."""
    clock = Clock()
    state = ReceiverState(hang_s=3.0)

    def outage() -> str:
        t = clock.now - T0
        return "500" if t < 60 else "hang" if t < 180 else "ok"

    state.mode = outage
    with webhook_receiver(state) as url:
        receiver = ReceiverConfig(
            name="pager", url=url, timeout_s=0.25, backoff_initial_s=1, backoff_max_s=20
        )
        svc = service(tmp_path, [receiver], clock)

        def incidents(t: float) -> list[Signal]:
            return [
                sig("under_min_isr_partitions", 2 if t <= 50 else 0, t, broker_id=1),
                sig("full_gc_count", 1 if 40 <= t <= 45 else 0, t, broker_id=2),
                sig("processor_uncaught_exceptions", 1 if 150 <= t <= 155 else 0, t, broker_id=3),
            ]

        enqueued = drive(svc, clock, 600, incidents)
        enqueued += drive(svc, clock, 1200, lambda t: [])

    expected = {n.idempotency_key: n for n in enqueued}
    assert len(expected) == len(enqueued) == 6, [(n.group_key, n.status) for n in enqueued]
    assert set(state.processed) == set(expected), "every notification delivered"
    assert state.resent_after_ack == [], "nothing is sent again once acknowledged"
    per_key = [r.key for r in state.requests]
    assert max(per_key.count(k) for k in expected) > 1, "the outage made it retry"
    order = [r.key for r in sorted(state.processed.values(), key=state.requests.index)]
    for group in {n.group_key for n in enqueued}:
        sent = [k for k in order if expected[k].group_key == group]
        assert [expected[k].status for k in sent] == ["firing", "resolved"], group
    failed = svc.registry.get_sample_value
    for reason in ("server_error", "timeout"):
        assert failed(
            "kafka_health_notifications_failed_total", {"receiver": "pager", "reason": reason}
        )
    assert failed("kafka_health_notifications_total", {"receiver": "pager"}) == 6
    assert svc.outbox is not None and svc.outbox.pending() == []


# --------------------------------------------------------------------------------------------
# kill -9 of a process running the alert service


def _config_file(tmp_path: Path, url: str) -> Path:
    rules = yaml.safe_load(RULES.read_text())
    rules["rules"]["UnderMinIsr"].update(for_s=0, keep_firing_for_s=1)
    rules_file = tmp_path / "alerts.yaml"
    rules_file.write_text(yaml.safe_dump(rules))
    config = {
        "cluster_name": "it",
        "alerting": {
            "rules_file": str(rules_file),
            "state_dir": str(tmp_path / "state"),
            "tick_s": 0.1,
            "group_wait_s": 0,
            "group_interval_s": 0.2,
            "exporter": {"port": None},
            "receivers": [
                {
                    "name": "pager",
                    "url": url,
                    "timeout_s": 1,
                    "backoff_initial_s": 0.1,
                    "backoff_max_s": 0.5,
                }
            ],
        },
    }
    path = tmp_path / "monitor.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _start(config: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafka_health.cli", "alerts", "--config", str(config), "run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "alert service running"
    return proc


def _send(proc: subprocess.Popen[str], value: float) -> None:
    assert proc.stdin is not None
    line = {"name": "under_min_isr_partitions", "labels": {"broker_id": "1"}, "value": value,
            "at": time.time()}  # fmt: skip
    proc.stdin.write(json.dumps(line) + "\n")
    proc.stdin.flush()


def _recorded_delivered(tmp_path: Path, state: ReceiverState) -> bool:
    """Whether the alert service's outbox recorded every key the receiver accepted."""
    text = "".join(p.read_text() for p in (tmp_path / "state").rglob("delivered.jsonl"))
    with state.lock:
        acked = set(state.acked)
    return bool(acked) and all(key in text for key in acked)


def _statuses(state: ReceiverState) -> list[str]:
    return [b["status"] for b in state.bodies()]


@pytest.mark.parametrize("delivered_before_kill", [True, False], ids=["paged", "in-outbox"])
def test_kill_9_while_firing_then_restart(tmp_path: Path, delivered_before_kill: bool) -> None:
    """kill -9 with the page delivered (or still in the outbox, the receiver failing): after a
    restart there is no second trigger, and the resolve arrives when the condition clears."""
    state = ReceiverState()
    failing = not delivered_before_kill
    state.mode = lambda: "500" if failing else "ok"
    with webhook_receiver(state) as url:
        config = _config_file(tmp_path, url)
        first = _start(config)
        try:
            _send(first, 2)
            wait_for(lambda: len(state.requests) >= 1, 60, "the first attempt", poll_s=0.05)
            if delivered_before_kill:
                wait_for(lambda: _statuses(state) == ["firing"], 60, "the page", poll_s=0.05)
                # Killed between the receiver's 200 and the outbox's record of it, the service
                # sends the page again under the same key after the restart (at least once;
                # the key dedups it). This case is the page recorded as sent.
                wait_for(lambda: _recorded_delivered(tmp_path, state), 60, "the record")
        finally:
            first.kill()  # SIGKILL: nothing runs on the way out
            first.wait()
        failing = False
        second = _start(config)
        try:
            _send(second, 2)  # still firing
            _send(second, 0)  # cleared
            wait_for(lambda: "resolved" in _statuses(state), 60, "the resolve", poll_s=0.05)
        finally:
            second.terminate()
            second.wait(30)
    assert _statuses(state) == ["firing", "resolved"]
    assert state.resent_after_ack == []


# --------------------------------------------------------------------------------------------
# The same outage in real time: the service's own threads and clock


def test_two_minute_outage_in_real_time_delivers_everything_once(tmp_path: Path) -> None:
    """500s for a minute, then a minute of requests that hang past the client's timeout, in
    real time with the service's evaluation and delivery threads: every notification made
    during the outage is delivered after it, once per idempotency key, in order per group."""
    rules = yaml.safe_load(RULES.read_text())
    for name, keep in (("UnderMinIsr", 10), ("FullGC", 10), ("ProcessorUncaughtException", 10)):
        rules["rules"][name]["keep_firing_for_s"] = keep
    rules_file = tmp_path / "alerts.yaml"
    rules_file.write_text(yaml.safe_dump(rules))
    began = time.monotonic()

    def elapsed() -> float:
        return time.monotonic() - began

    state = ReceiverState(hang_s=3.0)
    outage_over = threading.Event()  # set by the test once it saw nothing got through
    state.mode = lambda: "500" if elapsed() < 60 else "ok" if outage_over.is_set() else "hang"
    with webhook_receiver(state) as url:
        receiver = ReceiverConfig(
            name="pager", url=url, timeout_s=1.0, backoff_initial_s=1, backoff_max_s=8
        )
        config = AlertingConfig(
            rules_file=str(rules_file),
            state_dir=str(tmp_path / "state"),
            receivers=[receiver],
            exporter=ExporterConfig(port=None),
            tick_s=0.5,
            group_wait_s=2,
            group_interval_s=2,
        )
        svc = AlertService(config, load_rules(rules_file), cluster="it",
                           registry=CollectorRegistry())  # fmt: skip
        svc.start()
        try:
            while elapsed() < 120:
                t = elapsed()
                now = time.time()
                svc.submit(
                    [
                        Signal("under_min_isr_partitions", labels(broker_id=1),
                               2.0 if t < 30 else 0.0, now),
                        Signal("full_gc_count", labels(broker_id=2),
                               1.0 if 40 <= t < 45 else 0.0, now),
                        Signal("processor_uncaught_exceptions", labels(broker_id=3),
                               1.0 if 85 <= t < 90 else 0.0, now),
                    ]
                )  # fmt: skip
                time.sleep(1.0)
            assert state.acked == set(), "no answer got through the outage"
            outage_over.set()
            wait_for(
                lambda: len(state.acked) >= 6, 60, "every notification acknowledged", poll_s=0.05
            )
            time.sleep(3)  # anything more would be a duplicate
        finally:
            svc.stop()

    attempted = {r.key for r in state.requests}
    assert set(state.processed) == attempted == state.acked and len(attempted) == 6
    assert state.resent_after_ack == [], "nothing is sent again once acknowledged"
    per_group: dict[str, list[str]] = {}
    for r in sorted(state.processed.values(), key=state.requests.index):
        per_group.setdefault(r.body["groupKey"], []).append(r.body["status"])
    assert sorted(per_group.values()) == [["firing", "resolved"]] * 3, per_group
    failed = svc.registry.get_sample_value
    for reason in ("server_error", "timeout"):
        assert failed(
            "kafka_health_notifications_failed_total", {"receiver": "pager", "reason": reason}
        ), reason
