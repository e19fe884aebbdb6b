"""The job's parse runs compiled (issue 12, point 3): every operator of its plan is in
whole-stage generated code (the parse's Java UDF is called from it), and every stage's
generated class compiles (Janino refuses a method past 64 KB; Spark then falls back to running
the operators one by one, silently, and in the streaming job it retried the failed compile
every batch). Measured by compiling each stage's generated code, as Spark does.

This test found the parse projection itself outside codegen once, when the parse was Spark's
built-in functions (one higher-order function took the whole regex projection out of it). Its
earlier version read Spark's debug stage statistics, which give -1 for a stage that fails to
compile, and so passed for weeks while the parse's main stage (2 MB of generated source) failed
to compile in every batch."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.job.batch import driver_rows, parsed_logs
from tests.support.job_support import KAFKA_COLUMNS

pytestmark = pytest.mark.spark

JANINO_METHOD_LIMIT_BYTES = 65535


def codegen_stages(node: Any) -> list[Any]:
    """Every WholeStageCodegenExec of a physical plan (through adaptive plans)."""
    name = node.getClass().getSimpleName()
    if name == "AdaptiveSparkPlanExec":
        return codegen_stages(node.executedPlan())
    found = [node] if name == "WholeStageCodegenExec" else []
    children = node.children()
    for i in range(children.size()):
        found += codegen_stages(children.apply(i))
    return found


def stage_sizes(spark: Any, frame: Any) -> dict[int, int | str]:
    """Per codegen stage id: the largest method's bytecode size, or why it did not compile."""
    codegen = spark._jvm.org.apache.spark.sql.catalyst.expressions.codegen
    compiler = getattr(codegen, "CodeGenerator$").__getattr__("MODULE$")
    sizes: dict[int, int | str] = {}
    for stage in codegen_stages(frame._jdf.queryExecution().executedPlan()):
        try:
            stats = compiler.compile(stage.doCodeGen()._2())._2()
            sizes[int(stage.codegenStageId())] = int(stats.maxMethodCodeSize())
        except Exception as failed:  # the reason is the finding
            sizes[int(stage.codegenStageId())] = str(failed).splitlines()[0][:300]
    return sizes


def test_every_stage_of_the_parse_plan_compiles(spark: Any) -> None:
    parsed = parsed_logs(spark.createDataFrame([], KAFKA_COLUMNS), MonitorConfig())
    sizes = stage_sizes(spark, parsed)
    assert sizes, "no whole-stage codegen at all: the parse runs operator by operator"
    failed = {stage: why for stage, why in sizes.items() if isinstance(why, str)}
    assert failed == {}, f"stages that do not compile (Spark falls back): {failed}"
    plan = parsed._jdf.queryExecution().executedPlan().toString()
    uncompiled = [
        line for line in plan.splitlines()
        if line.lstrip(" +-:").startswith(("Project", "Filter", "Generate"))
    ]  # fmt: skip
    assert uncompiled == [], f"operators outside generated code:\n{plan}"
    assert max(int(s) for s in sizes.values()) < JANINO_METHOD_LIMIT_BYTES, sizes


def test_a_batch_of_every_family_runs_with_codegen_fallback_off(spark: Any) -> None:
    """The job's batch (its tally, ``driver_rows``) and its dead letters' parse over records of
    every family, with Spark told to fail rather than fall back when generated code does not
    compile."""
    line = (
        "[2026-11-24 10:00:00,123] INFO [Partition orders-0 broker=1] Shrinking ISR from "
        "1,2,3 to 1,2. Leader: (highWatermark: 5) (kafka.cluster.Partition)"
    )
    gc = (
        "[2026-11-24T10:00:01.000+0000][12.345s][info][gc] GC(7) Pause Full (System.gc()) "
        "80M->20M(256M) 12000.123ms"
    )
    layout = json.dumps(
        {"@timestamp": "2026-11-24T10:00:02.000Z", "log.level": "INFO", "message": "ordinary",
         "log.logger": "kafka.server.KafkaServer"}
    )  # fmt: skip
    values = [
        json.dumps({"broker_id": 1, "kind": "server", "message": line}).encode(),
        json.dumps({"broker_id": 2, "kind": "gc", "message": gc}).encode(),
        layout.encode(),
        b"\xff\xfe\x00 not a log line",
    ]
    config = MonitorConfig()
    topic = config.topics.broker_logs
    records = spark.createDataFrame(
        [(None, v, topic, 0, i, None, 0) for i, v in enumerate(values)], KAFKA_COLUMNS
    )
    before = spark.conf.get("spark.sql.codegen.fallback")
    spark.conf.set("spark.sql.codegen.fallback", "false")
    try:
        rows = driver_rows(records, config)
        parsed = parsed_logs(records, config).collect()
    finally:
        spark.conf.set("spark.sql.codegen.fallback", before)
    assert sum(r.entries for r in rows) == len(values) == len(parsed)
    assert {r.type for r in rows if r.tag == "event"} >= {"isr_shrink"}, rows
    assert {r["type"] for r in parsed} >= {"isr_shrink"}
