"""Schema ids of the JSON records the job reads from the monitor's own topics, and the Spark
DDL of the canary's probes (parsed in Spark by the canary query; outcomes and cluster-state
records are checked on the driver: :func:`kafka_health.job.batch.decode_rows`).

They mirror the writers: ``kafka_health.canary.records`` (probe value and outcome) and
``kafka_health.cluster_state`` (partition and broker snapshots); see ``docs/records.md``.
"""

from __future__ import annotations

PROBE_SCHEMA_ID = "kafka-health/canary/v1"
RESULT_SCHEMA_ID = "kafka-health/canary-result/v1"

PROBE_DDL = (
    "`schema` STRING, canary_id STRING, `partition` INT, seq BIGINT, acks STRING, send_ms BIGINT"
)

CLUSTER_STATE_SCHEMA_ID = "kafka-health/cluster-state/v1"
