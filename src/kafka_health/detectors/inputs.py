"""What the detectors read: decoded records of the monitor's topics, one batch at a time.

The streaming job builds these from its micro-batch (Spark decodes and parses; only events and
the few canary and cluster-state records reach Python); tests build them by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

UNKNOWN_BROKER = "unknown"
"""The ``broker_id`` of a probe whose leader the canary did not know at send time."""


@dataclass(frozen=True)
class Outcome:
    """A canary probe's outcome (``kafka_health.canary.records.ProbeOutcome``)."""

    canary_id: str
    partition: int
    seq: int
    acks: str
    send_ms: int
    done_ms: int | None
    ok: bool
    latency_s: float | None = None
    leader: int | None = None
    error: str | None = None
    log_append_ms: int | None = None

    @property
    def leader_id(self) -> str:
        """The leader at send time as a ``broker_id`` label."""
        return UNKNOWN_BROKER if self.leader is None else str(self.leader)


@dataclass(frozen=True)
class ProbeSeen:
    """A canary probe record found in the canary topic, at ``offset``."""

    canary_id: str
    partition: int
    seq: int
    acks: str
    send_ms: int
    offset: int


@dataclass(frozen=True)
class ClusterRecord:
    """A prober record: ``kind`` is ``partition``, ``broker`` or ``snapshot`` (a snapshot's
    closing record); ``at_ms`` the snapshot's time; ``brokers`` (closing record) how many
    broker records the snapshot holds. A batch's records come in no particular order (the
    job collects them from an aggregation)."""

    kind: str
    at_ms: int
    topic: str | None = None
    partition: int | None = None
    leader: int | None = None
    leader_epoch: int | None = None
    replicas: tuple[int, ...] = ()
    isr: tuple[int, ...] = ()
    min_isr: int | None = None
    broker_id: int | None = None
    live: bool | None = None
    brokers: int | None = None


@dataclass(frozen=True)
class LogEvent:
    """A parsed broker log event (``kafka_health.parsing.events``), the fields detectors use."""

    type: str
    broker_id: str | None
    event_ms: int | None
    topic: str | None = None
    partition: int | None = None
    leader: int | None = None
    leader_epoch: int | None = None
    isr_after: tuple[int, ...] | None = None
    pause_s: float | None = None
    subject_broker_id: int | None = None
    session_timeout_ms: int | None = None
    log_dir: str | None = None  # log_dir_offline, log_dir_halt: the directory (or directories)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> LogEvent:
        """The event of a parsed record (its JSON object, or a Spark row as a dict), each
        field by its name: one it lacks is None (``type`` it must have)."""
        values: dict[str, Any] = {f.name: record.get(f.name) for f in fields(cls)}
        values["type"] = record["type"]
        isr = values["isr_after"]
        values["isr_after"] = None if isr is None else tuple(isr)
        return cls(**values)


@dataclass(frozen=True)
class LogStream:
    """Records of one broker's log kind seen in the batch (coverage)."""

    broker_id: str
    kind: str
    records: int


@dataclass
class Batch:
    """Everything one micro-batch brought, decoded."""

    outcomes: list[Outcome] = field(default_factory=list)
    probes: list[ProbeSeen] = field(default_factory=list)
    cluster: list[ClusterRecord] = field(default_factory=list)
    events: list[LogEvent] = field(default_factory=list)
    streams: list[LogStream] = field(default_factory=list)
    log_shipped_ms: int | None = None
    """The newest broker-log record's Kafka timestamp (when it was shipped), if it held any."""
