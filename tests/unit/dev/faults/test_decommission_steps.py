"""The decommission's own parts: the UnregisterBroker exchange on the wire, the reassignment
that takes a broker out of every replica set, what /metrics still says about it."""

from __future__ import annotations

import socket
import struct
import threading

import pytest

from kafka_health.dev.faults.decommission import (
    alerts_open,
    in_maintenance,
    parse_unregister_response,
    samples_about,
    unregister_broker,
    unregister_request,
    without,
)
from kafka_health.dev.faults.monitor import Sample


def test_the_request_is_unregister_broker_v0_with_a_flexible_header() -> None:
    framed = unregister_request(3, 7, "cid")
    (size,) = struct.unpack(">i", framed[:4])
    assert size == len(framed) - 4
    api_key, version, correlation, name_len = struct.unpack(">hhih", framed[4:14])
    assert (api_key, version, correlation, name_len) == (64, 0, 7, 3)
    assert framed[14:17] == b"cid"
    assert framed[17:] == b"\x00" + struct.pack(">i", 3) + b"\x00"  # tags, broker id, tags


def response(correlation: int, error: int, message: str | None) -> bytes:
    text = b"\x00" if message is None else bytes([len(message) + 1]) + message.encode()
    return struct.pack(">i", correlation) + b"\x00" + struct.pack(">ih", 0, error) + text + b"\x00"


def test_the_response_gives_its_error_code_and_message() -> None:
    assert parse_unregister_response(response(7, 0, None), 7) == (0, None)
    assert parse_unregister_response(response(7, 102, "not registered"), 7) == (
        102, "not registered",
    )  # fmt: skip
    with pytest.raises(ConnectionError):
        parse_unregister_response(response(8, 0, None), 7)


def serve_once(answer: bytes) -> tuple[str, list[bytes]]:
    """A one-shot broker on loopback: reads one request, sends ``answer`` framed."""
    server = socket.create_server(("127.0.0.1", 0))
    got: list[bytes] = []

    def run() -> None:
        conn, _ = server.accept()
        with conn:
            (size,) = struct.unpack(">i", conn.recv(4))
            got.append(conn.recv(size))
            conn.sendall(struct.pack(">i", len(answer)) + answer)
        server.close()

    threading.Thread(target=run, daemon=True).start()
    return f"127.0.0.1:{server.getsockname()[1]}", got


def test_unregister_accepts_done_and_already_gone_and_raises_on_a_refusal() -> None:
    for error in (0, 102):
        where, got = serve_once(response(1, error, None))
        assert unregister_broker(where, 3, timeout_s=5.0) == error
        assert got and got[0][:2] == struct.pack(">h", 64)
    where, _ = serve_once(response(1, 41, "not controller"))
    with pytest.raises(RuntimeError, match="error 41"):
        unregister_broker(where, 3, timeout_s=5.0)


def test_without_takes_the_broker_out_of_every_replica_set_it_is_in() -> None:
    current = {("a", 0): [1, 2, 3], ("a", 1): [3, 1, 2], ("b", 0): [1, 2], ("c", 0): [3]}
    assert without(current, 3) == {("a", 0): [1, 2], ("a", 1): [1, 2]}


def test_what_metrics_still_say_about_a_broker() -> None:
    metrics: dict[Sample, float] = {
        ("kafka_health_log_stream_age_seconds", (("broker_id", "3"), ("kind", "gc"))): 5.0,
        ("kafka_health_log_stream_age_seconds", (("broker_id", "1"), ("kind", "gc"))): 5.0,
        ("kafka_health_alert_active", (("alertname", "X"), ("broker_id", "2"))): 1.0,
        ("kafka_health_alert_active", (("alertname", "Y"), ("broker_id", "1"))): 0.0,
        ("kafka_health_alert_active", (("alertname", "Z"), ("broker_id", "3"))): 1.0,
        ("kafka_health_broker_maintenance", (("broker_id", "3"), ("source", "x"))): 1.0,
        ("kafka_health_job_codegen_compiles_total", (("broker_id", "3"),)): 1.0,
    }
    assert samples_about(metrics, 3) == [
        "kafka_health_alert_active{alertname=Z, broker_id=3}",
        "kafka_health_log_stream_age_seconds{broker_id=3, kind=gc}",
    ]
    assert alerts_open(metrics) == ["alertname=X, broker_id=2", "alertname=Z, broker_id=3"]
    assert in_maintenance(metrics) == ["broker_id=3, source=x"]
