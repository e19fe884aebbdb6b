"""Broker log lines as the shipper sends them, for benchmarks and tests: log4j's and the JDK's
timestamps, and the shipper's JSON envelope (``docs/records.md``)."""

from __future__ import annotations

import json

from kafka_health.dev.loadgen.traffic import gc_stamp
from kafka_health.dev.loadgen.traffic import log_stamp as stamp

__all__ = ["envelope", "gc_stamp", "stamp"]


def envelope(broker: str, kind: str, message: str) -> bytes:
    """One log entry in the shipper's envelope (``kafka-health/log/v1``)."""
    record = {
        "schema": "kafka-health/log/v1", "broker_id": broker, "host": f"kafka-{broker}",
        "kind": kind, "path": f"/var/log/kafka/{kind}.log", "offset": 0, "inode": 1,
        "message": message, "shipped_at": "2026-11-22T00:00:00Z",
    }  # fmt: skip
    return json.dumps(record).encode()
