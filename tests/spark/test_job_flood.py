"""The label flood (issue 55, item 4) on real parts: real Kafka, the real job, the real alert
service paging over HTTP to a real receiver. 100,000 records with random broker ids, topics
and error strings among a good timeline (``benchmarks/fuzz_job.py --flood`` prints the same
figures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from benchmarks.fuzz_job import FLOOD_CAP, flood

pytestmark = [pytest.mark.integration, pytest.mark.spark]

SEED = 20261204  # the same records every run: a failure reproduces


def test_a_flood_of_random_labels_is_rejected_capped_and_pages_once(
    kafka_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    result = flood(kafka_cluster.bootstrap_servers, 100_000, SEED, tmp_path, spark)
    summary = {k: v for k, v in result.items() if k != "signals_that_differ"}
    print(summary)  # the figures, for the record (BENCHMARKS.md takes them from the script)
    assert all(result["checks"].values()), (result["checks"], result["signals_that_differ"])
    reasons = {key.split("/", 1)[1] for key in result["rejected"]}
    assert {"bad_broker_id", "bad_topic", "bad_acks", "bad_partition", "too_long"} <= reasons
    assert result["rejected_total"] > 50_000, "most of the flood is rejected"
    assert result["series_max_per_signal"] <= FLOOD_CAP
    assert result["rejection_pages"] == 1
