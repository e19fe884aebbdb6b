"""kafka-health: a real-time health monitor for Apache Kafka on Spark Structured Streaming."""

from kafka_health.config import MonitorConfig, load_config
from kafka_health.errors import ConfigError, KafkaHealthError

__all__ = ["ConfigError", "KafkaHealthError", "MonitorConfig", "load_config"]
__version__ = "0.1.0"
