"""The cluster-state prober: snapshots of every partition's leader, replicas and ISR."""

from kafka_health.cluster_state.prober import ClusterStateProber
from kafka_health.cluster_state.records import BrokerState, PartitionState, SnapshotSummary

__all__ = ["BrokerState", "ClusterStateProber", "PartitionState", "SnapshotSummary"]
