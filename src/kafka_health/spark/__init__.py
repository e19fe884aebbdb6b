"""Spark integration: the session factory."""

from kafka_health.lazy import lazy_names

__all__ = ["build_spark_session", "kafka_connector_coordinates"]

_HOMES = {
    "build_spark_session": "kafka_health.spark.session",
    "kafka_connector_coordinates": "kafka_health.spark.session",
}


__getattr__ = lazy_names(__name__, _HOMES)
