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

CLUSTER_STATE_SCHEMA_ID = "kafka-health/cluster-state/v1"

CLUSTER_STATE_DDL = (
    "`schema` STRING, kind STRING, snapshot_ms BIGINT, topic STRING, `partition` INT, "
    "leader INT, leader_epoch INT, replicas ARRAY<INT>, isr ARRAY<INT>, "
    "offline_replicas ARRAY<INT>, min_isr INT, offline BOOLEAN, under_replicated BOOLEAN, "
    "under_min_isr BOOLEAN, error STRING, broker_id INT, host STRING, port INT, rack STRING, "
    "live BOOLEAN, controller BOOLEAN, done_ms BIGINT, partitions INT, brokers INT, "
    "live_brokers INT, controller_id INT"
)
