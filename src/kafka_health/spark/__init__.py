"""Spark integration: the session factory."""

from kafka_health.spark.session import build_spark_session, kafka_connector_coordinates

__all__ = ["build_spark_session", "kafka_connector_coordinates"]
