"""Run the job's batch (its tally and its dead letters' parse plan) in a fresh JVM and report
how HotSpot compiled its generated code.

    python tests/spark/jit_probe.py [--records N] [--runs R]

Prints one JSON object: every JIT compilation of a generated stage's ``processNext`` and of
the parser's own methods (``kafkahealth.parse``) seen while the plan ran (stage or method,
tier, succeeded) and how long the probe waited for the compiler to go quiet. A fresh JVM,
because a class compiled earlier in a test session's JVM would not be compiled again (and so
would say nothing). Used by ``test_parser_jit.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STAGE_CLASS = re.compile(r"GeneratedIteratorForCodegenStage(\d+)$")


def log_rows(records: int) -> list[tuple[Any, ...]]:
    """``records`` of the load generator's broker-log traffic as Kafka source rows."""
    from kafka_health.config import MonitorConfig
    from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic

    traffic = Traffic(ClusterShape(brokers=200, partitions=10_000, topics=100),
                      MonitorConfig().topics, seed=1)  # fmt: skip
    at = int(time.time() * 1000)
    stamp = datetime.datetime.fromtimestamp(at / 1000)
    lines = traffic.log_records(at, records)
    return [(key, value, topic, 0, n, stamp, 0) for n, (topic, key, value) in enumerate(lines)]


PARSER_PACKAGE = "kafkahealth.parse."


def compilations(jvm: Any, recording: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The recording's compilations of generated stages' ``processNext``, and of the parser's
    own methods (the Java UDF's classes, ``kafkahealth.parse``)."""
    stages, parser = [], []
    for event in jvm.jdk.jfr.consumer.RecordingFile.readAllEvents(
        jvm.java.io.File(str(recording)).toPath()
    ):
        method = event.getValue("method")
        if method is None:
            continue
        done = {
            "tier": int(event.getValue("compileLevel")),
            "succeeded": bool(event.getValue("succeded")),  # sic: JFR's field name
            "osr": bool(event.getValue("isOsr")),
        }
        owner = method.getType().getName()
        if owner.startswith(PARSER_PACKAGE):
            parser.append({"method": f"{owner[len(PARSER_PACKAGE) :]}.{method.getName()}", **done})
            continue
        stage = STAGE_CLASS.search(owner)
        if stage is not None and method.getName() == "processNext":
            stages.append({"stage": int(stage.group(1)), **done})
    return stages, parser


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--quiet-s", type=float, default=5.0)
    args = parser.parse_args()

    from kafka_health.config import MonitorConfig
    from kafka_health.job.batch import driver_rows, parsed_logs
    from kafka_health.parsing.deadletter import dead_letters
    from kafka_health.spark import build_spark_session

    config = MonitorConfig()
    spark = build_spark_session(config.spark)
    jvm: Any = spark.sparkContext._jvm
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: the repo
    from tests.support.job_support import KAFKA_COLUMNS

    frame = spark.createDataFrame(log_rows(args.records), KAFKA_COLUMNS).cache()
    frame.count()
    recording = jvm.jdk.jfr.Recording()
    recording.enable("jdk.Compilation").withThreshold(jvm.java.time.Duration.ZERO)
    recording.start()
    for _ in range(args.runs):  # a plan built again each run, as each batch's is
        driver_rows(frame, config)  # the job's batch: the JVM tally
        dead_letters(parsed_logs(frame, config)).collect()  # its dead letters' parse plan
    # The compiler works in the background: wait until it has compiled nothing new for a while.
    bean = jvm.java.lang.management.ManagementFactory.getCompilationMXBean()
    started = time.monotonic()
    last, since = bean.getTotalCompilationTime(), time.monotonic()
    while time.monotonic() - since < args.quiet_s and time.monotonic() - started < 120:
        time.sleep(0.5)
        now = bean.getTotalCompilationTime()
        if now != last:
            last, since = now, time.monotonic()
    recording.stop()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "jit.jfr"
        recording.dump(jvm.java.io.File(str(path)).toPath())
        stages, parsed = compilations(jvm, path)
    spark.stop()
    waited = round(time.monotonic() - started, 1)
    print(json.dumps({"compilations": stages, "parser": parsed, "waited_s": waited}))


if __name__ == "__main__":
    main()
