"""The canary's own Prometheus metrics and /metrics endpoint (visible when Kafka is not).

Series (``acks`` is ``all`` or ``1``; ``broker_id`` is the leader at send time, ``none`` if
unknown)::

    kafka_health_canary_sends_total{partition,broker_id,acks}
    kafka_health_canary_failures_total{partition,broker_id,acks,error_class}
    kafka_health_canary_ack_latency_seconds{partition,broker_id,acks}   histogram, 1 ms .. 30 s
    kafka_health_canary_last_success_timestamp_seconds{partition,acks}
    kafka_health_canary_late_answers_total{acks,outcome}                  after the deadline
    kafka_health_canary_results_pending_records / _pending_bytes         on-disk buffer
    kafka_health_canary_results_delivered_total / _dropped_total
    kafka_health_canary_topic_actions_total{action,outcome}              topic management
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from kafka_health.canary.records import ProbeOutcome

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0,
)  # fmt: skip
NO_BROKER = "none"


def broker_label(broker_id: int | None) -> str:
    return NO_BROKER if broker_id is None or broker_id < 0 else str(broker_id)


class CanaryMetrics:
    """The canary's series, in ``registry`` (a fresh one per canary; tests read it)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        ns = "kafka_health_canary"
        self.sends = Counter(
            f"{ns}_sends", "Probes sent.", ["partition", "broker_id", "acks"], registry=registry
        )
        self.failures = Counter(
            f"{ns}_failures",
            "Probes that failed, by the Kafka error class.",
            ["partition", "broker_id", "acks", "error_class"],
            registry=registry,
        )
        self.latency = Histogram(
            f"{ns}_ack_latency_seconds",
            "Time from send to acknowledgement of successful probes.",
            ["partition", "broker_id", "acks"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.last_success = Gauge(
            f"{ns}_last_success_timestamp_seconds",
            "Wall time of the last acknowledged probe.",
            ["partition", "acks"],
            registry=registry,
        )
        self.late_answers = Counter(
            f"{ns}_late_answers",
            "Answers that came after their probe had failed at the probe deadline (Timeout); "
            "not counted again. outcome: what the late answer was (ok, failed).",
            ["acks", "outcome"],
            registry=registry,
        )
        self.pending_records = Gauge(
            f"{ns}_results_pending_records",
            "Outcomes in the on-disk buffer, not yet in the results topic.",
            registry=registry,
        )
        self.pending_bytes = Gauge(
            f"{ns}_results_pending_bytes", "Bytes of those outcomes.", registry=registry
        )
        self.delivered = Counter(
            f"{ns}_results_delivered", "Outcomes written to the results topic.", registry=registry
        )
        self.dropped = Counter(
            f"{ns}_results_dropped",
            "Outcomes dropped undelivered because the on-disk buffer was full.",
            registry=registry,
        )
        self.topic_actions = Counter(
            f"{ns}_topic_actions",
            "Canary topic management actions (create, add_partitions, reassign, elect, "
            "alter_configs, describe) by outcome.",
            ["action", "outcome"],
            registry=registry,
        )

    def sent(self, partition: int, leader: int | None, acks: str) -> None:
        self.sends.labels(str(partition), broker_label(leader), acks).inc()

    def observe(self, outcome: ProbeOutcome) -> None:
        """Count a finished probe: latency and last success, or the failure's class."""
        labels = (str(outcome.partition), broker_label(outcome.leader), outcome.acks)
        if outcome.outcome == "ok":
            self.latency.labels(*labels).observe(outcome.latency_s)
            self.last_success.labels(str(outcome.partition), outcome.acks).set(
                outcome.done_ms / 1000
            )
        else:
            self.failures.labels(*labels, outcome.error or "Unknown").inc()

    def late_answer(self, acks: str, outcome: str) -> None:
        self.late_answers.labels(acks, outcome).inc()

    def track_buffer(self, pending: Callable[[], int], pending_bytes: Callable[[], int]) -> None:
        """Read the buffer's size at scrape time."""
        self.pending_records.set_function(pending)
        self.pending_bytes.set_function(pending_bytes)
