"""Alerting: rules over the job's signals, a lifecycle per alert, causes named, delivery.

The streaming job builds one :class:`~kafka_health.alerting.service.AlertService` on the
driver, starts it, calls ``submit(signals)`` from ``foreachBatch`` and the job-health inputs
from its query listener, and stops it on shutdown. Rules: :mod:`.rules`; the lifecycle:
:mod:`.engine`.
"""
