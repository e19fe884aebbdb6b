"""Probe outcomes to ``topics.canary_results``, through the on-disk buffer, none missing.

Every outcome is first appended to the :class:`~kafka_health.canary.buffer.DiskBuffer`; a
publisher thread sends the buffered outcomes in order, in batches, and moves the buffer's
cursor only after Kafka acknowledged the whole batch. While the cluster cannot take writes
the outcomes wait on disk (bounded), and they are delivered when it recovers, also after a
restart of the canary. Delivery is at least once: a batch that failed part-way is sent again.
See :mod:`kafka_health.canary.records` for the record schema.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from kafka_health.canary.buffer import DiskBuffer
from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.canary.records import ProbeOutcome, result_key

log = logging.getLogger(__name__)


class ResultsProducer(Protocol):
    """Sends keyed records and waits for all of them (kafka-python adapter or a fake)."""

    def send_all(self, topic: str, records: list[tuple[bytes, bytes]], timeout_s: float) -> None:
        """Send (key, value) records; return when all are acknowledged, else raise."""
        ...


def buffer_sink(buffer: DiskBuffer) -> Callable[[list[ProbeOutcome]], None]:
    """The probe loop's sink: append encoded outcomes to the buffer."""

    def sink(outcomes: list[ProbeOutcome]) -> None:
        buffer.append([outcome.encode() for outcome in outcomes])

    return sink


class ResultsPublisher:
    """Moves outcomes from the buffer to the results topic, in order, with backoff.

    ``reset`` is called after a failed batch, to drop the producer; the next batch gets a new
    one (after a long outage kafka-python 3.0.12's producer was seen to never finish a flush).
    """

    def __init__(
        self,
        *,
        buffer: DiskBuffer,
        producer: Callable[[], ResultsProducer | None],
        topic: str,
        reset: Callable[[], None] | None = None,
        metrics: CanaryMetrics | None = None,
        batch_records: int = 500,
        timeout_s: float = 30.0,
        backoff_s: float = 0.5,
        backoff_max_s: float = 10.0,
    ) -> None:
        self.buffer = buffer
        self.producer = producer
        self.topic = topic
        self.reset = reset
        self.metrics = metrics
        self.batch_records = batch_records
        self.timeout_s = timeout_s
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s
        self.delivered = 0
        self.failures = 0
        self._dropped_seen = buffer.dropped

    def deliver_batch(self) -> int:
        """Send one batch from the cursor on; commit it when acknowledged. Return its size."""
        self._count_dropped()
        records, end = self.buffer.read(self.batch_records)
        if not records:
            return 0
        producer = self.producer()
        if producer is None:
            raise ConnectionError("no producer for the results topic (cluster unreachable?)")
        producer.send_all(
            self.topic, [(result_key(record), record) for record in records], self.timeout_s
        )
        self.buffer.commit(end)
        self.delivered += len(records)
        if self.metrics is not None:
            self.metrics.delivered.inc(len(records))
        return len(records)

    def run(self, stop: threading.Event, idle_s: float = 0.2) -> None:
        """Deliver until ``stop``; back off exponentially while delivery fails."""
        backoff = self.backoff_s
        while not stop.is_set():
            try:
                if self.deliver_batch() == 0:
                    stop.wait(idle_s)
                backoff = self.backoff_s
            except Exception as exc:
                self.failures += 1
                if self.reset is not None:
                    self.reset()  # a fresh producer: kafka-python's can wedge after expiries
                log.warning(
                    "results not delivered (%d pending, retry in %.1f s): %s",
                    self.buffer.pending,
                    backoff,
                    exc,
                )
                stop.wait(backoff)
                backoff = min(self.backoff_max_s, backoff * 2)

    def _count_dropped(self) -> None:
        dropped = self.buffer.dropped
        if dropped > self._dropped_seen:
            log.error("results buffer full: %d outcomes dropped", dropped - self._dropped_seen)
            if self.metrics is not None:
                self.metrics.dropped.inc(dropped - self._dropped_seen)
            self._dropped_seen = dropped


class KafkaResultsProducer:
    """:class:`ResultsProducer` over a kafka-python ``KafkaProducer`` (acks=all)."""

    def __init__(self, producer: Any) -> None:
        self.producer = producer

    def send_all(self, topic: str, records: list[tuple[bytes, bytes]], timeout_s: float) -> None:
        futures = [self.producer.send(topic, key=key, value=value) for key, value in records]
        self.producer.flush(timeout=timeout_s)
        for future in futures:
            future.get(timeout=0)  # raises the send's error

    def close(self, timeout_s: float) -> None:
        self.producer.close(timeout=timeout_s)
