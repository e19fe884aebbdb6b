"""A scaled-down fuzz run through the running job (``benchmarks/fuzz_job.py`` does 1,000,000
records): hostile log lines, malformed canary outcomes and cluster-state records among a good
timeline, on real Kafka and Spark."""

from __future__ import annotations

import pytest

from kafka_health.dev.fuzz_job import fuzz
from tests.support.job_support import BenchRunner

pytestmark = [pytest.mark.integration, pytest.mark.spark]

SEED = 20261124  # the same records every run: a failure reproduces


def test_hostile_records_are_counted_rejected_and_change_no_good_signal(
    bench_run: BenchRunner,
) -> None:
    result, reasons = bench_run(fuzz, 6000, SEED)
    assert result["signals_compared"] >= 10, "the comparison covers the good timeline's signals"
    assert {"wrong_type", "future_timestamp", "ancient_timestamp", "negative_latency"} <= reasons
    assert result["dead_letters_in_topic"] > sum(result["rejected"].values()), (
        "hostile log lines are dead-lettered too"
    )
