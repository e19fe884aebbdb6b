"""Whole-stage codegen boundaries for the parse plan.

Spark compiles each run of codegen-able operators into one Java class whose ``processNext``
holds every projection of the run inline; Janino refuses a method past 64 KB of bytecode.
Spark then falls back to running the operators one by one, and in a streaming query, whose
plan is new each batch, it tries (and fails) to compile the same stage again every batch: a
failed compile is not cached. Measured on the parse plan: ~2 MB of generated source for one
stage, about 0.8 s of every batch spent failing to compile it (JFR, 2026-11-24).

An ``observe`` node has no generated code, so it ends the stage before it; it counts the
rows that pass (one counter per row), which Spark reports with each batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def end_stage(df: DataFrame, name: str) -> DataFrame:
    """``df`` with a whole-stage codegen boundary after it (see the module docstring);
    ``name`` is unique within one plan (Spark's rule for observed metrics)."""
    from pyspark.sql import functions as F

    return df.observe(f"stage_{name}", F.count(F.lit(1)).alias("rows"))
