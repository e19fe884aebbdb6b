"""The job submitted with spark-submit to a standalone master and worker computes the same
signals as in local mode: nothing depends on the driver's process or driver-local paths."""

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

import pyspark
import pytest

from kafka_health.config import dump_redacted
from kafka_health.devcluster.cluster import free_ports, wait_for_port
from kafka_health.job.main import run_once
from tests.spark.job_support import create_topics, job_config, produce
from tests.spark.test_job_canary_signals import outcome, slot_start

pytestmark = [pytest.mark.integration, pytest.mark.spark]

REPO = Path(__file__).resolve().parents[2]
SPARK_HOME = Path(pyspark.__file__).parent


@pytest.fixture
def standalone_master(tmp_path: Path) -> Iterator[str]:
    """A Spark standalone master and one worker (1 core) from the pyspark installation."""
    port, ui, worker_ui = free_ports(3)
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_WORKER_DIR": str(tmp_path / "work"),
        "PYSPARK_PYTHON": sys.executable,
    }
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    master_url = f"spark://127.0.0.1:{port}"
    logs = [open(tmp_path / n, "w") for n in ("master.log", "worker.log")]  # noqa: SIM115
    master = subprocess.Popen(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
         "--port", str(port), "--webui-port", str(ui)],
        env=env, stdout=logs[0], stderr=subprocess.STDOUT,
    )  # fmt: skip
    worker = None
    try:
        wait_for_port(port, 120)
        worker = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
             "--cores", "1", "--memory", "1g", "--webui-port", str(worker_ui), master_url],
            env=env, stdout=logs[1], stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while "Successfully registered with master" not in (tmp_path / "worker.log").read_text():
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-2000:]
            time.sleep(0.5)
        yield master_url
    finally:
        for process in (worker, master):
            if process is not None:
                process.terminate()
                process.wait(timeout=60)
        for log in logs:
            log.close()


def signature(signals: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(
        (s["name"], tuple(sorted(s["labels"].items())), round(s["value"], 6)) for s in signals
    )


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

    local = [
        {"name": s.name, "labels": dict(s.labels), "value": s.value}
        for s in run_once(config)
        if not s.name.startswith("job_")
    ]
    assert any(s["name"] == "canary_sends" for s in local)

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
