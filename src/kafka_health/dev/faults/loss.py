"""Ground truth for acks=1 loss: acknowledged canary writes that are not in the canary topic.

Independent of the monitor's own detector: it reads the canary's outcomes (the results topic)
and the canary topic with a plain consumer after the fault, and compares sequence numbers.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from kafka_health.config import load_config
from kafka_health.dev.faults.context import FaultContext
from kafka_health.kafka_clients import python_client_options

READ_IDLE_S = 5.0


@dataclass(frozen=True)
class LossTruth:
    acknowledged: int
    """acks=1 writes acknowledged since the cut-off."""
    lost: int
    """... of which absent from the canary topic."""


def acks1_loss(ctx: FaultContext, since: float) -> LossTruth:
    """Compare acks=1 outcomes sent after ``since`` (epoch s) with the canary topic."""
    config = load_config(ctx.config_file)
    since_ms = int(since * 1000)
    acked = {
        (r["partition"], r["seq"])
        for r in _read(
            python_client_options(config.transport_kafka()), config.topics.canary_results
        )
        if r.get("acks") == "1" and r.get("outcome") == "ok" and r.get("send_ms", 0) >= since_ms
    }
    present = {
        (r["partition"], r["seq"])
        for r in _read(python_client_options(config.kafka), config.topics.canary)
        if r.get("acks") == "1"
    }
    return LossTruth(acknowledged=len(acked), lost=len(acked - present))


def _read(options: dict[str, Any], topic: str) -> list[dict[str, Any]]:
    """Every JSON record of ``topic`` from the beginning to its current end."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(
        enable_auto_commit=False, consumer_timeout_ms=int(READ_IDLE_S * 1000), **options
    )
    try:
        partitions = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or []]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        end = consumer.end_offsets(partitions)
        records: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline and any(
            consumer.position(tp) < end[tp] for tp in partitions
        ):
            for batch in consumer.poll(timeout_ms=1000).values():
                for message in batch:
                    try:
                        records.append(json.loads(message.value))
                    except (TypeError, ValueError):
                        continue
        return records
    finally:
        consumer.close()
