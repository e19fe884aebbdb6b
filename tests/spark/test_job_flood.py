"""The label flood (issue 55, item 4) on real parts: real Kafka, the real job, the real alert
service paging over HTTP to a real receiver. 100,000 records with random broker ids, topics
and error strings among a good timeline (``benchmarks/fuzz_job.py --flood`` prints the same
figures)."""

from __future__ import annotations

import pytest

from kafka_health.dev.flood_job import FLOOD_CAP, flood
from tests.support.job_support import BenchRunner

pytestmark = [pytest.mark.integration, pytest.mark.spark]

SEED = 20261204  # the same records every run: a failure reproduces


def test_a_flood_of_random_labels_is_rejected_capped_and_pages_once(bench_run: BenchRunner) -> None:
    result, reasons = bench_run(flood, 100_000, SEED)
    print(result)  # the figures, for the record (BENCHMARKS.md takes them from the script)
    assert {"bad_broker_id", "bad_topic", "bad_acks", "bad_partition", "too_long"} <= reasons
    assert result["rejected_total"] > 50_000, "most of the flood is rejected"
    assert result["series_max_per_signal"] <= FLOOD_CAP
    assert result["rejection_pages"] == 1
