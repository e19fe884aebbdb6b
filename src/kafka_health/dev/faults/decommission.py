"""A planned decommission, as an operator does it, and the check that the broker left the
monitor.

1. ``kafka-reassign-partitions``: every partition with a replica on the broker (the canary
   topic's too) is reassigned to its other replicas (Admin ``alterPartitionReassignments``),
   and the reassignment waited for;
2. controlled shutdown (SIGTERM);
3. KRaft: the stopped broker stays registered (fenced) until it is unregistered
   (``kafka-cluster.sh unregister --id N``, Admin ``unregisterBroker``, KIP-631; KIP-1073:
   until then Kafka still assigns new partitions to it). ZooKeeper: its ephemeral znode goes
   with the shutdown, nothing to do.

The UnregisterBroker request (API key 64, v0, flexible) is sent on a socket of its own:
kafka-python has no call for it, and the dev cluster's runtime has no ``kafka-tools`` jar.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterable
from typing import Any

from kafka_health.dev.faults.monitor import Sample
from kafka_health.model import SIGNALS

PREFIX = "kafka_health_"
"""The exporter's prefix of every series (``alerting.exporter``)."""

UNREGISTER_BROKER = 64
NONE = 0
BROKER_ID_NOT_REGISTERED = 102
REASSIGN_WAIT_S = 120.0

Assignment = dict[tuple[str, int], list[int]]


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_uvarint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def unregister_request(broker_id: int, correlation: int, client_id: str) -> bytes:
    """The framed UnregisterBroker v0 request: header v2 (flexible), then the body."""
    name = client_id.encode()
    header = struct.pack(">hhih", UNREGISTER_BROKER, 0, correlation, len(name)) + name
    body = struct.pack(">i", broker_id) + _uvarint(0)
    message = header + _uvarint(0) + body
    return struct.pack(">i", len(message)) + message


def parse_unregister_response(payload: bytes, correlation: int) -> tuple[int, str | None]:
    """(error code, error message) of an UnregisterBroker v0 response (header v1)."""
    (got,) = struct.unpack(">i", payload[:4])
    if got != correlation:
        raise ConnectionError(f"correlation id {got}, expected {correlation}")
    tags, at = _read_uvarint(payload, 4)
    for _ in range(tags):  # header tagged fields: skipped
        _tag, at = _read_uvarint(payload, at)
        size, at = _read_uvarint(payload, at)
        at += size
    _throttle, error = struct.unpack(">ih", payload[at : at + 6])
    length, at = _read_uvarint(payload, at + 6)
    message = None if length == 0 else payload[at : at + length - 1].decode("utf-8", "replace")
    return error, message


def unregister_broker(bootstrap: str, broker_id: int, timeout_s: float = 10.0) -> int:
    """Unregister ``broker_id`` through the broker at ``bootstrap`` (it forwards the request
    to the active controller). Returns the error code: 0, or 102 (not registered: already
    gone); raises on any other."""
    host, _, port = bootstrap.rpartition(":")
    correlation = 1
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s) as sock:
        sock.settimeout(timeout_s)
        sock.sendall(unregister_request(broker_id, correlation, "kafka-health-faults"))
        (size,) = struct.unpack(">i", _read_exact(sock, 4))
        error, message = parse_unregister_response(_read_exact(sock, size), correlation)
    if error not in (NONE, BROKER_ID_NOT_REGISTERED):
        raise RuntimeError(f"UnregisterBroker {broker_id} failed: error {error} ({message})")
    return error


def _read_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return data


# ------------------------------------------------------------------ reassignment


def assignment(admin: Any) -> Assignment:
    """Every partition's replicas (internal topics included)."""
    return {
        (str(t["name"]), int(p["partition_index"])): [int(b) for b in p["replica_nodes"]]
        for t in admin.describe_topics()
        if int(t.get("error_code", 0)) == 0
        for p in t["partitions"]
    }


def without(current: Assignment, broker_id: int) -> Assignment:
    """The reassignment that takes ``broker_id`` out of every replica set it is in (the other
    replicas keep their order, so the preferred leader is the next one)."""
    return {
        tp: [b for b in replicas if b != broker_id]
        for tp, replicas in current.items()
        if broker_id in replicas and len(replicas) > 1
    }


def reassign(admin: Any, target: Assignment, timeout_s: float = REASSIGN_WAIT_S) -> float:
    """Apply ``target`` and wait until every partition has exactly those replicas and no
    reassignment runs; the seconds it took."""
    from kafka.structs import TopicPartition

    started = time.monotonic()
    if not target:
        return 0.0
    moves = {TopicPartition(t, p): replicas for (t, p), replicas in target.items()}
    refused = {tp: e for tp, e in admin.alter_partition_reassignments(moves).items() if e}
    if refused:
        raise RuntimeError(f"reassignment refused: {refused}")
    while True:
        now = assignment(admin)
        done = all(now.get(tp) == replicas for tp, replicas in target.items())
        if done and not admin.list_partition_reassignments():
            return round(time.monotonic() - started, 1)
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(f"reassignment not done within {timeout_s:.0f} s")
        time.sleep(1.0)


def samples_about(metrics: dict[Sample, float], broker_id: int) -> list[str]:
    """The job's signal series (``kafka_health_<signal>`` of the catalogue) and active alerts
    (``kafka_health_alert_active``) at /metrics that name ``broker_id``. Not the alert
    service's maintenance windows (``kafka_health_broker_maintenance``): a broker that logged
    a controlled shutdown is in maintenance for ``alerting.maintenance_window_s``, which is
    what keeps its leaving silent, not a series of the broker's own."""
    wanted = str(broker_id)
    names = {f"{PREFIX}{name}" for name in SIGNALS} | {f"{PREFIX}alert_active"}
    return sorted(
        f"{name}{{{', '.join(f'{k}={v}' for k, v in lbl)}}}"
        for (name, lbl), _value in metrics.items()
        if name in names and dict(lbl).get("broker_id") == wanted
    )


def in_maintenance(metrics: dict[Sample, float]) -> list[str]:
    """The brokers the alert service holds in maintenance (``broker_maintenance``), as text."""
    return sorted(
        ", ".join(f"{k}={v}" for k, v in lbl)
        for (name, lbl), value in metrics.items()
        if name == f"{PREFIX}broker_maintenance" and value > 0
    )


def alerts_open(metrics: dict[Sample, float]) -> list[str]:
    """The active alerts /metrics shows (``kafka_health_alert_active``), as text."""
    return sorted(
        ", ".join(f"{k}={v}" for k, v in lbl)
        for (name, lbl), value in metrics.items()
        if name == "kafka_health_alert_active" and value > 0
    )


def brokers_of(current: Assignment) -> Iterable[int]:
    return sorted({b for replicas in current.values() for b in replicas})
