"""The probe loop: every interval, one record to every partition of the canary topic.

Each round first hands the outcomes finished since the last round to the sink (the on-disk
buffer and the metrics), then sends one ``acks=all`` probe per partition, plus an ``acks=1``
probe when enabled. A probe's outcome is measured on the injected clock from the send call
to the producer's callback; its error class comes from :func:`failures.classify`. Rounds run
at a fixed rate; rounds missed while the loop was blocked are skipped, not made up.

Deadline: a probe still unanswered ``deadline_s`` after its send has failed with ``Timeout``,
and the loop hands that outcome to the sink at once (it wakes for the earliest deadline, not
only for rounds). A frozen leader keeps a request open until the client's own request timeout,
and kafka-python completes the future only then; the outcome does not wait for it. The late
answer, success or failure, is not counted again (only in ``late_answers``): each probe has
exactly one outcome. A late success means the record was written; the loss detector then sees
it in the canary topic without an acknowledged outcome, which is no anomaly.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kafka.errors import KafkaTimeoutError

from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.canary.records import Acks, Probe, ProbeOutcome
from kafka_health.canary.sequence import SequenceStore
from kafka_health.clock import Clock
from kafka_health.failures import classify
from kafka_health.kafka_clients import python_client_options
from kafka_health.kafka_config import KafkaConfig

log = logging.getLogger(__name__)

DoneCallback = Callable[[Any, BaseException | None], None]
"""Called once per send with (record metadata, None) or (None, exception)."""


class ProbeDeadlineExceeded(KafkaTimeoutError):  # type: ignore[misc]
    """A probe got no answer within the probe deadline (error class ``Timeout``, like the
    client's own expiry)."""


@dataclass(frozen=True)
class _InFlight:
    probe: Probe
    leader: int | None
    started: float


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
        deadline_s: float = 3.0,
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
        self.deadline_s = deadline_s
        self.late_answers = 0
        self._done: queue.SimpleQueue[ProbeOutcome] = queue.SimpleQueue()
        self._in_flight: dict[tuple[Acks, int, int], _InFlight] = {}
        self._lock = threading.Lock()

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

    def expire(self) -> int:
        """Fail every probe past its deadline (``Timeout``); return how many."""
        now = self.clock.monotonic()
        with self._lock:
            due = [k for k, f in self._in_flight.items() if now - f.started >= self.deadline_s]
            expired = [self._in_flight.pop(k) for k in due]
        for flight in expired:
            self._done.put(self._outcome(flight, None, self._deadline_error()))
        return len(expired)

    def next_deadline(self) -> float | None:
        """Monotonic time of the earliest in-flight probe's deadline (None: none in flight)."""
        with self._lock:
            if not self._in_flight:
                return None
            return min(f.started for f in self._in_flight.values()) + self.deadline_s

    @property
    def in_flight(self) -> int:
        with self._lock:
            return len(self._in_flight)

    def drain(self) -> int:
        """Fail the probes past their deadline, then hand every finished outcome to the sink;
        return how many."""
        self.expire()
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
        """Rounds at a fixed rate until ``stop`` is set; between rounds, wake at each probe
        deadline to publish its failure at once. An error in a round is logged.

        Rounds missed while a round was slow are skipped, not made up."""
        next_round = self.clock.monotonic()
        while not stop.is_set():
            now = self.clock.monotonic()
            if now >= next_round:
                self._safely(self.round)
                next_round += interval_s
                now = self.clock.monotonic()
                if now > next_round:
                    missed = int((now - next_round) // interval_s) + 1
                    self.skipped_rounds += missed
                    next_round += missed * interval_s
            else:
                self._safely(self.drain)
            deadline = self.next_deadline()
            wake = next_round if deadline is None else min(next_round, deadline)
            stop.wait(max(0.0, wake - now))
        self.drain()

    @staticmethod
    def _safely(body: Callable[[], object]) -> None:
        try:
            body()
        except Exception:
            log.exception("canary probe round failed")

    def _send(self, producer: ProbeProducer, acks: Acks, partition: int) -> None:
        seq = self.sequences.next(partition)
        leader = producer.leader(self.topic, partition)
        send_ms = int(self.clock.time() * 1000)
        probe = Probe(self.canary_id, partition, seq, acks, send_ms)
        key = (acks, partition, seq)
        flight = _InFlight(probe, leader, self.clock.monotonic())
        with self._lock:
            self._in_flight[key] = flight

        def on_done(metadata: Any, error: BaseException | None) -> None:
            self._answer(key, metadata, error)

        if self.metrics is not None:
            self.metrics.sent(partition, leader, acks)
        try:
            producer.send(self.topic, partition, probe.encode(), on_done)
        except Exception as exc:  # send() itself failed: no metadata, closed producer, ...
            on_done(None, exc)

    def _answer(
        self, key: tuple[Acks, int, int], metadata: Any, error: BaseException | None
    ) -> None:
        """The producer's answer (any thread): the outcome, unless the deadline came first."""
        now = self.clock.monotonic()
        with self._lock:
            flight = self._in_flight.pop(key, None)
            late = flight is None or now - flight.started >= self.deadline_s
            if late:
                self.late_answers += 1
        if self.metrics is not None and late:
            self.metrics.late_answer(key[0], "ok" if error is None else "failed")
        if flight is None:
            return  # already failed with Timeout at its deadline: one outcome per probe
        if late:  # answered past the deadline before the loop noticed: still a Timeout
            metadata, error = None, self._deadline_error()
        self._done.put(self._outcome(flight, metadata, error))

    def _deadline_error(self) -> ProbeDeadlineExceeded:
        return ProbeDeadlineExceeded(f"no answer within the {self.deadline_s:g} s probe deadline")

    def _outcome(
        self, flight: _InFlight, metadata: Any, error: BaseException | None
    ) -> ProbeOutcome:
        probe, leader, started = flight.probe, flight.leader, flight.started
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


def probe_producer_options(
    kafka: KafkaConfig, canary_id: str, acks: Acks, timeout_s: float
) -> dict[str, Any]:
    """A probe producer: no retries (each probe's first answer is its outcome), no batching."""
    timeout_ms = int(timeout_s * 1000)
    return {
        **python_client_options(kafka),
        "client_id": f"{canary_id}-probe-acks-{acks}",
        "acks": "all" if acks == "all" else 1,
        "retries": 0,
        "enable_idempotence": False,
        "linger_ms": 0,
        "request_timeout_ms": timeout_ms,
        "delivery_timeout_ms": timeout_ms + 1000,
        "max_block_ms": min(timeout_ms, 5000),
        "bootstrap_timeout_ms": timeout_ms,
        "metadata_max_age_ms": 10_000,
        "allow_auto_create_topics": False,
    }
