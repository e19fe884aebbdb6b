"""The canary's two record schemas: the probe value and the probe outcome (versioned JSON).

Probe value, written to ``topics.canary`` (no key; the topic uses LogAppendTime)::

    {"schema":"kafka-health/canary/v1","canary_id":"kafka-health-canary","partition":0,
     "seq":1234,"acks":"all","send_ms":1767225600123}

Probe outcome, written to ``topics.canary_results`` (key ``<canary_id>/<partition>``)::

    {"schema":"kafka-health/canary-result/v1","canary_id":"kafka-health-canary",
     "topic":"__kafka_health_canary","partition":0,"seq":1234,"acks":"all",
     "send_ms":1767225600123,"done_ms":1767225600131,"outcome":"ok","latency_s":0.0079,
     "leader":2,"error":null,"error_message":null,"offset":5678,"log_append_ms":1767225600127}

``seq`` is strictly increasing per (canary_id, partition), shared by both ``acks`` modes, and
never reused, also across restarts; it has gaps (failed sends, unused reservations after a
restart), so lost writes are acknowledged outcomes whose ``seq`` never shows up in the canary
topic, not gaps. ``outcome`` is ``ok`` or ``failed``; on failure ``error`` is the Kafka error
class (``NotEnoughReplicas``, ``NotLeaderOrFollower``, ``RequestTimedOut``, ``Timeout``, ...),
``latency_s`` the time until the failure, ``offset`` and ``log_append_ms`` null. ``Timeout``
also means "no answer within ``canary.probe_deadline_s``": such an outcome is published at
the deadline, and a late answer of the same probe is never published (one outcome per
probe). ``leader`` is the partition's leader in the client's metadata at send time (null when
unknown). Outcomes are delivered at least once: deduplicate on (canary_id, partition, seq).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Literal

PROBE_SCHEMA = "kafka-health/canary/v1"
RESULT_SCHEMA = "kafka-health/canary-result/v1"
Acks = Literal["all", "1"]
Outcome = Literal["ok", "failed"]
MAX_ERROR_MESSAGE = 200


def _compact(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True).encode("ascii")


@dataclass(frozen=True)
class Probe:
    """One canary record: who sent it, where, its sequence number and when."""

    canary_id: str
    partition: int
    seq: int
    acks: Acks
    send_ms: int

    def encode(self) -> bytes:
        return _compact({"schema": PROBE_SCHEMA, **asdict(self)})

    @classmethod
    def decode(cls, raw: bytes) -> Probe:
        data = json.loads(raw)
        if data.get("schema") != PROBE_SCHEMA:
            raise ValueError(f"not a {PROBE_SCHEMA} record: {data.get('schema')!r}")
        return cls(data["canary_id"], data["partition"], data["seq"], data["acks"], data["send_ms"])


@dataclass(frozen=True)
class ProbeOutcome:
    """What happened to one probe."""

    canary_id: str
    topic: str
    partition: int
    seq: int
    acks: Acks
    send_ms: int
    done_ms: int
    outcome: Outcome
    latency_s: float
    leader: int | None
    error: str | None = None
    error_message: str | None = None
    offset: int | None = None
    log_append_ms: int | None = None

    @property
    def key(self) -> bytes:
        """The results record's key: one canary partition's outcomes stay in order."""
        return f"{self.canary_id}/{self.partition}".encode()

    def encode(self) -> bytes:
        data = asdict(self)
        data["latency_s"] = round(self.latency_s, 6)
        if self.error_message is not None:
            data["error_message"] = self.error_message[:MAX_ERROR_MESSAGE]
        return _compact({"schema": RESULT_SCHEMA, **data})

    @classmethod
    def decode(cls, raw: bytes) -> ProbeOutcome:
        data = json.loads(raw)
        if data.pop("schema", None) != RESULT_SCHEMA:
            raise ValueError(f"not a {RESULT_SCHEMA} record")
        return cls(**data)


def result_key(raw: bytes) -> bytes:
    """The key of an encoded outcome (the results topic's record key)."""
    data = json.loads(raw)
    return f"{data['canary_id']}/{data['partition']}".encode()
