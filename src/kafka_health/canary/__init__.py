"""The canary: one ``acks=all`` probe per partition of the canary topic every interval.

Modules, one job each: ``topic`` (the canary topic's layout), ``sequence`` (sequence numbers
that survive restarts), ``prober`` (the probe loop), ``records`` (record schemas), ``buffer``
and ``results`` (outcomes to the results topic, none missing), ``metrics`` (its own
/metrics). The process that wires them is :mod:`kafka_health.services.canary`; the error
classes and the injected clock are :mod:`kafka_health.failures` and :mod:`kafka_health.clock`.
Record schemas: ``docs/records.md``.
"""
