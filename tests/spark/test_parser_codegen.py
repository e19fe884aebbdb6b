"""The job's parse runs compiled (issue 12, point 3): every operator of its plan is in
whole-stage generated code, and the largest generated method stays under HotSpot's 8,000-byte
JIT limit (a bigger method runs interpreted) and far from Java's 64 KB limit (past it Spark
falls back to interpreting the whole plan). Measured by compiling the generated code, as Spark
does. The one exception: the small projection that reads a JSON envelope (``from_json``, which
has no generated code in Spark 4.2; only records that are JSON reach it).

This test found the parse projection itself outside codegen: one higher-order function
(``transform``/``filter`` over an ISR list) took the whole regex projection out of it."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.job.batch import parsed_stream

pytestmark = pytest.mark.spark

HOTSPOT_HUGE_METHOD_BYTES = 8000
KAFKA_COLUMNS = (
    "key binary, value binary, topic string, partition int, offset long, timestamp timestamp, "
    "timestampType int"
)


def stage_stats(spark: Any, frame: Any) -> list[tuple[str, int]]:
    """(first line of the stage's subtree, largest method's bytecode size) per codegen stage."""
    jvm = spark._jvm
    debug = getattr(jvm.org.apache.spark.sql.execution.debug, "package$").__getattr__("MODULE$")
    plan = frame._jdf.queryExecution().executedPlan()
    stages = debug.codegenStringSeq(plan)
    out = []
    for i in range(stages.size()):
        subtree, _code, stats = (stages.apply(i)._1(), stages.apply(i)._2(), stages.apply(i)._3())
        out.append((str(subtree).splitlines()[0], int(stats.maxMethodCodeSize())))
    return out


def test_the_parse_plan_is_generated_code_with_small_methods(spark: Any) -> None:
    config = MonitorConfig()
    records = spark.createDataFrame([], KAFKA_COLUMNS)
    parsed = parsed_stream(records, config)
    stats = stage_stats(spark, parsed)
    assert stats, "no whole-stage codegen at all: the parse runs interpreted"
    plan = parsed._jdf.queryExecution().executedPlan().toString()
    uncompiled = [
        line for line in plan.splitlines()
        if line.lstrip(" +-:").startswith(("Project", "Filter", "Generate"))
        and "from_json(MapType(StringType,StringType" not in line
    ]  # fmt: skip
    assert uncompiled == [], f"operators outside generated code:\n{plan}"
    largest = max(size for _stage, size in stats)
    assert largest < HOTSPOT_HUGE_METHOD_BYTES, stats
