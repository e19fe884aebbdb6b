"""Spark's log under the project's Log4j config holds what an operator can act on.

Every batch of the job ships its parse plan as a task binary of about 1.1 MB, and Spark's
DAGScheduler warns of any over 1,000 KiB: one line a batch; it also warns that a query stopped
between two batches had no job to cancel. Every streaming query's start warns that adaptive
execution is off in streaming, which Spark ensures itself. The first plan printed
with more than 25 columns is shortened, with a warning once a start. The config drops those
four messages and no other, and writes the Kafka source's warning at each retry of an offset
fetch on one line, without its stack trace. Each case runs in a JVM of its own (the config is
read once, at the JVM's start): once with the project's config, once with the same config less
the filters, which shows the job below does draw the warnings."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark]

DROPPED = (
    "Broadcasting large task binary",
    "spark.sql.adaptive.enabled is not supported in streaming",
    "Truncated the string representation of a plan",
    "Cannot find active jobs for it",
)
OTHERS = (
    "kafka-health probe: another DAGScheduler warning",
    "kafka-health probe: another streaming warning",
    "kafka-health probe: another string utils warning",
)
# The Kafka source's retries of an offset fetch: on one line, with the cause's message.
ATTEMPT = "kafka-health probe: Error in attempt 1 getting Kafka offsets: "
CAUSE = "kafka-health probe cause"
TRACED_LOGGER = "org.apache.spark.sql.kafka010.KafkaSource"
FILTERED_LOGGERS = ("logger.dagscheduler.", "logger.streaming.", "logger.stringutils.")

# A job whose task binary holds a 1.2 MB literal, a streaming query started and stopped, a plan
# of 30 columns printed, then a warning of each filtered logger that is not the dropped one's.
# argv[1]: a Log4j config to use instead of the project's, or "".
SCRIPT = f"""
import sys
from pyspark.sql import functions as F
from kafka_health.spark.config import SparkConfig
from kafka_health.spark.session import build_spark_session

conf = {{}}
if sys.argv[1]:
    conf["spark.driver.extraJavaOptions"] = "-Dlog4j2.configurationFile=" + sys.argv[1]
spark = build_spark_session(
    SparkConfig(master="local[1]", pretouch_heap=False, conf=conf)
)
big = F.lit("x" * 1_200_000)
rows = spark.range(1).select(F.length(F.concat(F.col("id").cast("string"), big))).collect()
assert rows[0][0] == 1_200_001, rows
query = spark.readStream.format("rate").load().writeStream.format("noop").start()
query.stop()
# Stopped between two batches: no job of its group to cancel.
idle = (
    spark.readStream.format("rate").load()
    .writeStream.format("noop").trigger(processingTime="1 hour").start()
)
import time
while idle.lastProgress is None:
    time.sleep(0.1)
idle.stop()
wide = spark.range(1).select(*[F.lit(i).alias(f"c{{i}}") for i in range(30)])
assert "more fields" in wide._jdf.queryExecution().toString()
jvm = spark.sparkContext._jvm
for name, message in (
    ("org.apache.spark.scheduler.DAGScheduler", "{OTHERS[0]}"),
    ("org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution", "{OTHERS[1]}"),
    ("org.apache.spark.util.SparkStringUtils", "{OTHERS[2]}"),
):
    jvm.org.apache.logging.log4j.LogManager.getLogger(name).warn(message)
for name in ("org.apache.spark.sql.kafka010.KafkaOffsetReaderAdmin", "{TRACED_LOGGER}"):
    cause = jvm.java.util.concurrent.ExecutionException(jvm.java.lang.RuntimeException("{CAUSE}"))
    jvm.org.apache.logging.log4j.LogManager.getLogger(name).warn("{ATTEMPT}", cause)
spark.stop()
print("done")
"""


def run_with(log_config: str) -> str:
    """The script's stderr (Spark's log) in a fresh JVM."""
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, log_config],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0 and run.stdout.strip().endswith("done"), run.stderr[-3000:]
    return run.stderr


def test_the_four_warnings_are_dropped_and_other_warnings_pass() -> None:
    log = run_with("")
    for dropped in DROPPED:
        assert dropped not in log
    for other in OTHERS:
        assert other in log


def test_the_offset_fetchs_retries_take_a_line_each_and_other_loggers_keep_their_traces() -> None:
    lines = run_with("").splitlines()
    brief = [k for k, line in enumerate(lines) if "KafkaOffsetReaderAdmin: " + ATTEMPT in line]
    assert len(brief) == 1, lines[-40:]
    line, after = lines[brief[0]], lines[brief[0] + 1]
    assert line.split(" ")[2] == "WARN" and line.endswith(
        f"{ATTEMPT}java.lang.RuntimeException: {CAUSE}"  # the ExecutionException's message
    ), line
    assert not after.startswith(("java.", "\tat ", "Caused by")), lines[brief[0] : brief[0] + 5]
    traced = [k for k, line in enumerate(lines) if line.endswith("KafkaSource: " + ATTEMPT)]
    assert len(traced) == 1, lines[-40:]
    trace = lines[traced[0] + 1 : traced[0] + 3]
    assert trace[0].startswith("java.util.concurrent.ExecutionException"), trace
    assert trace[1].startswith("\tat "), trace


def test_without_the_filters_the_same_job_draws_the_warnings(tmp_path: Path) -> None:
    project = resources.files("kafka_health.spark").joinpath("log4j2.properties").read_text()
    unfiltered = "\n".join(
        line for line in project.splitlines() if not line.startswith(FILTERED_LOGGERS)
    )
    assert unfiltered != project
    config = tmp_path / "log4j2.properties"
    config.write_text(unfiltered)
    log = run_with(str(config))
    for warning in (*DROPPED, *OTHERS):
        assert warning in log
