"""Builders for detector timelines: records at given times, signals by name."""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.inputs import Batch, ClusterRecord, LogEvent, Outcome, ProbeSeen
from kafka_health.model import LabelSet, Signal


def ok(partition: int, seq: int, send_ms: int, latency_s: float = 0.005, leader: int = 1,
       acks: str = "all", append_ms: int | None = 2) -> Outcome:  # fmt: skip
    append = None if append_ms is None else send_ms + append_ms
    return Outcome("c", partition, seq, acks, send_ms, send_ms + round(latency_s * 1000), True,
                   latency_s, leader, None, append)  # fmt: skip


def failed(partition: int, seq: int, send_ms: int, error: str | None, leader: int = 1,
           acks: str = "all") -> Outcome:  # fmt: skip
    return Outcome("c", partition, seq, acks, send_ms, send_ms + 3000, False, None, leader, error)


def probe(partition: int, seq: int, send_ms: int, offset: int, acks: str = "all") -> ProbeSeen:
    return ProbeSeen("c", partition, seq, acks, send_ms, offset)


def part(at_ms: int, topic: str, n: int, leader: int, isr: list[int], epoch: int = 1,
         min_isr: int = 2) -> ClusterRecord:  # fmt: skip
    return ClusterRecord(
        "partition", at_ms, topic, n, leader, epoch, (1, 2, 3), tuple(isr), min_isr
    )


def done(at_ms: int, brokers: int | None = None) -> ClusterRecord:
    return ClusterRecord("snapshot", at_ms, brokers=brokers)


def broker(at_ms: int, broker_id: int, live: bool = True) -> ClusterRecord:
    return ClusterRecord("broker", at_ms, broker_id=broker_id, live=live)


def event(type_: str, broker_id: str | None, event_ms: int, **fields: Any) -> LogEvent:
    return LogEvent(type_, broker_id, event_ms, **fields)


def batch(**parts: Any) -> Batch:
    return Batch(**parts)


def by_name(signals: list[Signal], name: str) -> dict[LabelSet, Signal]:
    return {s.labels: s for s in signals if s.name == name}
