"""Send :class:`~kafka_health.dev.loadgen.traffic.Traffic` at a rate, with storms, to the topics
the job reads (on the transport cluster), until a deadline or a stop."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kafka_health.config import MonitorConfig
from kafka_health.dev.loadgen.traffic import Record, Traffic
from kafka_health.kafka_clients import python_client_options

TICK_S = 0.1


@dataclass(frozen=True)
class LoadPlan:
    """How much, for how long: ``rate`` broker-log records per second (times ``storm_factor``
    for ``storm_seconds`` out of every ``storm_every_s``; none when 0), a canary round every
    ``canary_interval_s`` and a cluster-state snapshot every ``snapshot_interval_s`` (0: none)."""

    rate: float = 1000.0
    seconds: float = 60.0
    storm_every_s: float = 0.0
    storm_seconds: float = 60.0
    storm_factor: float = 10.0
    canary_interval_s: float = 1.0
    snapshot_interval_s: float = 10.0

    def storming(self, elapsed_s: float) -> bool:
        """Whether ``elapsed_s`` into the run falls in a storm (the last ``storm_seconds`` of
        each ``storm_every_s``)."""
        if self.storm_every_s <= 0:
            return False
        return elapsed_s % self.storm_every_s >= self.storm_every_s - self.storm_seconds

    def rate_at(self, elapsed_s: float) -> float:
        return self.rate * (self.storm_factor if self.storming(elapsed_s) else 1.0)


@dataclass
class LoadStats:
    """What was sent, per topic, and how far the sender fell behind its plan."""

    records: Counter[str] = field(default_factory=Counter)
    log_records_planned: int = 0
    seconds: float = 0.0
    max_behind_records: int = 0

    @property
    def records_per_s(self) -> float:
        return sum(self.records.values()) / self.seconds if self.seconds else 0.0


def run_load(
    config: MonitorConfig,
    traffic: Traffic,
    plan: LoadPlan,
    stop: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
    wall_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    on_tick: Callable[[LoadStats], None] | None = None,
) -> LoadStats:
    """Produce the plan's traffic to ``config``'s transport topics; return what was sent."""
    from kafka import KafkaProducer

    producer = KafkaProducer(
        acks=1, linger_ms=20, batch_size=262_144,
        **python_client_options(config.transport_kafka()),
    )  # fmt: skip
    # The canary topic is the monitored cluster's: its probes go with the rest only when the
    # monitored cluster is also the transport (one cluster, as in the soak and the throughput
    # benchmark); otherwise the canary outcomes alone.
    one_cluster = config.transport_kafka().bootstrap_servers == config.kafka.bootstrap_servers
    round_of = traffic.canary_round if one_cluster else traffic.canary_results
    stats = LoadStats()
    started = clock()
    sent_logs = 0.0
    next_canary = next_snapshot = started
    try:
        while not (stop is not None and stop.is_set()):
            now = clock()
            elapsed = now - started
            if elapsed >= plan.seconds:
                break
            stats.log_records_planned = int(_planned(plan, elapsed))
            due = stats.log_records_planned - int(sent_logs)
            at_ms = wall_ms()
            if due > 0:
                storm = plan.storming(elapsed)
                _send(producer, traffic.log_records(at_ms, due, storm), stats)
                sent_logs += due
            if plan.canary_interval_s > 0 and now >= next_canary:
                _send(producer, round_of(at_ms), stats)
                next_canary += plan.canary_interval_s
            if plan.snapshot_interval_s > 0 and now >= next_snapshot:
                _send(producer, traffic.cluster_snapshot(at_ms), stats)
                next_snapshot += plan.snapshot_interval_s
            behind = int(_planned(plan, clock() - started) - sent_logs)
            stats.max_behind_records = max(stats.max_behind_records, behind)
            if on_tick is not None:
                on_tick(stats)
            time.sleep(max(0.0, TICK_S - (clock() - now)))
        producer.flush()
    finally:
        stats.seconds = clock() - started
        producer.close()
    return stats


def _planned(plan: LoadPlan, elapsed_s: float) -> float:
    """Log records the plan wants sent ``elapsed_s`` into the run (storms included)."""
    step, total, t = 1.0, 0.0, 0.0
    while t + step <= elapsed_s:
        total += plan.rate_at(t) * step
        t += step
    return total + plan.rate_at(t) * (elapsed_s - t)


def _send(producer: object, records: Iterable[Record], stats: LoadStats) -> None:
    for topic, key, value in records:
        producer.send(topic, key=key, value=value)  # type: ignore[attr-defined]
        stats.records[topic] += 1
