"""Every way a real receiver can fail a page, over real HTTP: each ends delivered once, or
counted and sent again; never silently gone (an Alertmanager notification log written only
after the receiver accepted)."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.alerting_harness import Harness, ReceiverTransport, sig, stop_receivers

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _receivers() -> Iterator[None]:
    yield
    stop_receivers()


def firing(t: float) -> list:  # type: ignore[type-arg]
    return [sig("under_min_isr_partitions", 2, t, broker_id=1)]


def answers(*first: str) -> Iterator[str]:
    yield from first
    while True:
        yield "ok"


def harness(tmp_path: Path, url: str | None = None, timeout_s: float = 2.0) -> Harness:
    h = Harness(tmp_path)
    assert isinstance(h.transport, ReceiverTransport)
    receiver = h.config.receivers[0]
    h.config = dataclasses.replace(
        h.config,
        receivers=[dataclasses.replace(receiver, url=url or receiver.url, timeout_s=timeout_s)],
    )
    h.restart()
    return h


def counter(h: Harness, name: str, reason: str) -> float:
    value = h.service.registry.get_sample_value(
        f"kafka_health_notifications_{name}_total", {"receiver": "pager", "reason": reason}
    )
    return value or 0.0


@pytest.mark.parametrize("status", ["400", "401", "404", "413"])
def test_a_refusal_is_counted_and_the_page_sent_again(tmp_path: Path, status: str) -> None:
    h = harness(tmp_path)
    assert isinstance(h.transport, ReceiverTransport)
    replies = answers(status)
    h.transport.state.mode = lambda: next(replies)
    h.run(0, 60, firing)
    assert [n.reason for n in h.sent] == ["first"], "delivered once"
    assert len(h.transport.attempts) == 2
    assert {n.idempotency_key for n in h.transport.attempts} == {h.sent[0].idempotency_key}
    assert counter(h, "dropped", "rejected") == 1 and counter(h, "failed", "client_error") == 1


def test_a_redirect_is_not_followed(tmp_path: Path) -> None:
    """A 302 to another host: not followed (urllib would send a GET without the page there
    and call it delivered); refused, counted, and the page sent again to the receiver."""
    h = harness(tmp_path)
    elsewhere = harness(tmp_path / "elsewhere")
    assert isinstance(h.transport, ReceiverTransport)
    assert isinstance(elsewhere.transport, ReceiverTransport)
    location = elsewhere.config.receivers[0].url
    assert isinstance(location, str)
    h.transport.state.location = location
    replies = answers("302")
    h.transport.state.mode = lambda: next(replies)
    h.run(0, 60, firing)
    assert elsewhere.transport.state.requests == [], "nothing went to the other host"
    assert [n.reason for n in h.sent] == ["first"]
    assert counter(h, "dropped", "rejected") == 1


@pytest.mark.parametrize(
    ("reply", "reason"),
    [("429", "rate_limited"), ("500", "server_error"), ("reset", "connection"),
     ("hang", "timeout")],
)  # fmt: skip
def test_a_failed_attempt_is_retried_and_delivered_once(
    tmp_path: Path, reply: str, reason: str
) -> None:
    h = harness(tmp_path, timeout_s=0.5)
    assert isinstance(h.transport, ReceiverTransport)
    state = h.transport.state
    state.retry_after, state.hang_s = "7", 1.5
    replies = answers(reply)
    state.mode = lambda: next(replies)
    h.run(0, 60, firing)
    assert [n.reason for n in h.sent] == ["first"], "processed once, even the hang's retry"
    assert counter(h, "failed", reason) == 1 and counter(h, "dropped", "rejected") == 0
    if reply == "429":
        first, second = h.transport.attempts[:2]
        assert second.created_at == first.created_at  # the same outbox entry, retried


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("broken", ["refused", "tls"])
def test_an_unreachable_receiver_keeps_the_page_until_it_answers(
    tmp_path: Path, broken: str
) -> None:
    """Connection refused, or TLS spoken to a plain-HTTP server: retried (counted) and kept
    on disk; once the receiver answers (a restart with its right URL), delivered once."""
    good = harness(tmp_path / "probe")
    assert isinstance(good.transport, ReceiverTransport)
    right = good.config.receivers[0].url
    assert isinstance(right, str)
    wrong = (
        f"http://127.0.0.1:{closed_port()}/pager"
        if broken == "refused"
        else right.replace("http://", "https://")
    )
    h = harness(tmp_path, url=wrong)
    h.run(0, 30, firing)
    assert h.sent == [] and counter(h, "failed", "connection") >= 2
    h.config = dataclasses.replace(
        h.config, receivers=[dataclasses.replace(h.config.receivers[0], url=right)]
    )
    h.transport = good.transport
    h.restart()
    h.run(35, 90, firing)
    assert [n.reason for n in h.sent] == ["first"]
