"""The probe loop: every interval, one record to every partition of the canary topic.

Each round first hands the outcomes finished since the last round to the sink (the on-disk
buffer and the metrics), then sends one ``acks=all`` probe per partition, plus an ``acks=1``
probe when enabled. A probe's outcome is measured on the injected clock from the send call
to the producer's callback; its error class comes from :func:`failures.classify`. Rounds run
at a fixed rate; rounds missed while the loop was blocked are skipped, not made up.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from kafka_health.canary.clock import Clock, run_every
from kafka_health.canary.failures import classify
from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.canary.records import Acks, Probe, ProbeOutcome
from kafka_health.canary.sequence import SequenceStore

log = logging.getLogger(__name__)

DoneCallback = Callable[[Any, BaseException | None], None]
"""Called once per send with (record metadata, None) or (None, exception)."""


class ProbeProducer(Protocol):
    """What the loop needs from a producer (a kafka-python adapter, or a fake in tests)."""

    def partitions(self, topic: str) -> Sequence[int] | None: ...

    def leader(self, topic: str, partition: int) -> int | None: ...

    def send(self, topic: str, partition: int, value: bytes, on_done: DoneCallback) -> None: ...


class ProbeLoop:
    """Sends probes and turns their completions into :class:`ProbeOutcome` records."""

    def __init__(
        self,
        *,
        canary_id: str,
        topic: str,
        producers: Mapping[Acks, Callable[[], ProbeProducer | None]],
        sequences: SequenceStore,
        sink: Callable[[list[ProbeOutcome]], None],
        clock: Clock,
        metrics: CanaryMetrics | None = None,
    ) -> None:
        self.canary_id = canary_id
        self.topic = topic
        self.producers = producers
        self.sequences = sequences
        self.sink = sink
        self.clock = clock
        self.metrics = metrics
        self.rounds = 0
        self.skipped_rounds = 0
        self._done: queue.SimpleQueue[ProbeOutcome] = queue.SimpleQueue()

    def round(self) -> int:
        """Deliver finished outcomes, then send one probe per partition and mode; return sent."""
        self.drain()
        sent = 0
        for acks, get_producer in self.producers.items():
            producer = get_producer()
            if producer is None:
                continue
            partitions = producer.partitions(self.topic)
            if not partitions:
                log.warning("canary topic %s has no known partitions yet", self.topic)
                continue
            for partition in sorted(partitions):
                self._send(producer, acks, partition)
                sent += 1
        self.rounds += 1
        return sent

    def drain(self) -> int:
        """Hand every finished outcome to the sink; return how many."""
        finished: list[ProbeOutcome] = []
        while True:
            try:
                finished.append(self._done.get_nowait())
            except queue.Empty:
                break
        if finished:
            if self.metrics is not None:
                for outcome in finished:
                    self.metrics.observe(outcome)
            self.sink(finished)
        return len(finished)

    def run(self, stop: threading.Event, interval_s: float) -> None:
        """Rounds at a fixed rate until ``stop`` is set; an error in a round is logged."""

        def safe_round() -> None:
            try:
                self.round()
            except Exception:
                log.exception("canary probe round failed")

        self.skipped_rounds += run_every(interval_s, stop, self.clock, safe_round)
        self.drain()

    def _send(self, producer: ProbeProducer, acks: Acks, partition: int) -> None:
        seq = self.sequences.next(partition)
        leader = producer.leader(self.topic, partition)
        send_ms = int(self.clock.time() * 1000)
        probe = Probe(self.canary_id, partition, seq, acks, send_ms)
        started = self.clock.monotonic()

        def on_done(metadata: Any, error: BaseException | None) -> None:
            self._done.put(self._outcome(probe, leader, started, metadata, error))

        if self.metrics is not None:
            self.metrics.sent(partition, leader, acks)
        try:
            producer.send(self.topic, partition, probe.encode(), on_done)
        except Exception as exc:  # send() itself failed: no metadata, closed producer, ...
            on_done(None, exc)

    def _outcome(
        self,
        probe: Probe,
        leader: int | None,
        started: float,
        metadata: Any,
        error: BaseException | None,
    ) -> ProbeOutcome:
        latency = max(0.0, self.clock.monotonic() - started)
        common: dict[str, Any] = {
            "canary_id": probe.canary_id,
            "topic": self.topic,
            "partition": probe.partition,
            "seq": probe.seq,
            "acks": probe.acks,
            "send_ms": probe.send_ms,
            "done_ms": int(self.clock.time() * 1000),
            "latency_s": latency,
            "leader": leader if leader is not None and leader >= 0 else None,
        }
        if error is not None:
            return ProbeOutcome(
                **common, outcome="failed", error=classify(error), error_message=str(error)
            )
        offset = getattr(metadata, "offset", None)
        timestamp = getattr(metadata, "timestamp", None)
        return ProbeOutcome(
            **common,
            outcome="ok",
            offset=offset if isinstance(offset, int) and offset >= 0 else None,
            log_append_ms=timestamp if isinstance(timestamp, int) and timestamp >= 0 else None,
        )


class KafkaProbeProducer:
    """:class:`ProbeProducer` over a kafka-python ``KafkaProducer`` (one per acks mode)."""

    def __init__(self, producer: Any) -> None:
        self.producer = producer

    def partitions(self, topic: str) -> Sequence[int] | None:
        from kafka.errors import KafkaError

        try:
            found = self.producer.partitions_for(topic)
        except KafkaError as exc:
            log.warning("no metadata for %s: %s", topic, exc)
            return None
        return sorted(found) if found else None

    def leader(self, topic: str, partition: int) -> int | None:
        """The leader in the client's metadata cache (what the send will use)."""
        from kafka.structs import TopicPartition

        leader = self.producer._metadata.leader_for_partition(TopicPartition(topic, partition))
        return int(leader) if leader is not None and leader >= 0 else None

    def send(self, topic: str, partition: int, value: bytes, on_done: DoneCallback) -> None:
        future = self.producer.send(topic, value=value, partition=partition)
        future.add_callback(lambda metadata: on_done(metadata, None))
        future.add_errback(lambda error: on_done(None, error))

    def close(self, timeout_s: float) -> None:
        self.producer.close(timeout=timeout_s)
