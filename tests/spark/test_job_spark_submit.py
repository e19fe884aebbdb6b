"""The job submitted with spark-submit to a standalone master and worker computes the same
signals as in local mode: nothing depends on the driver's process or driver-local paths. Broker
log records go through the parse on the worker's executor: the parser's jar reaches it only by
``--jars "$(kafka-health connector-jars)"``."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_health.config import dump_redacted
from kafka_health.dev.log_lines import envelope, gc_stamp
from kafka_health.dev.spark_standalone import spark_home, standalone_cluster
from kafka_health.job.main import run_once
from tests.spark.test_job_canary_signals import outcome, slot_start
from tests.support.job_support import create_topics, job_config, produce

pytestmark = [pytest.mark.integration, pytest.mark.spark]

REPO = Path(__file__).resolve().parents[2]
SPARK_HOME = spark_home()


@pytest.fixture
def standalone_master(tmp_path: Path) -> Iterator[str]:
    """A Spark standalone master and one worker (1 core) from the pyspark installation."""
    with standalone_cluster(tmp_path / "standalone", workers=1) as master_url:
        yield master_url


WALL_CLOCK = frozenset({"log_stream_age_seconds"})
"""Signals whose value is the time since a record, read when each run ends: compared by name
and labels only."""


def signature(signals: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(
        (s["name"], tuple(sorted(s["labels"].items())),
         None if s["name"] in WALL_CLOCK else round(s["value"], 6))
        for s in signals
    )  # fmt: skip


def test_spark_submit_to_standalone_gives_the_local_signals(
    kafka_cluster: Any, spark: Any, tmp_path: Path, standalone_master: str
) -> None:
    config = job_config(kafka_cluster, tmp_path / "local", loss_grace_s=5.0)
    create_topics(config, partitions=2)
    base = slot_start()
    results = []
    for i in range(200):
        partition = i % 2
        o = outcome(
            config.topics.canary, partition, i, base + i * 10, latency_s=(i + 1) / 1000,
            leader=partition + 1,
        )  # fmt: skip
        results.append((o.key, o.encode(), partition))
    produce(config, config.topics.canary_results, results)
    at = int(time.time() * 1000) - 5000
    gc_lines = [
        f"[{gc_stamp(at + i * 100)}][43.803s][info][gc             ] GC({i}) Pause Full "
        f"(G1 Compaction Pause) 450M->280M(512M) {200 + i}.000ms"
        for i in range(3)
    ]
    produce(
        config, config.topics.broker_logs, [(b"1", envelope("1", "gc", g), 0) for g in gc_lines]
    )

    local = [
        {"name": s.name, "labels": dict(s.labels), "value": s.value}
        for s in run_once(config)
        if not s.name.startswith("job_")
    ]
    assert any(s["name"] == "canary_sends" for s in local)
    gc = [s for s in local if s["name"] == "full_gc_count"]
    assert [s["value"] for s in gc] == [3], "the broker-log records were parsed"

    submitted = dataclasses.replace(
        config,
        spark=dataclasses.replace(
            config.spark,
            master=standalone_master,
            checkpoint_dir=str(tmp_path / "submitted" / "checkpoints"),
            conf={"spark.executor.memory": "512m", "spark.pyspark.python": sys.executable},
        ),
    )
    config_file = tmp_path / "monitor.yaml"
    config_file.write_text(dump_redacted(submitted))
    jars = subprocess.run(
        [sys.executable, "-m", "kafka_health.cli", "connector-jars", "--config", str(config_file)],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}  # fmt: skip
    env.pop("SPARK_HOME", None)
    result = subprocess.run(
        [str(SPARK_HOME / "bin" / "spark-submit"), "--master", standalone_master,
         "--jars", jars, str(REPO / "streaming" / "monitor_job.py"),
         "--config", str(config_file), "--once"],
        capture_output=True, text=True, env=env, timeout=900, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    remote = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    remote = [s for s in remote if not s["name"].startswith("job_")]
    assert signature(remote) == signature(local)
