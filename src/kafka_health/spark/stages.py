"""Whole-stage codegen boundaries for the parse plan.

Spark compiles each run of codegen-able operators into one Java class whose ``processNext``
holds every projection of the run inline; Janino refuses a method past 64 KB of bytecode.
Spark then falls back to running the operators one by one, and in a streaming query, whose
plan is new each batch, it tries (and fails) to compile the same stage again every batch: a
failed compile is not cached. Measured on the parse plan: ~2 MB of generated source for one
stage, about 0.8 s of every batch spent failing to compile it (JFR, 2026-11-24).

An ``observe`` node has no generated code, so it ends the stage before it; it counts the
rows that pass (one counter per row), which Spark reports with each batch. Keeping the
projections in one stage, a method per operator (``splitConsumeFuncByOperator``), saves the
row written at each boundary but ran the static batch 10-20 % slower (BENCHMARKS.md, "Tried
and not kept: one generated stage, a method per operator").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_T = TypeVar("_T")


def end_stage(df: DataFrame, name: str) -> DataFrame:
    """``df`` with a whole-stage codegen boundary after it (see the module docstring);
    ``name`` is unique within one plan (Spark's rule for observed metrics)."""
    from pyspark.sql import functions as F

    return df.observe(f"stage_{name}", F.count(F.lit(1)).alias("rows"))


def chunks(items: Sequence[_T], size: int) -> list[list[_T]]:
    """``items`` in runs of ``size`` (the last one shorter)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def coalesce_in_stages(
    df: DataFrame, out: str, parts: Sequence[Column], name: str, data_type: str = "string"
) -> DataFrame:
    """``df`` with ``out``: the first of ``parts`` that is not null, as one ``coalesce`` gives
    it, but each part computed in a stage of its own (``name_0``, ``name_1``, ...): a big
    ``coalesce`` in one projection can make a method past Janino's 64 KB; a later part is not
    evaluated once an earlier one gave a value."""
    from pyspark.sql import functions as F

    df = df.withColumn(out, F.lit(None).cast(data_type))
    for k, part in enumerate(parts):
        df = end_stage(df.withColumn(out, F.coalesce(F.col(out), part)), f"{name}_{k}")
    return df
