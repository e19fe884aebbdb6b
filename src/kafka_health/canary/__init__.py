"""The canary: one ``acks=all`` probe per partition of the canary topic every interval.

Modules, one job each: ``topic`` (the canary topic's layout), ``sequence`` (sequence numbers
that survive restarts), ``prober`` (the probe loop), ``records`` (record schemas), ``failures``
(error classes), ``buffer`` and ``results`` (outcomes to the results topic, none missing),
``metrics`` (its own /metrics), ``service`` (wiring), ``clock`` (injected time).
Record schemas: ``docs/records.md``.
"""

from typing import Any

from kafka_health.canary.records import Probe, ProbeOutcome

__all__ = ["CanaryService", "ClusterStateService", "Probe", "ProbeOutcome"]


def __getattr__(name: str) -> Any:
    """The services load lazily: ``cluster_state`` imports this package's clock."""
    if name in ("CanaryService", "ClusterStateService"):
        from kafka_health.canary import service

        return getattr(service, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
