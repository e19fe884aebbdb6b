"""The cluster-state prober: snapshots of every partition's leader, replicas and ISR."""

from kafka_health.lazy import lazy_names

__all__ = ["BrokerState", "ClusterStateProber", "PartitionState", "SnapshotSummary"]

_HOMES = {
    "ClusterStateProber": "kafka_health.cluster_state.prober",
    "BrokerState": "kafka_health.cluster_state.records",
    "PartitionState": "kafka_health.cluster_state.records",
    "SnapshotSummary": "kafka_health.cluster_state.records",
}


__getattr__ = lazy_names(__name__, _HOMES)
