"""The ``shipper`` section: the log shipper's schema."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from kafka_health.errors import ConfigProblem

ShipperFileKind = Literal["server", "controller", "state-change", "gc", "other"]


@dataclass(frozen=True)
class ShipperFileConfig:
    """One log file (``path``) or family of files (``glob``) of a broker, with its kind."""

    kind: ShipperFileKind = "other"
    path: str | None = None
    glob: str | None = None
    multiline_start: str | None = None
    """Regex matching the first line of an entry; other lines join the entry before them.
    Default: the parse's own (:data:`kafka_health.parsing.patterns.ENTRY_START`, a timestamp,
    a bracketed decorator, a JDK 8 uptime stamp, a JSON layout's ``{``, a level word), so that
    the live path and replay join a file's lines alike."""

    @property
    def pattern(self) -> str:
        """The configured path or glob (also the bounded ``file`` label of the metrics)."""
        return self.path if self.path is not None else (self.glob or "")

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if (self.path is None) == (self.glob is None):
            problems.append(ConfigProblem(path, "a file needs exactly one of 'path' or 'glob'"))
        elif not self.pattern.strip():
            problems.append(ConfigProblem(f"{path}.{'path' if self.path else 'glob'}", "is empty"))
        if self.multiline_start is not None:
            try:
                re.compile(self.multiline_start)
            except re.error as exc:
                problems.append(
                    ConfigProblem(f"{path}.multiline_start", f"not a valid regex: {exc}")
                )
        return problems


@dataclass(frozen=True)
class ShipperBrokerConfig:
    """The log files of one broker, shipped with its id (the record key) and host name."""

    broker_id: str = ""
    host: str = ""
    files: list[ShipperFileConfig] = field(default_factory=list)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not self.broker_id.strip():
            problems.append(ConfigProblem(f"{path}.broker_id", "is required"))
        if not self.files:
            problems.append(ConfigProblem(f"{path}.files", "list at least one file"))
        return problems


@dataclass(frozen=True)
class ShipperConfig:
    """``kafka-health ship-logs``: which broker log files go to ``topics.broker_logs``, and how.

    Positions are written only after Kafka acknowledged the entries before them (at least
    once); ``buffer_max_entries`` bounds the entries read but not yet acknowledged, past which
    reading stops and the files themselves are the buffer.
    """

    brokers: list[ShipperBrokerConfig] = field(default_factory=list)
    positions_file: str = "var/shipper/positions.json"
    start_at: Literal["beginning", "end"] = "beginning"
    buffer_max_entries: int = 10_000
    max_entry_bytes: int = 64 * 1024
    flush_timeout_s: float = 2.0
    poll_interval_s: float = 0.25
    read_chunk_bytes: int = 256 * 1024
    rotated_grace_s: float = 5.0
    positions_interval_s: float = 1.0
    retry_backoff_s: float = 0.5
    retry_backoff_max_s: float = 10.0
    linger_ms: int = 20
    compression: Literal["none", "gzip"] = "none"
    metrics_host: str = "127.0.0.1"
    metrics_port: int | None = 9309
    """Port of the Prometheus /metrics endpoint; 0 picks a free one, null turns it off."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        ids = [b.broker_id for b in self.brokers]
        for i, broker_id in enumerate(ids):
            if broker_id and ids.index(broker_id) != i:
                problems.append(
                    ConfigProblem(f"{path}.brokers[{i}].broker_id", f"{broker_id!r} is repeated")
                )
        positive = (
            "buffer_max_entries", "flush_timeout_s", "poll_interval_s", "read_chunk_bytes",
            "retry_backoff_s", "retry_backoff_max_s",
        )  # fmt: skip
        for name in positive:
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        for name in ("rotated_grace_s", "positions_interval_s", "linger_ms"):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        if not 1024 <= self.max_entry_bytes <= 900 * 1024:
            problems.append(
                ConfigProblem(
                    f"{path}.max_entry_bytes",
                    "must be 1024 to 921600 (an entry and its envelope must fit in one record)",
                )
            )
        if self.retry_backoff_max_s < self.retry_backoff_s:
            problems.append(
                ConfigProblem(f"{path}.retry_backoff_max_s", "must be at least retry_backoff_s")
            )
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            problems.append(ConfigProblem(f"{path}.metrics_port", "must be 0 to 65535 or null"))
        if not self.positions_file.strip():
            problems.append(ConfigProblem(f"{path}.positions_file", "is required"))
        return problems
