"""kafka-health: a real-time health monitor for Apache Kafka on Spark Structured Streaming.

The configuration is :mod:`kafka_health.config`; the command line :mod:`kafka_health.cli`.
"""

__version__ = "0.1.0"
