"""Alerting: rules over the job's signals, a lifecycle per alert, causes named, delivery.

The streaming job builds one :class:`AlertService` on the driver, starts it, calls
``submit(signals)`` from ``foreachBatch`` and the job-health inputs from its query listener,
and stops it on shutdown.
"""

from kafka_health.lazy import lazy_names

__all__ = ["Alert", "AlertRulesConfig", "AlertService", "AlertState", "load_rules", "parse_rules"]

_HOMES = {
    "Alert": "kafka_health.alerting.engine",
    "AlertState": "kafka_health.alerting.engine",
    "AlertRulesConfig": "kafka_health.alerting.rules",
    "load_rules": "kafka_health.alerting.rules",
    "parse_rules": "kafka_health.alerting.rules",
    "AlertService": "kafka_health.alerting.service",
}


__getattr__ = lazy_names(__name__, _HOMES)
