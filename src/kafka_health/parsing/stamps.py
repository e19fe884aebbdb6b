"""An entry's first line (its head) read by Spark column expressions: whether it is in Kafka's
default layout or starts an entry at all, and its own time and level.

Kafka's default layout (most lines) is read at its fixed places by plain compares, the others
by the regexes of :mod:`~kafka_health.parsing.patterns`; both give what
:func:`~kafka_health.parsing.patterns.default_layout_stamp` and the reference parser give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.parsing import patterns as P
from kafka_health.parsing.columns import any_of

if TYPE_CHECKING:
    from pyspark.sql import Column


def default_layout(head: Column) -> Column:
    """:func:`kafka_health.parsing.patterns.is_default_layout` by plain compares."""
    from pyspark.sql import functions as F

    at = P.DEFAULT_LAYOUT_LEVEL_AT + 1  # substring counts from 1
    by_length: dict[int, list[str]] = {}
    for level in P.DEFAULT_LAYOUT_LEVELS:
        by_length.setdefault(len(level), []).append(level)
    return head.startswith("[") & any_of(
        [F.substring(head, at, n).isin(*levels) for n, levels in by_length.items()]
    )


def is_entry_start(head: Column) -> Column:
    """Whether ``head`` starts a log entry: Kafka's default layout by plain compares (most
    lines), any other by :data:`~kafka_health.parsing.patterns.ENTRY_START`."""
    return default_layout(head) | head.rlike(P.ENTRY_START)


def default_stamp(head: Column) -> Column:
    """:func:`kafka_health.parsing.patterns.default_layout_stamp` gives a value: plain compares,
    then one anchored regex over the 23 characters of the date."""
    from pyspark.sql import functions as F

    at = P.DEFAULT_LAYOUT_LEVEL_AT  # the bracket's place, counted from 1
    stamp = F.substring(head, 2, at - 2)
    return (
        default_layout(head)
        & (F.substring(head, at, 1) == "]")
        & stamp.rlike(P.DEFAULT_LAYOUT_STAMP)
    )


def default_stamp_iso(head: Column) -> Column:
    """The ISO timestamp :func:`kafka_health.parsing.patterns.default_layout_stamp` reads."""
    from pyspark.sql import functions as F

    return F.concat(F.substring(head, 2, 10), F.lit("T"), F.substring(head, 13, 8), F.lit("."),
                    F.substring(head, 22, 3))  # fmt: skip


def default_stamp_level(head: Column) -> Column:
    """The level :func:`kafka_health.parsing.patterns.default_layout_stamp` reads: the word
    after the bracket, four or five letters."""
    from pyspark.sql import functions as F

    return F.rtrim(F.substring(head, P.DEFAULT_LAYOUT_LEVEL_AT + 2, 5))


def iso_ts(head: Column) -> Column:
    """The entry's own timestamp as ISO 8601 text, with its offset when the log has one."""
    from pyspark.sql import functions as F

    date = F.regexp_extract(head, P.TIMESTAMP, 1)
    time = F.regexp_extract(head, P.TIMESTAMP, 2)
    frac = F.regexp_extract(head, P.TIMESTAMP, 3)
    zone = F.regexp_extract(head, P.TIMESTAMP, 4)
    offset = (
        F.when(zone == "", "")
        .when(zone == "Z", "Z")
        .otherwise(F.regexp_replace(zone, r"^([+-]\d\d):?(\d\d)$", "$1:$2"))
    )
    fraction = F.when(frac != "", F.concat(F.lit("."), frac)).otherwise("")
    iso = F.when(date != "", F.concat(date, F.lit("T"), time, fraction, offset))
    # log4j 1.x %d{DATE}: local time like the default layout's (read and written in the
    # session zone, so the wall clock is kept).
    text = F.regexp_extract(head, P.LOG4J_DATE, 1)
    named = F.coalesce(
        F.try_to_timestamp(text, F.lit("dd MMM yyyy HH:mm:ss,SSS")),
        F.try_to_timestamp(text, F.lit("dd MMM yyyy HH:mm:ss")),
    )
    return F.coalesce(iso, F.date_format(named, "yyyy-MM-dd'T'HH:mm:ss.SSS"))


def event_ms(ts: Column, timezone: str) -> Column:
    """Epoch milliseconds of ``ts``; a timestamp without offset is read in ``timezone``."""
    from pyspark.sql import functions as F

    has_offset = ts.rlike(r"(Z|[+-]\d\d:\d\d)$")
    local = F.to_utc_timestamp(F.try_to_timestamp(ts), F.lit(timezone))
    stamped = F.try_to_timestamp(ts)
    return F.unix_millis(F.when(has_offset, stamped).otherwise(local))
