"""Send records to Kafka and retry every failure with backoff: nothing is dropped.

The producer reports completions on its own I/O thread; they are queued and handled on the
shipper's thread in :meth:`Sender.poll`, so all bookkeeping stays single-threaded. A failed
record (an error reported by the producer, or raised by ``send`` itself, e.g. no metadata while
the brokers are down) waits ``backoff_s * 2**(attempts-1)`` (at most ``backoff_max_s``) and is
sent again. ``depth`` counts the records submitted and not yet acknowledged: the caller stops
reading when it reaches its bound.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kafka_health.kafka_clients import python_client_options
from kafka_health.kafka_config import KafkaConfig
from kafka_health.shipper.config import ShipperConfig

log = logging.getLogger(__name__)


class FutureLike(Protocol):
    def add_callback(self, f: Callable[..., Any], *args: Any) -> Any: ...
    def add_errback(self, f: Callable[..., Any], *args: Any) -> Any: ...


class ProducerLike(Protocol):
    """The part of kafka-python's ``KafkaProducer`` the sender uses."""

    def send(self, topic: str, value: bytes | None = ..., key: bytes | None = ...) -> Any: ...
    def flush(self, timeout: float | None = ...) -> None: ...
    def close(self, timeout: float | None = ...) -> None: ...


@dataclass
class Outbound:
    """One record on its way, with the caller's bookkeeping in ``meta``."""

    key: bytes
    value: bytes
    meta: Any = None
    attempts: int = 0


@dataclass(order=True)
class _Retry:
    due: float
    order: int
    record: Outbound = field(compare=False)


class Sender:
    """Submit records, poll for acknowledgements; failures are retried, never dropped."""

    def __init__(
        self,
        producer: ProducerLike,
        topic: str,
        *,
        backoff_s: float = 0.5,
        backoff_max_s: float = 10.0,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.producer = producer
        self.topic = topic
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.on_error = on_error
        self.depth = 0
        self._done: queue.SimpleQueue[tuple[Outbound, BaseException | None]] = queue.SimpleQueue()
        self._retries: list[_Retry] = []
        self._order = itertools.count()
        self._hold_until = 0.0
        self._failing = False

    @property
    def waiting_retry(self) -> int:
        return len(self._retries)

    def submit(self, record: Outbound, now: float) -> None:
        """Hand a record to the producer (or to the retry queue while sends are failing)."""
        self.depth += 1
        if now < self._hold_until:
            self._schedule(record, self._hold_until)
        else:
            self._send(record, now)

    def poll(self, now: float) -> list[Outbound]:
        """Records acknowledged since the last poll; schedules failed ones, resends due ones."""
        acked: list[Outbound] = []
        while True:
            try:
                record, error = self._done.get_nowait()
            except queue.Empty:
                break
            if error is None:
                self.depth -= 1
                acked.append(record)
                if self._failing:
                    log.info("Kafka acknowledges records again")
                    self._failing = False
            else:
                self._failed(record, error, now)
        while self._retries and self._retries[0].due <= now and now >= self._hold_until:
            self._send(heapq.heappop(self._retries).record, now)
        return acked

    def flush(self, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` for the producer to deliver what it holds."""
        try:
            self.producer.flush(timeout=timeout_s)
        except Exception as exc:  # a timeout here only means not everything was delivered
            log.warning("flushing the producer: %s", exc)

    def _send(self, record: Outbound, now: float) -> None:
        try:
            future = self.producer.send(self.topic, value=record.value, key=record.key)
        except Exception as exc:  # no metadata, buffer full, ...: retried like any failure
            self._failed(record, exc, now)
            self._hold_until = now + self._backoff(record.attempts)
            return
        future.add_callback(self._acked, record)
        future.add_errback(self._errored, record)

    def _acked(self, record: Outbound, _metadata: Any) -> None:
        self._done.put((record, None))

    def _errored(self, record: Outbound, error: BaseException) -> None:
        self._done.put((record, error))

    def _failed(self, record: Outbound, error: BaseException, now: float) -> None:
        record.attempts += 1
        name = type(error).__name__
        if self.on_error is not None:
            self.on_error(name)
        if not self._failing:
            log.warning("sending to %s failed (%s: %s): retrying with backoff", self.topic,
                        name, error)  # fmt: skip
            self._failing = True
        self._schedule(record, now + self._backoff(record.attempts))

    def _schedule(self, record: Outbound, due: float) -> None:
        heapq.heappush(self._retries, _Retry(due, next(self._order), record))

    def _backoff(self, attempts: int) -> float:
        return float(min(self.backoff_max_s, self.backoff_s * 2 ** max(0, attempts - 1)))


def kafka_producer(kafka: KafkaConfig, config: ShipperConfig) -> ProducerLike:
    """kafka-python producer for the shipper: acks from all in-sync replicas, idempotent.

    ``max_block_ms`` is short so that a send without metadata (brokers down) fails fast into
    the sender's own retry queue instead of stalling the loop.
    """
    from kafka import KafkaProducer

    producer: ProducerLike = KafkaProducer(
        client_id="kafka-health-shipper",
        acks="all",
        linger_ms=config.linger_ms,
        compression_type=None if config.compression == "none" else config.compression,
        max_block_ms=1000,
        batch_size=256 * 1024,
        **python_client_options(kafka),
    )
    return producer
