"""Schema ids of the JSON records the job reads from the monitor's own topics, and the Spark
DDL of the canary's probes (parsed in Spark by the canary query; outcomes and cluster-state
records are checked on the driver: :func:`kafka_health.job.batch.decode_rows`).

The ids are the writers' own, named here as the job reads them: ``kafka_health.canary.records``
(probe value and outcome) and ``kafka_health.cluster_state.records`` (partition and broker
snapshots); see ``docs/records.md``.
"""

from __future__ import annotations

from kafka_health.canary.records import PROBE_SCHEMA as PROBE_SCHEMA_ID
from kafka_health.canary.records import RESULT_SCHEMA as RESULT_SCHEMA_ID
from kafka_health.cluster_state.records import SCHEMA as CLUSTER_STATE_SCHEMA_ID

__all__ = ["CLUSTER_STATE_SCHEMA_ID", "PROBE_DDL", "PROBE_SCHEMA_ID", "RESULT_SCHEMA_ID"]

PROBE_DDL = (
    "`schema` STRING, canary_id STRING, `partition` INT, seq BIGINT, acks STRING, send_ms BIGINT"
)
