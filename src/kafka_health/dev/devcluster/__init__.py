"""A real multi-broker Kafka cluster on loopback, started from Maven Central's jars.

Imports nothing else from kafka_health, so tests and tools can use it on its own.
"""

from kafka_health.dev.devcluster.cluster import (
    BrokerStatus,
    ClusterSpec,
    LocalCluster,
    transport_spec,
)
from kafka_health.dev.devcluster.errors import DevClusterError

__all__ = ["BrokerStatus", "ClusterSpec", "DevClusterError", "LocalCluster", "transport_spec"]
