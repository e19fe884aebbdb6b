"""A request that cannot even be made fails its own entry alone: counted by reason, retried
with backoff, logged without the URL's user info, path or query and without header values;
the other receivers' pages still go out (real HTTP to a real receiver, a fake clock)."""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from tests.support.alerting_harness import (
    FakeClock,
    alerting_config,
    shipped_rules,
    sig,
    start_receiver,
)

from kafka_health.alerting.notification import Notification
from kafka_health.alerting.outbox import Outbox
from kafka_health.alerting.retry import Dropped, RetryStage
from kafka_health.alerting.service import AlertService
from kafka_health.alerting.webhook import FAILURE_REASONS, DeliveryResult, HttpTransport
from kafka_health.config import ReceiverConfig, Secret

T0 = 1_700_000_000.0
TOKEN = "t0ken-S3CRET\r\nX-Injected: yes"
"""A token whose value would end the header (and inject another one)."""


def failing(h: AlertService, receiver: str, reason: str) -> float:
    value = h.registry.get_sample_value(
        "kafka_health_notifications_failed_total", {"receiver": receiver, "reason": reason}
    )
    return value or 0.0


@pytest.mark.parametrize(
    ("bad_url", "token", "origin"),
    [
        (
            "http://pager-user:pw-S3CRET@{host}/hooks/S3CRET-path?key=S3CRET-query",
            None,
            "http://{host}",
        ),
        (
            "http://127.0.0.1:S3CRET-port/hooks/S3CRET-path?key=S3CRET-query",
            None,
            "<invalid url>",
        ),  # no host:port to name (safe_url)
        ("http://{host}/hooks/S3CRET-path?key=S3CRET-query", TOKEN, "http://{host}"),
    ],
    ids=["user-info", "invalid-port", "header-value"],
)
def test_a_request_that_cannot_be_made_fails_alone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    bad_url: str,
    token: str | None,
    origin: str,
) -> None:
    monkeypatch.setenv("KH_BAD_TOKEN", TOKEN)
    state, url = start_receiver()
    host = url.removeprefix("http://")
    bad = ReceiverConfig(
        name="broken", url=bad_url.format(host=host), backoff_initial_s=2, backoff_max_s=8,
        bearer_token=Secret(env="KH_BAD_TOKEN") if token else None,
    )  # fmt: skip
    good = ReceiverConfig(name="pager", url=f"{url}/pager", timeout_s=5)
    clock = FakeClock()
    svc = AlertService(
        alerting_config(tmp_path, receivers=[bad, good]), shipped_rules(), cluster="test",
        clock=clock, transport=HttpTransport(clock), registry=CollectorRegistry(),
        rand=lambda: 0.5,
    )  # fmt: skip
    svc.open()
    caplog.set_level(logging.DEBUG)
    for t in range(0, 40):  # the bad receiver is listed, and its entry made, first
        clock.now = T0 + t
        svc.submit([sig("processor_uncaught_exceptions", 1, t, broker_id=3)])
        svc.step()
        svc.deliver()

    assert [r.path for r in state.requests] == ["/pager"], "the good receiver got its page"
    assert state.requests[0].body["alerts"][0]["labels"]["alertname"] == (
        "ProcessorUncaughtException"
    )
    attempts = failing(svc, "broken", "invalid_request")
    assert 2 <= attempts <= 8, "retried with backoff (2, 4, 8, 8 s ...), not every tick"
    assert svc.outbox is not None
    [pending] = svc.outbox.pending()
    assert pending.notification.receiver == "broken" and pending.next_attempt_at > clock.now
    assert pending.last_error and "invalid_request" in FAILURE_REASONS
    logged = "\n".join(r.getMessage() for r in caplog.records)
    named = f"notification to broken ({origin.format(host=host)}) failed (invalid_request"
    assert named in logged, "the receiver and its scheme://host:port named"
    for secret in ("S3CRET", "pager-user", "/hooks", "key=", "X-Injected"):
        assert secret not in logged, secret
        assert secret not in pending.last_error, secret
        assert secret not in "".join(p.read_text() for p in tmp_path.rglob("*.json")), secret


class Raising:
    """A transport that raises for one receiver and delivers for the others."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, receiver: ReceiverConfig, notification: Notification) -> DeliveryResult:
        if receiver.name == "broken":
            raise ValueError(f"Invalid header value b'Bearer {TOKEN}'")
        self.sent.append(receiver.name)
        return DeliveryResult(True, status=200)


def notification(receiver: str, key: str, group: str = "g") -> Notification:
    return Notification(receiver, group, {}, "firing", "first", key, [])


def test_a_raising_transport_fails_that_entry_alone_and_moves_it_on(tmp_path: Path) -> None:
    receivers = [ReceiverConfig(name=n, url="http://127.0.0.1:9/x") for n in ("broken", "pager")]
    outbox = Outbox(tmp_path, 3600, T0)
    transport = Raising()
    retry = RetryStage(receivers, transport, CollectorRegistry(), clock=lambda: T0,
                       rand=lambda: 0.5)  # fmt: skip
    dropped: list[Dropped] = []
    outbox.enqueue(notification("broken", "k1"), T0)
    outbox.enqueue(notification("broken", "k2"), T0)  # behind k1 in its group
    outbox.enqueue(notification("pager", "k3"), T0)
    assert retry.deliver(outbox, T0, dropped.append) == 1
    assert transport.sent == ["pager"] and dropped == []
    head = outbox.pending()[0]
    assert head.notification.idempotency_key == "k1" and head.attempts == 1
    assert head.last_error == "ValueError", "the message (it quotes the header) is not kept"
    assert outbox.next_attempt_at("broken") == head.next_attempt_at > T0, (
        "the waiting k2 (due since T0) does not make the worker wake before k1's retry"
    )
    assert retry.deliver(outbox, T0 + 0.5, dropped.append, "broken") == 0
    assert head.attempts == 1, "not attempted again before its backoff"


def test_a_bearer_token_over_plain_http_is_warned_of_once_per_receiver(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("KH_TOKEN", "t0ken-S3CRET")
    token = Secret(env="KH_TOKEN")
    receivers = [
        ReceiverConfig(name="plain", url="http://pager.example:8080/S3CRET-path",
                       bearer_token=token),
        ReceiverConfig(name="tls", url="https://pager.example/x", bearer_token=token),
        ReceiverConfig(name="no-token", url="http://pager.example/x"),
    ]  # fmt: skip
    caplog.set_level(logging.WARNING)
    HttpTransport().check(receivers)
    [warning] = [r.getMessage() for r in caplog.records]
    assert "receiver plain sends its bearer_token over plain http://" in warning
    assert "http://pager.example:8080" in warning
    assert "S3CRET" not in warning


def test_the_delivered_log_is_compacted_durably(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewrite of ``delivered.jsonl`` (at each start) fsyncs the new file before the
    rename and the directory after it: a power cut leaves the old log or the new one."""
    outbox = Outbox(tmp_path, 3600, T0)
    outbox.enqueue(notification("pager", "k1"), T0)
    [entry] = outbox.pending()
    outbox.delivered(entry, T0 + 1)
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync " + os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        events.append(f"replace {Path(src).name} {Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    reopened = Outbox(tmp_path, 3600, T0 + 2)
    assert reopened.was_delivered("pager", "k1")
    log = tmp_path / "delivered.jsonl"
    assert events == [
        f"fsync {log.with_suffix('.tmp')}",
        "replace delivered.tmp delivered.jsonl",
        f"fsync {tmp_path}",
    ]
    assert dataclasses.asdict(entry)["notification"]["idempotency_key"] in log.read_text()
