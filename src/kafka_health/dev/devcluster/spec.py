"""What dev cluster to start: ``ClusterSpec``, and the transport cluster beside a monitored one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kafka_health.dev.devcluster.security import CERT_DAYS, Security

Mode = Literal["kraft", "zookeeper"]


@dataclass(frozen=True)
class ClusterSpec:
    """What cluster to start."""

    dir: Path
    brokers: int = 3
    mode: Mode = "kraft"
    kafka_version: str = "4.1.1"
    zookeeper_kafka_version: str = "3.9.1"
    cache_dir: Path = Path("~/.cache/kafka-health/kafka")
    heap: str = "256m"
    zookeeper_session_timeout_ms: int = 6000
    broker_overrides: dict[str, str] = field(default_factory=dict)
    security: Security = "none"
    """A secured client listener beside PLAINTEXT: ``sasl`` (SCRAM-SHA-512, KRaft only) or
    ``tls`` (a CA and certificate made for the run); see :mod:`.security`."""
    cert_days: int = CERT_DAYS
    """``tls``: how many days the broker certificate is valid."""

    @property
    def version(self) -> str:
        return self.kafka_version if self.mode == "kraft" else self.zookeeper_kafka_version


def transport_spec(monitored: ClusterSpec, directory: Path | None = None) -> ClusterSpec:
    """A 1-broker KRaft cluster to carry the monitor's own topics beside ``monitored``: same
    Kafka version, cache and heap; its folder defaults to ``<monitored dir>-transport``.

    A fault injected into the monitored cluster then leaves the monitor's evidence (canary
    results, broker logs, cluster state) flowing.
    """
    return ClusterSpec(
        dir=directory or monitored.dir.parent / f"{monitored.dir.name}-transport",
        brokers=1,
        mode="kraft",
        kafka_version=monitored.kafka_version,
        cache_dir=monitored.cache_dir,
        heap=monitored.heap,
    )
