"""The sender never drops a record: failures are retried with backoff until acknowledged."""

from __future__ import annotations

from tests.unit.shipper.shipper_fakes import FakeClock, FakeProducer

from kafka_health.shipper.sender import Outbound, Sender


def records(n: int) -> list[Outbound]:
    return [Outbound(b"1", f"v{i}".encode(), meta=i) for i in range(n)]


def test_acknowledged_records_come_back_and_leave_the_buffer(
    producer: FakeProducer, clock: FakeClock
) -> None:
    sender = Sender(producer, "logs")
    for record in records(3):
        sender.submit(record, clock())
    assert sender.depth == 3
    producer.deliver()
    assert [r.meta for r in sender.poll(clock())] == [0, 1, 2]
    assert sender.depth == 0


def test_failed_records_are_retried_after_an_exponential_backoff(
    producer: FakeProducer, clock: FakeClock
) -> None:
    errors: list[str] = []
    sender = Sender(producer, "logs", backoff_s=1.0, backoff_max_s=3.0, on_error=errors.append)
    sender.submit(records(1)[0], clock())
    waits: list[float] = []
    for _attempt in range(4):
        producer.fail(TimeoutError("request timed out"))
        sender.poll(clock())
        start = clock()
        while len(producer.sent) == len(waits) + 1:
            clock.advance(0.25)
            sender.poll(clock())
        waits.append(clock() - start)
    assert waits == [1.0, 2.0, 3.0, 3.0], "1 s doubling, capped at backoff_max_s"
    assert errors == ["TimeoutError"] * 4
    producer.deliver()
    assert len(sender.poll(clock())) == 1 and sender.depth == 0


def test_while_send_raises_records_wait_in_order_without_calling_the_producer(
    producer: FakeProducer, clock: FakeClock
) -> None:
    sender = Sender(producer, "logs", backoff_s=1.0, backoff_max_s=1.0)
    producer.down = True
    for record in records(5):
        sender.submit(record, clock())
    assert sender.depth == 5 and sender.waiting_retry == 5 and producer.sent == []
    producer.down = False
    clock.advance(1.0)
    sender.poll(clock())
    assert [v for _k, v in producer.sent] == [f"v{i}".encode() for i in range(5)]
    producer.deliver()
    assert len(sender.poll(clock())) == 5 and sender.depth == 0
