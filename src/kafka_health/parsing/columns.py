"""Small Spark column builders of the parse (:mod:`~kafka_health.parsing.events`): flat
``OR`` and ``CASE`` chains, and a captured group's text to the value it stands for.

Built-in functions only: each builder returns one expression that Spark compiles with the
rest of its stage (no Python runs per record).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def empty_to_null(col: Column) -> Column:
    """``col``, null where it is the empty text (a group that did not take part)."""
    from pyspark.sql import functions as F

    return F.when(col != "", col)


def cut(text: Column, chars: int) -> Column:
    """The first ``chars`` characters of ``text``. A text of at most that many bytes is whole:
    ``substring`` counts a text's characters from its first byte, every time."""
    from pyspark.sql import functions as F

    return F.when(F.octet_length(text) <= chars, text).otherwise(F.substring(text, 1, chars))


def any_of(conditions: list[Column]) -> Column:
    """c1 OR c2 OR ... (evaluated left to right, stopping at the first true one)."""
    expr = conditions[0]
    for condition in conditions[1:]:
        expr = expr | condition
    return expr


def first_match(cases: list[tuple[Column, Column]]) -> Column:
    """CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ... END as one flat expression."""
    from pyspark.sql import functions as F

    (condition, value), *rest = cases
    expr = F.when(condition, value)
    for condition, value in rest:
        expr = expr.when(condition, value)
    return expr


def pick(pid: Column, cases: list[tuple[int, Column]]) -> Column:
    """CASE pid WHEN i THEN expr_i ... END, null when no case (or no pattern) applies."""
    from pyspark.sql import functions as F

    if not cases:
        return F.lit(None).cast("string")
    expr = F.when(pid == cases[0][0], cases[0][1])
    for i, value in cases[1:]:
        expr = expr.when(pid == i, value)
    return expr


def per_pattern(pid: Column, values: list[object], dtype: str) -> Column:
    """``values[pid]``, null where ``pid`` is: one lookup in a constant array. A ``CASE`` over
    every pattern (:func:`pick`) grew with the table and was walked whole by every row that
    is no event; its first field stage outgrew what HotSpot's C1 compiles (``test_parser_jit``)
    when the group coordinators' patterns came."""
    from pyspark.sql import functions as F

    table = F.array(*[F.lit(v) for v in values]).cast(f"array<{dtype}>")
    return F.try_element_at(table, pid + 1)


def column_or_null(df: DataFrame, name: str, dtype: str = "string") -> Column:
    """``df``'s column ``name``, or a null of ``dtype`` where ``df`` has none (an optional
    input column)."""
    from pyspark.sql import functions as F

    return F.col(name) if name in df.columns else F.lit(None).cast(dtype)


def to_int(col: Column) -> Column:
    """``col`` as an int, null where it is not one."""
    return col.try_cast("int")


def isr_list(col: Column) -> Column:
    """ "3,1,4", "[1, 2]", "Set(3, 1)" -> array<int>; null stays null."""
    from pyspark.sql import functions as F

    digits = F.array_remove(F.split(F.regexp_replace(col, r"[^0-9,]", ""), ","), "")
    # array_remove + an array cast, not transform/filter: higher-order functions have no
    # generated code, and one in the parse projection took it out of whole-stage codegen.
    return F.when(col.isNotNull(), digits.try_cast("array<int>"))


def heap_mb(col: Column) -> Column:
    """ "8071M", "272640K", "5649.6M", "0.0B", "1,5G" -> megabytes (double)."""
    from pyspark.sql import functions as F

    number = F.regexp_replace(F.regexp_extract(col, r"^([\d.,]+)", 1), ",", ".").try_cast("double")
    unit = F.regexp_extract(col, r"([BKMG])$", 1)
    factor = (
        F.when(unit == "B", 1 / 1048576.0)
        .when(unit == "K", 1 / 1024.0)
        .when(unit == "M", 1.0)
        .when(unit == "G", 1024.0)
    )
    return F.round(number * factor, 3)


def seconds(value: Column, unit: Column) -> Column:
    """A duration figure and its unit (secs, s, ms, us, ns) -> seconds (double)."""
    from pyspark.sql import functions as F

    number = F.regexp_replace(value, ",", ".").try_cast("double")
    factor = (
        F.when(unit.isin("secs", "s"), 1.0)
        .when(unit == "ms", 1e-3)
        .when(unit == "us", 1e-6)
        .when(unit == "ns", 1e-9)
    )
    return F.round(number * factor, 9)
