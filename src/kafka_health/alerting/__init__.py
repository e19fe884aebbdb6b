"""Alerting: rules over the job's signals, a lifecycle per alert, causes named, delivery.

The streaming job builds one :class:`AlertService` on the driver, starts it, calls
``submit(signals)`` from ``foreachBatch`` and the job-health inputs from its query listener,
and stops it on shutdown.
"""

from kafka_health.alerting.engine import Alert, AlertState
from kafka_health.alerting.rules import AlertRulesConfig, load_rules, parse_rules
from kafka_health.alerting.service import AlertService

__all__ = ["Alert", "AlertRulesConfig", "AlertService", "AlertState", "load_rules", "parse_rules"]
