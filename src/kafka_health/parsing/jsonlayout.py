"""log4j JSON layouts -> Kafka's default layout text, so that the one pattern table reads them.

An entry that starts with ``{`` is read as one JSON object with ``get_json_object`` (only those
entries: ``from_json`` has no generated code and must stay out of the per-line projection) and
rewritten as ``[time] LEVEL message (logger)``, then the thrown exception's ``name: message`` on
the next line (the patterns of scope ``entry`` look there, e.g. NotLeaderForPartitionException).
An entry that is not such an object (no message field, or not JSON) is left as it is.

Where each layout keeps the parts (paths are key tuples: ``("log.level",)`` is one flat key,
``("instant", "epochSecond")`` a nested one):

- log4j2 JsonTemplateLayout with ``classpath:EcsLayout.json``
  (https://logging.apache.org/log4j/2.x/manual/json-template-layout.html): ``"@timestamp":
  "2017-05-25T19:56:23.370Z"``, ``"log.level"``, ``"message"``, ``"log.logger"``,
  ``"error.type"``, ``"error.message"``.
- log4j2 JsonLayout (https://logging.apache.org/log4j/2.x/manual/layouts.html#JSONLayout) and
  JsonTemplateLayout's ``JsonLayout.json``: ``"instant": {"epochSecond": ..., "nanoOfSecond":
  ...}`` (2.11+) or ``"timeMillis": 1547108632526`` (``includeTimeMillis``, before 2.11),
  ``"level"``, ``"loggerName"``, ``"message"``, ``"thrown": {"name", "message"}``; log4j 2.0-2.3
  JSONLayout: ``"timestamp": "1376681196470"``, ``"logger"``.
- log4j 1.x JSONEventLayoutV1 (logstash): ``"@timestamp"``, ``"level"``, ``"logger_name"``,
  ``"exception": {"exception_class", "exception_message"}``.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kafka_health.spark.stages import end_stage

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

Path = tuple[str, ...]

MESSAGE: tuple[Path, ...] = (("message",),)
TIME_TEXT: tuple[Path, ...] = (("@timestamp",), ("timestamp",))  # ISO text, or epoch ms digits
EPOCH_MS: tuple[Path, ...] = (("timeMillis",),)
EPOCH_SECOND: Path = ("instant", "epochSecond")
NANO_OF_SECOND: Path = ("instant", "nanoOfSecond")
LEVEL: tuple[Path, ...] = (("level",), ("log.level",))
LOGGER: tuple[Path, ...] = (("loggerName",), ("log.logger",), ("logger_name",), ("logger",))
THROWN_NAME: tuple[Path, ...] = (
    ("thrown", "name"),
    ("error.type",),
    ("exception", "exception_class"),
)
THROWN_MESSAGE: tuple[Path, ...] = (
    ("thrown", "message"),
    ("error.message",),
    ("exception", "exception_message"),
)
EPOCH_DIGITS = r"^\d{10,13}$"
EPOCH_MS_MAX = 9_223_372_036_854_775
"""The largest epoch millisecond count Spark's timestamps hold (microseconds in a long)."""


def spark_path(path: Path) -> str:
    """``("log.level",)`` -> ``$['log.level']``: the JSONPath ``get_json_object`` reads."""
    return "$" + "".join(f"['{key}']" for key in path)


LAYOUT_KEYS = tuple(p[0] for p in (*MESSAGE, *LEVEL, *LOGGER) if len(p) == 1)
"""The top-level keys :func:`is_layout_record` reads."""


def is_layout_record(doc: Column) -> Column:
    """True for a record's parsed top-level keys (a struct with :data:`LAYOUT_KEYS`) that are
    a log4j JSON layout's event (a message, a level and a logger), not a shipper's envelope
    around a line."""

    def has(paths: tuple[Path, ...]) -> Column:
        keys = [doc.getField(p[0]).isNotNull() for p in paths if len(p) == 1]
        out = keys[0]
        for k in keys[1:]:
            out = out | k
        return out

    return has(MESSAGE) & has(LEVEL) & has(LOGGER)


def _first(text: Column, paths: tuple[Path, ...]) -> Column:
    from pyspark.sql import functions as F

    # Not nullif(.., ""): it repeats its argument, and each get_json_object parses the entry.
    found = [F.get_json_object(text, spark_path(p)) for p in paths]
    return F.coalesce(*found) if len(found) > 1 else found[0]


def _iso_from_ms(ms: Column) -> Column:
    """Epoch milliseconds -> ISO 8601 text with the session zone's offset (an instant)."""
    from pyspark.sql import functions as F

    # timestamp_millis fails the task past Spark's range (the microseconds overflow a long): a
    # record's "timeMillis": 9223372036854775807 is no time, not a failed batch.
    in_range = ms.between(-EPOCH_MS_MAX, EPOCH_MS_MAX)
    return F.date_format(F.timestamp_millis(F.when(in_range, ms)), "yyyy-MM-dd'T'HH:mm:ss.SSSXXX")


