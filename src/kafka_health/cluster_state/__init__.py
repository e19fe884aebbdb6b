"""The cluster-state prober: snapshots of every partition's leader, replicas and ISR."""

import importlib
from typing import Any

__all__ = ["BrokerState", "ClusterStateProber", "PartitionState", "SnapshotSummary"]

_HOMES = {
    "ClusterStateProber": "kafka_health.cluster_state.prober",
    "BrokerState": "kafka_health.cluster_state.records",
    "PartitionState": "kafka_health.cluster_state.records",
    "SnapshotSummary": "kafka_health.cluster_state.records",
}


def __getattr__(name: str) -> Any:
    """Names load lazily: their modules need kafka_health.config, which imports this
    package's config section."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
