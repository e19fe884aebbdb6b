"""Whole-stage codegen boundaries for the parse plan.

Spark compiles each run of codegen-able operators into one Java class whose ``processNext``
holds every projection of the run inline; Janino refuses a method past 64 KB of bytecode.
Spark then falls back to running the operators one by one, and in a streaming query, whose
plan is new each batch, it tries (and fails) to compile the same stage again every batch: a
failed compile is not cached. Measured on the parse plan: ~2 MB of generated source for one
stage, about 0.8 s of every batch spent failing to compile it (JFR, 2026-11-24).

A ``coalesce`` has no generated code (Spark's ``CoalesceExec``), so it ends the stage before
it; to more partitions than any plan here has (:data:`BARRIER_PARTITIONS`), it keeps every
partition as it is and moves no row, at the cost of one iterator step per row. The boundary
was an ``observe`` node before, which counted every row in an accumulator at each of the 26
boundaries and sent those counts with every batch's progress; nothing read them, and an
election storm's batch took 9-11 % less of the executors' CPU without them (BENCHMARKS.md).
Keeping the projections in one stage, a method per operator (``splitConsumeFuncByOperator``),
saves the row written at each boundary but ran the static batch 10-20 % slower
(BENCHMARKS.md, "Parsing"; the figures in commit 999d71d).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_T = TypeVar("_T")


BARRIER_PARTITIONS = 1 << 20
"""The partitions a stage boundary's ``coalesce`` allows: more than any batch or file read has,
so Spark's coalescer keeps each partition a group of its own."""


def end_stage(df: DataFrame) -> DataFrame:
    """``df`` with a whole-stage codegen boundary after it (see the module docstring)."""
    return df.coalesce(BARRIER_PARTITIONS)


def chunks(items: Sequence[_T], size: int) -> list[list[_T]]:
    """``items`` in runs of ``size`` (the last one shorter)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def coalesce_in_stages(
    df: DataFrame, out: str, parts: Sequence[Column], data_type: str = "string"
) -> DataFrame:
    """``df`` with ``out``: the first of ``parts`` that is not null, as one ``coalesce`` gives
    it, but each part computed in a stage of its own: a big ``coalesce`` in one projection
    can make a method past Janino's 64 KB; a later part is not evaluated once an earlier one
    gave a value."""
    from pyspark.sql import functions as F

    df = df.withColumn(out, F.lit(None).cast(data_type))
    for part in parts:
        df = end_stage(df.withColumn(out, F.coalesce(F.col(out), part)))
    return df
