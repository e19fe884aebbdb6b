"""The driver's compile count on /metrics (exact exposition), and no sample when the JVM is
gone."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from kafka_health.job.codegen import CodegenCompiles


def test_the_count_is_a_counter_read_at_each_scrape() -> None:
    count = [85]
    registry = CollectorRegistry()
    registry.register(CodegenCompiles(lambda: count[0]))
    assert generate_latest(registry).decode().splitlines()[-1] == (
        "kafka_health_job_codegen_compiles_total 85.0"
    )
    count[0] = 91
    assert generate_latest(registry).decode().splitlines()[-1] == (
        "kafka_health_job_codegen_compiles_total 91.0"
    )


def test_an_unreadable_count_leaves_the_sample_out() -> None:
    def gone() -> int:
        raise ConnectionRefusedError("the JVM is gone")

    registry = CollectorRegistry()
    registry.register(CodegenCompiles(gone))
    assert "codegen" not in generate_latest(registry).decode()
