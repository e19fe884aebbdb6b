"""A real multi-broker Kafka cluster on loopback, started from Maven Central's jars.

Imports nothing else from kafka_health, so tests and tools can use it on its own.
"""

from kafka_health.dev.devcluster.cluster import LocalCluster
from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.dev.devcluster.spec import ClusterSpec, transport_spec
from kafka_health.dev.devcluster.state import BrokerStatus

__all__ = ["BrokerStatus", "ClusterSpec", "DevClusterError", "LocalCluster", "transport_spec"]
