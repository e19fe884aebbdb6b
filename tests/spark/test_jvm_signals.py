"""A SIGTERM to the job's whole process group is the job's Python's to act on, not the JVM's.

A process builds the project's SparkSession, runs a streaming query (idle between two batches)
and, on SIGTERM, takes two seconds (a batch finishing) before it stops the query and Spark. The
test sends SIGTERM to its process group, as systemd and the fault bench do. With the JVM
ignoring SIGTERM the query stops as "Stopped" and nothing is logged by py4j; the JVM ends when
its Python does. The same script with pyspark's own launch (argv[1] "plain") shows the race the
module prevents: the JVM's shutdown hook stops Spark first. Under ``spark-submit`` the JVM
starts first: the recipe of docs/operations.md (``trap '' TERM; exec spark-submit ...``) gives
it the same inherited SIG_IGN."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev.spark_standalone import spark_home
from tests.support.processes import ignores_sigterm

pytestmark = [pytest.mark.spark]

SCRIPT = """
import logging, signal, sys, threading, time
logging.basicConfig(level=logging.INFO, stream=sys.stderr)
from kafka_health.spark.config import SparkConfig
from kafka_health.spark import session as factory

if sys.argv[1] == "plain":  # pyspark's own launch, for the control case
    from contextlib import nullcontext
    factory.gateway_ignores_sigterm = lambda: nullcontext(True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
spark = factory.build_spark_session(SparkConfig(master="local[1]", pretouch_heap=False))
jvm = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
# Idle between two batches when the signal comes (a stop during a batch has Spark log the
# cancelled task's trace, which is not the race this is about).
query = (
    spark.readStream.format("rate").load()
    .writeStream.format("noop").trigger(processingTime="1 hour").start()
)
while query.lastProgress is None:
    time.sleep(0.1)
print(f"ready {jvm}", flush=True)
stop.wait()
time.sleep(2)
try:
    query.stop()
    print("query:", query.status["message"], flush=True)
    spark.stop()
    print("spark stopped", flush=True)
except Exception as exc:
    print("failed:", type(exc).__name__, flush=True)
"""


def stop_by_group_sigterm(tmp_path: Path, mode: str) -> tuple[str, str, int, bool]:
    """Run the script (``mode`` "guarded", "plain" or "spark-submit"), SIGTERM its group once
    ready; its output, the JVM's pid and whether the JVM ignored SIGTERM."""
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    env = dict(
        os.environ,
        PYTHONUNBUFFERED="1",
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    command = [sys.executable, str(script), mode]
    if mode == "spark-submit":
        submit = spark_home() / "bin" / "spark-submit"
        recipe = f"trap '' TERM; exec {submit} --master 'local[1]' {script} spark-submit"
        command = ["bash", "-c", recipe]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ready "), (line, proc.stderr and proc.stderr.read())
        jvm = int(line.split()[1])
        ignored = ignores_sigterm(jvm)
        os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return line + out, err, jvm, ignored


@pytest.mark.parametrize("mode", ["guarded", "spark-submit"])
def test_a_group_sigterm_leaves_the_stop_to_python(tmp_path: Path, mode: str) -> None:
    out, err, jvm, ignored = stop_by_group_sigterm(tmp_path, mode)
    assert ignored, "the JVM pyspark started does not ignore SIGTERM"
    assert "query: Stopped" in out, (out, err)
    assert "spark stopped" in out, (out, err)
    for trace in ("Traceback", "Py4JNetworkError", "ConnectionRefusedError", "Exception"):
        assert trace not in err, err
    deadline = time.monotonic() + 30
    while process_state(jvm) != "stopped" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert process_state(jvm) == "stopped", "the JVM outlived its Python process"


def test_without_it_the_jvm_stops_spark_under_the_query(tmp_path: Path) -> None:
    out, err, _, ignored = stop_by_group_sigterm(tmp_path, "plain")
    assert not ignored
    assert "failed:" in out and "query: Stopped" not in out, (out, err)  # the JVM went first
    assert "Answer from Java side is empty" in err, err
