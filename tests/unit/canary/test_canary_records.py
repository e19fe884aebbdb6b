"""The canary's record schemas, byte for byte: the streaming job parses exactly these."""

from __future__ import annotations

from kafka_health.canary.records import Probe, ProbeOutcome, result_key

PROBE = Probe("c1", 2, 41, "all", 1767225600123)
OK = ProbeOutcome("c1", "canary", 2, 41, "all", 1767225600123, 1767225600130, "ok", 0.0071234567,
                  leader=3, offset=9, log_append_ms=1767225600127)  # fmt: skip
FAILED = ProbeOutcome("c1", "canary", 2, 42, "1", 1767225601123, 1767225611124, "failed", 10.001,
                      leader=None, error="RequestTimedOut", error_message="x" * 300)  # fmt: skip


def test_probe_value_is_compact_versioned_json() -> None:
    assert PROBE.encode() == (
        b'{"schema":"kafka-health/canary/v1","canary_id":"c1","partition":2,"seq":41,'
        b'"acks":"all","send_ms":1767225600123}'
    )
    assert Probe.decode(PROBE.encode()) == PROBE


def test_successful_outcome_record() -> None:
    assert OK.encode() == (
        b'{"schema":"kafka-health/canary-result/v1","canary_id":"c1","topic":"canary",'
        b'"partition":2,"seq":41,"acks":"all","send_ms":1767225600123,"done_ms":1767225600130,'
        b'"outcome":"ok","latency_s":0.007123,"leader":3,"error":null,"error_message":null,'
        b'"offset":9,"log_append_ms":1767225600127}'
    )


def test_failed_outcome_record_truncates_the_message() -> None:
    decoded = ProbeOutcome.decode(FAILED.encode())
    assert decoded.error == "RequestTimedOut" and decoded.leader is None
    assert decoded.error_message == "x" * 200, "messages are bounded so records stay small"
    assert decoded.offset is None and decoded.log_append_ms is None


def test_results_key_keeps_one_canary_partition_in_order() -> None:
    assert OK.key == result_key(OK.encode()) == b"c1/2"
