"""A Spark standalone cluster on this machine (a master and workers, from the pyspark
installation): where the spark-submit test and the throughput benchmark's scale-out figure
run the job as it runs on a real cluster (executors in their own JVMs, Python workers of
their own, state and checkpoints in a folder every node sees)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from kafka_health.dev.devcluster.ports import free_ports, wait_for_port

REGISTERED = "Successfully registered with master"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


@contextmanager
def standalone_cluster(
    workdir: Path, workers: int = 1, cores: int = 1, memory: str = "1g", timeout_s: float = 120.0
) -> Iterator[str]:
    """Start a master and ``workers`` workers of ``cores`` cores each; yield the master URL
    once every worker registered; stop them all (SIGTERM, then SIGKILL) at the end."""
    workdir.mkdir(parents=True, exist_ok=True)
    port, ui, *worker_uis = free_ports(2 + workers)
    home = spark_home()
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_HOME": str(home),
        "SPARK_WORKER_DIR": str(workdir / "work"),
        "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),
    }
    spark_class = str(home / "bin" / "spark-class")
    master_url = f"spark://127.0.0.1:{port}"
    processes: list[subprocess.Popen[bytes]] = []
    with ExitStack() as logs:

        def start(name: str, args: list[str]) -> Path:
            log = workdir / f"{name}.log"
            out = logs.enter_context(open(log, "wb"))
            processes.append(
                subprocess.Popen([spark_class, *args], env=env, stdout=out, stderr=out)
            )
            return log

        try:
            start("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                             "--port", str(port), "--webui-port", str(ui)])  # fmt: skip
            wait_for_port(port, timeout_s)
            worker_args = ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                           "--cores", str(cores), "--memory", memory]  # fmt: skip
            worker_logs = [
                start(f"worker-{n}", [*worker_args, "--webui-port", str(worker_uis[n]), master_url])
                for n in range(workers)
            ]
            deadline = time.monotonic() + timeout_s
            for log in worker_logs:
                while REGISTERED not in log.read_text(errors="replace"):
                    if time.monotonic() > deadline:
                        tail = log.read_text(errors="replace")[-2000:]
                        raise RuntimeError(f"{log.name}: not registered in {timeout_s:g} s\n{tail}")
                    time.sleep(0.5)
            yield master_url
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