def with_layout_text(df: DataFrame, text: Column, out: str) -> DataFrame:
    """``df`` with ``out``: the default-layout text of a JSON layout entry, else ``text``.

    Each field is read once into a column of its own (``_jl_*``, for the caller to drop):
    composed in one expression, every reuse of a field would parse the JSON again and add its
    code to the generated plan.
    """
    from pyspark.sql import functions as F

    is_json = text.startswith("{")
    paths = {
        "message": MESSAGE,
        "stamp": TIME_TEXT,
        "ms": EPOCH_MS,
        "sec": (EPOCH_SECOND,),
        "nanos": (NANO_OF_SECOND,),
        "level": LEVEL,
        "logger": LOGGER,
        "thrown": THROWN_NAME,
        "thrown_msg": THROWN_MESSAGE,
    }
    # In a stage of their own (two when HotSpot left methods over 8 KB interpreted; the
    # session's JIT_OPTIONS has it compile them).
    df = df.withColumns({f"_jl_{k}": F.when(is_json, _first(text, paths[k])) for k in paths})
    df = end_stage(df)
    c = {k: F.col(f"_jl_{k}") for k in paths}
    epoch_stamp = c["stamp"].rlike(EPOCH_DIGITS)
    millis = F.coalesce(
        c["ms"].try_cast("long"),
        F.when(epoch_stamp, c["stamp"].try_cast("long")),
        # try_: under ANSI an overflowing epochSecond would fail the task, not give no time.
        F.try_add(
            F.try_multiply(c["sec"].try_cast("long"), F.lit(1000)),
            F.floor(F.coalesce(c["nanos"].try_cast("long"), F.lit(0)) / 1_000_000),
        ),
    )
    when = F.coalesce(F.when(~epoch_stamp, c["stamp"]), _iso_from_ms(millis))
    thrown = F.concat_ws(": ", c["thrown"], F.when(c["thrown"].isNotNull(), c["thrown_msg"]))
    line = F.concat_ws(
        " ",
        F.concat(F.lit("["), when, F.lit("]")),
        F.upper(c["level"]),
        c["message"],
        F.concat(F.lit("("), c["logger"], F.lit(")")),
    )
    layout = F.concat_ws("\n", line, F.nullif(thrown, F.lit("")))
    return df.withColumn(out, F.when(c["message"].isNotNull(), layout).otherwise(text))


# The same rewrite in Python: the reference classifier's (tests' oracle) copy.


def _get(doc: Any, path: Path) -> str | None:
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    if doc is None or doc == "":
        return None
    return doc if isinstance(doc, str) else json.dumps(doc, separators=(",", ":"))


def _py_first(doc: Any, paths: tuple[Path, ...]) -> str | None:
    return next((v for p in paths if (v := _get(doc, p)) is not None), None)


def py_layout_text(text: str) -> str | None:
    """The text :func:`with_layout_text` gives one entry (the time in UTC); None when the
    entry is not a JSON layout's event."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    message = _py_first(doc, MESSAGE)
    if message is None:
        return None
    stamp = _py_first(doc, TIME_TEXT)
    millis: int | None = None
    if (ms := _py_first(doc, EPOCH_MS)) is not None and ms.isdigit():
        millis = int(ms)
    elif stamp is not None and re.match(EPOCH_DIGITS, stamp):
        millis = int(stamp)
    elif (sec := _get(doc, EPOCH_SECOND)) is not None and sec.isdigit():
        nanos = _get(doc, NANO_OF_SECOND) or "0"
        millis = int(sec) * 1000 + (int(nanos) // 1_000_000 if nanos.isdigit() else 0)
    when = stamp if stamp is not None and not re.match(EPOCH_DIGITS, stamp) else None
    if when is None and millis is not None:
        try:
            when = datetime.fromtimestamp(millis / 1000, UTC).isoformat(timespec="milliseconds")
        except (OverflowError, OSError, ValueError):  # a time no calendar holds: none
            when = None
    level, logger = _py_first(doc, LEVEL), _py_first(doc, LOGGER)
    parts = [f"[{when}]" if when else None, level.upper() if level else None, message]
    parts.append(f"({logger})" if logger else None)
    line = " ".join(p for p in parts if p is not None)
    name = _py_first(doc, THROWN_NAME)
    if name is None:
        return line
    thrown = ": ".join(p for p in (name, _py_first(doc, THROWN_MESSAGE)) if p is not None)
    return f"{line}\n{thrown}"
