"""A scaled-down fuzz run through the running job (``benchmarks/fuzz_job.py`` does 1,000,000
records): hostile log lines, malformed canary outcomes and cluster-state records among a good
timeline, on real Kafka and Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from benchmarks.fuzz_job import fuzz

pytestmark = [pytest.mark.integration, pytest.mark.spark]

SEED = 20261124  # the same records every run: a failure reproduces


def test_hostile_records_are_counted_rejected_and_change_no_good_signal(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    result = fuzz(kafka_cluster.bootstrap_servers, 6000, SEED, tmp_path, spark)
    summary = {k: v for k, v in result.items() if k != "entries_by_outcome_reason"}
    assert all(result["checks"].values()), summary
    assert result["signals_compared"] >= 10, "the comparison covers the good timeline's signals"
    reasons = {key.split("/", 1)[1] for key in result["rejected"]}
    assert {"wrong_type", "future_timestamp", "ancient_timestamp", "negative_latency"} <= reasons
    assert result["dead_letters_in_topic"] > sum(result["rejected"].values()), (
        "hostile log lines are dead-lettered too"
    )
