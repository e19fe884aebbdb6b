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
- ``negative_latency`` (a latency below zero, or done before sent: a clock stepped back);
- values that become labels or detector state, checked at the door so that a flood of random
  ones makes no series, alert or state of its own: ``bad_broker_id`` (a broker id, leader,
  replica or ISR member that is not Kafka's int32 node id, 0 to 2147483647; a snapshot's
  leader may be -1, none), ``bad_partition`` (a partition outside 0 to 2147483647),
  ``bad_acks`` (``acks`` other than ``0``, ``1``, ``all``), ``bad_topic`` (a topic name
  Kafka would refuse: ``[a-zA-Z0-9._-]{1,249}``, not ``.`` or ``..``), ``too_long`` (a
  ``canary_id`` over :data:`TEXT_MAX_CHARS`).

A canary outcome's error class is kept only if it is one of :data:`ERROR_CLASSES` (the
canary's own classes, :func:`kafka_health.failures.classify` of every Kafka error,
with the ``Error`` and ``Exception`` suffixes other clients write); any other becomes
``other`` (a label value: ``canary_send_failures{error_class}``). It is not a rejection:
the outcome is still a failed send.

Events parsed from broker logs are Spark's output, typed by the parser; their broker id was
checked in the plan (the parser's decode, :mod:`kafka_health.parsing.udf`: a record naming
another is rejected there, ``bad_broker_id``, counted from the job's aggregation). Here only
their time and topic (:func:`check_event`): a future one is rejected as
``future_timestamp``, one whose topic is not a legal name as ``bad_topic``. The probes read
back from the canary topic (:func:`check_probe`) are checked as the outcomes are.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from typing import Any

import orjson
from kafka import errors as kafka_errors

from kafka_health.failures import classify
from kafka_health.job.schemas import CLUSTER_STATE_SCHEMA_ID, RESULT_SCHEMA_ID
from kafka_health.parsing.envelope import BROKER_ID_MAX

MAX_CLOCK_SKEW_MS = 300_000
"""A record stamped further ahead of the job's clock than this is from the future."""
MAX_RECORD_AGE_MS = 7 * 86_400_000
"""A record older than this (Kafka's default retention) is not live evidence."""

PARTITION_MAX = 2_147_483_647
"""A partition number is an int32 of at least 0."""
TEXT_MAX_CHARS = 256
"""The longest free text kept from a record (``canary_id``: detector state)."""
ACKS = ("0", "1", "all")
TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")
"""Kafka's legal topic name (``Topic.validate``; ``.`` and ``..`` are refused too)."""
OTHER_ERROR = "other"
"""The error class of a failed outcome whose class is not in :data:`ERROR_CLASSES`."""

REJECT_REASONS = (
    "not_json", "wrong_schema", "unknown_kind", "missing_field", "wrong_type",
    "future_timestamp", "ancient_timestamp", "negative_latency",
    "bad_broker_id", "bad_partition", "bad_acks", "bad_topic", "too_long",
)  # fmt: skip
"""Every reason a record is rejected for (the label ``reason`` of
``kafka_health_rejected_records_total``: a fixed set)."""


def _error_classes() -> frozenset[str]:
    """The canary's own error classes (:func:`classify` of every Kafka error class) and
    kafka-python's class names (``NotLeaderForPartitionError``: Kafka's older names), each
    bare and with the ``Error`` and ``Exception`` suffixes (the Java client's names, another
    canary's), and ``Unknown``."""
    names = {"Unknown"}
    for _name, kind in inspect.getmembers(kafka_errors, inspect.isclass):
        if not issubclass(kind, BaseException):
            continue
        for base in (classify(kind.__new__(kind)), kind.__name__.removesuffix("Error")):
            names |= {base, f"{base}Error", f"{base}Exception"}  # classify reads the class only
    return frozenset(names)


ERROR_CLASSES = _error_classes()
"""The error classes a canary outcome may carry (a fixed vocabulary); others are ``other``."""

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


_LONG_NUMBER = re.compile(r"\d{19}")


def json_loads(payload: str) -> Any:
    """``json.loads(payload)`` (a ValueError where it fails), read by orjson where the two
    read alike, 3-4 times faster (a cluster snapshot is a record a partition): not where a
    number has 19 digits or more (orjson reads one past 64 bits as a float), nor what orjson
    refuses and json reads (NaN, Infinity, 1e400, lone surrogates)."""
    if not _LONG_NUMBER.search(payload):
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            pass
    return json.loads(payload)


def check(tag: str, payload: str, now_ms: int | None = None) -> tuple[dict[str, Any] | None, str]:
    """``(record, "")`` for a record of kind ``tag`` (``outcome`` or ``cluster``) the
    detectors can trust, else ``(None, reason)``; timestamps are checked against ``now_ms``
    when it is given."""
    try:
        d = json_loads(payload)
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
    why = _cluster_values(d) if tag == "cluster" else _outcome_values(d)
    if why:
        return None, why
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
    windows' clock into the future and blank every log signal after it; a topic Kafka would
    refuse (a mutated line's, up to ``parsing.scan_chars`` long) would be a partition view of
    the ISR and election detectors."""
    stamp = event.get("event_ms")
    if now_ms is not None and isinstance(stamp, int) and stamp > now_ms + MAX_CLOCK_SKEW_MS:
        return "future_timestamp"
    topic = event.get("topic")
    if topic is not None and not legal_topic(topic):
        return "bad_topic"
    return ""


def check_probe(probe: dict[str, Any]) -> str:
    """``""`` for a probe read back from the canary topic (``from_json`` typed its fields)
    that the loss detector can take, else the reason (as :func:`check` gives for an outcome):
    each probe is a key of the loss detector's state."""
    return _outcome_values(probe)


def legal_topic(name: Any) -> bool:
    """Whether ``name`` is a topic name Kafka accepts (:data:`TOPIC_NAME`)."""
    return (
        isinstance(name, str) and name not in (".", "..") and TOPIC_NAME.fullmatch(name) is not None
    )


def known_error(error: str | None) -> str | None:
    """``error`` if it is one of :data:`ERROR_CLASSES` (or none), else :data:`OTHER_ERROR`."""
    return error if error is None or error in ERROR_CLASSES else OTHER_ERROR


def _broker(value: Any, lowest: int = 0) -> bool:
    """Whether ``value`` (an int, checked before) is a node id, or none."""
    return value is None or lowest <= value <= BROKER_ID_MAX


def _outcome_values(d: dict[str, Any]) -> str:
    """The reason an outcome's (or probe's) labels and keys cannot be taken, else ``""``; the
    error class is mapped to the vocabulary in place."""
    partition = d.get("partition")
    if partition is not None and not 0 <= partition <= PARTITION_MAX:
        return "bad_partition"
    if not _broker(d.get("leader")):
        return "bad_broker_id"
    if d.get("acks") is not None and d["acks"] not in ACKS:
        return "bad_acks"
    canary_id = d.get("canary_id")
    if canary_id is not None and len(canary_id) > TEXT_MAX_CHARS:
        return "too_long"
    if "error" in d:
        d["error"] = known_error(d["error"])
    return ""


def _cluster_values(d: dict[str, Any]) -> str:
    """The reason a cluster-state record's labels and keys cannot be taken, else ``""``."""
    topic = d.get("topic")
    if topic is not None and not legal_topic(topic):
        return "bad_topic"
    partition = d.get("partition")
    if partition is not None and not 0 <= partition <= PARTITION_MAX:
        return "bad_partition"
    ids = [d.get("broker_id"), *(d.get("replicas") or ()), *(d.get("isr") or ())]
    if not _broker(d.get("leader"), -1) or not all(_broker(b) for b in ids):
        return "bad_broker_id"
    return ""


def _is(value: Any, types: tuple[type, ...]) -> bool:
    """``value`` is of one of ``types`` (a JSON boolean is not a number here, nor NaN or
    Infinity; an integral float is not an int: ``1.0`` as a partition is another writer's)."""
    if isinstance(value, bool):
        return bool in types
    if isinstance(value, float) and not math.isfinite(value):  # NaN, Infinity: not JSON
        return False
    return isinstance(value, types)
