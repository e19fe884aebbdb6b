"""The canary's outcomes and the prober's cluster-state records, checked before any detector
sees them.

They are the project's own JSON, but anything can be written to a topic: another tool's
records, a canary of another version, a producer with a broken clock. A record the detectors
cannot trust is rejected with a reason (counted, dead-lettered by the job), never folded in and
never a failed batch:

- ``not_json``, ``wrong_schema``, ``unknown_kind``;
- ``missing_field`` (a required field absent or null), ``wrong_type`` (a field of another
  JSON type: a detector doing arithmetic on it would fail the batch, every time it is replayed);
- ``future_timestamp`` (more than :data:`MAX_CLOCK_SKEW_MS` ahead of the job's clock: folded in,
  it would move the canary's windows into the future and blank every current value),
  ``ancient_timestamp`` (older than :data:`MAX_RECORD_AGE_MS`, Kafka's default retention);
  both only when the job runs on the wall clock (``now_ms`` given), not in a backfill;
- ``negative_latency`` (a latency below zero, or done before sent: a clock stepped back).

Events parsed from broker logs are Spark's output, typed by the parser; only their time is
checked (:func:`check_event`): a future one is rejected as ``future_timestamp``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from kafka_health.job.schemas import CLUSTER_STATE_SCHEMA_ID, RESULT_SCHEMA_ID

MAX_CLOCK_SKEW_MS = 300_000
"""A record stamped further ahead of the job's clock than this is from the future."""
MAX_RECORD_AGE_MS = 7 * 86_400_000
"""A record older than this (Kafka's default retention) is not live evidence."""

REJECT_REASONS = (
    "not_json", "wrong_schema", "unknown_kind", "missing_field", "wrong_type",
    "future_timestamp", "ancient_timestamp", "negative_latency",
)  # fmt: skip

SCHEMAS = {"outcome": RESULT_SCHEMA_ID, "cluster": CLUSTER_STATE_SCHEMA_ID}
CLUSTER_KINDS = ("partition", "snapshot", "broker")

_INT = (int,)
_NUMBER = (int, float)
_STR = (str,)
# Field -> (accepted JSON types, required). ``bool`` is not an ``int`` here.
_FIELDS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "outcome": {
        "partition": (_INT, True), "seq": (_INT, True), "send_ms": (_INT, True),
        "canary_id": (_STR, False), "acks": (_STR, False), "outcome": (_STR, False),
        "done_ms": (_INT, False), "latency_s": (_NUMBER, False), "leader": (_INT, False),
        "error": (_STR, False), "log_append_ms": (_INT, False),
    },
    "cluster": {
        "kind": (_STR, True), "snapshot_ms": (_INT, True), "topic": (_STR, False),
        "partition": (_INT, False), "leader": (_INT, False), "leader_epoch": (_INT, False),
        "min_isr": (_INT, False), "broker_id": (_INT, False), "live": ((bool,), False),
        "replicas": ((list,), False), "isr": ((list,), False), "brokers": (_INT, False),
    },
}  # fmt: skip
_INT_LISTS = ("replicas", "isr")
_TIMESTAMP = {"outcome": "send_ms", "cluster": "snapshot_ms"}


def check(tag: str, payload: str, now_ms: int | None = None) -> tuple[dict[str, Any] | None, str]:
    """``(record, "")`` for a record of kind ``tag`` (``outcome`` or ``cluster``) the
    detectors can trust, else ``(None, reason)``; timestamps are checked against ``now_ms``
    when it is given."""
    try:
        d = json.loads(payload)
    except ValueError:
        return None, "not_json"
    if not isinstance(d, dict) or d.get("schema") != SCHEMAS[tag]:
        return None, "wrong_schema"
    for name, (types, required) in _FIELDS[tag].items():
        value = d.get(name)
        if value is None:
            if required:
                return None, "missing_field"
            continue
        if not _is(value, types):
            return None, "wrong_type"
    if tag == "cluster":
        if d["kind"] not in CLUSTER_KINDS:
            return None, "unknown_kind"
        if any(not all(_is(x, _INT) for x in d.get(k) or ()) for k in _INT_LISTS):
            return None, "wrong_type"
    if now_ms is not None:
        stamp = d[_TIMESTAMP[tag]]
        if stamp > now_ms + MAX_CLOCK_SKEW_MS:
            return None, "future_timestamp"
        if stamp < now_ms - MAX_RECORD_AGE_MS:
            return None, "ancient_timestamp"
    if tag == "outcome":
        latency, done = d.get("latency_s"), d.get("done_ms")
        if (latency is not None and latency < 0) or (done is not None and done < d["send_ms"]):
            return None, "negative_latency"
    return d, ""


def check_event(event: dict[str, Any], now_ms: int | None) -> str:
    """``""`` for a parsed broker-log event the detectors can take, else the reason: an event
    stamped more than :data:`MAX_CLOCK_SKEW_MS` ahead of ``now_ms`` (a mutated or corrupt
    line, a broker clock or ``parsing.log_timezone`` that is wrong) would move the log
    windows' clock into the future and blank every log signal after it."""
    stamp = event.get("event_ms")
    if now_ms is not None and isinstance(stamp, int) and stamp > now_ms + MAX_CLOCK_SKEW_MS:
        return "future_timestamp"
    return ""


def _is(value: Any, types: tuple[type, ...]) -> bool:
    """``value`` is of one of ``types`` (a JSON boolean is not a number here, nor NaN or
    Infinity; an integral float is not an int: ``1.0`` as a partition is another writer's)."""
    if isinstance(value, bool):
        return bool in types
    if isinstance(value, float) and not math.isfinite(value):  # NaN, Infinity: not JSON
        return False
    return isinstance(value, types)
