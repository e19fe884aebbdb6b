"""Schemas (Spark DDL) of the JSON records the job reads from the monitor's own topics.

They mirror the writers: ``kafka_health.canary.records`` (probe value and outcome) and
``kafka_health.cluster_state`` (partition and broker snapshots); see ``docs/records.md``.
"""

from __future__ import annotations

PROBE_SCHEMA_ID = "kafka-health/canary/v1"
RESULT_SCHEMA_ID = "kafka-health/canary-result/v1"

PROBE_DDL = (
    "`schema` STRING, canary_id STRING, `partition` INT, seq BIGINT, acks STRING, send_ms BIGINT"
)

RESULT_DDL = (
    "`schema` STRING, canary_id STRING, topic STRING, `partition` INT, seq BIGINT, acks STRING, "
    "send_ms BIGINT, done_ms BIGINT, outcome STRING, latency_s DOUBLE, leader INT, "
    "error STRING, `offset` BIGINT, log_append_ms BIGINT"
)
