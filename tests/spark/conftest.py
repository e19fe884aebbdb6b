"""Fixtures of the streaming job's tests on real Kafka and Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.job_support import BenchRunner


@pytest.fixture
def bench_run(kafka_cluster: Any, spark: Any, tmp_path: Path) -> BenchRunner:
    """Runs of :mod:`kafka_health.dev.flood_job`, scaled down, on this test's Kafka and Spark."""
    return BenchRunner(kafka_cluster, spark, tmp_path)
