"""log4j JSON layouts -> Kafka's default layout text for one batch, as
:func:`~kafka_health.parsing.jsonlayout.with_layout_text` writes it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing import jsonlayout as J
from kafka_health.parsing.arrow.arrays import STRING, coalesce, concat_ws, put, take, truth, when
from kafka_health.parsing.arrow.java_regex import to_re2
from kafka_health.parsing.arrow.jsontext import Objects
from kafka_health.parsing.arrow.times import iso_from_millis

EPOCH_DIGITS = to_re2(J.EPOCH_DIGITS)
_LONG = r"^[\x00-\x20]*[+-]?[0-9]+[\x00-\x20]*$"
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
SECONDS_MAX = LONG_MAX // 1000 - 1000
"""Epoch seconds past this overflow Spark's ``sec * 1000`` (an ANSI error that fails the
task there: such a record gets no time here)."""


def try_long(texts: pa.Array) -> pa.Array:
    """``try_cast(text as long)``: blanks and control characters around trimmed, a sign,
    digits; null where it is none or past a long."""
    shaped = truth(pc.match_substring_regex(texts, _LONG))
    trimmed = pc.replace_substring_regex(
        pc.fill_null(texts, "0"), r"^[\x00-\x20]+|[\x00-\x20]+$", ""
    )
    safe = pc.if_else(pa.array(shaped), trimmed, "0")
    wide = pc.cast(safe, pa.decimal128(38, 0)) if len(texts) else pa.array([], pa.decimal128(38, 0))
    big = pc.cast(pa.scalar(LONG_MAX), pa.decimal128(38, 0))
    small = pc.cast(pa.scalar(LONG_MIN), pa.decimal128(38, 0))
    fits = shaped & truth(pc.less_equal(wide, big)) & truth(pc.greater_equal(wide, small))
    return when(
        fits,
        pc.cast(pc.if_else(pa.array(fits), wide, pa.scalar(0, wide.type)), pa.int64()),
        pa.int64(),
    )


def _first(objects: Objects, paths: tuple[tuple[str, ...], ...]) -> pa.Array:
    return coalesce(*[objects.get(path) for path in paths])


def layout_text(message: pa.Array) -> pa.Array:
    """The default-layout text of each JSON layout entry, else the entry (``message`` has no
    nulls)."""
    rows = np.flatnonzero(truth(pc.starts_with(message, "{")))
    if not len(rows):
        return message
    text = take(message, rows)
    objects = Objects(text)
    c = {
        "message": _first(objects, J.MESSAGE),
        "stamp": _first(objects, J.TIME_TEXT),
        "ms": _first(objects, J.EPOCH_MS),
        "sec": objects.get(J.EPOCH_SECOND),
        "nanos": objects.get(J.NANO_OF_SECOND),
        "level": _first(objects, J.LEVEL),
        "logger": _first(objects, J.LOGGER),
        "thrown": _first(objects, J.THROWN_NAME),
        "thrown_msg": _first(objects, J.THROWN_MESSAGE),
    }
    epoch_stamp = pc.match_substring_regex(c["stamp"], EPOCH_DIGITS)
    seconds = try_long(c["sec"])
    nanos = pc.fill_null(try_long(c["nanos"]), 0)
    fits = truth(pc.less_equal(pc.abs(seconds), SECONDS_MAX))
    safe_seconds = pc.if_else(pa.array(fits), seconds, pa.scalar(0, pa.int64()))
    whole_ms = pc.floor(pc.divide(pc.cast(nanos, pa.float64()), 1_000_000.0)).cast(pa.int64())
    of_seconds = when(fits, pc.add(pc.multiply(safe_seconds, 1000), whole_ms), pa.int64())
    millis = coalesce(
        try_long(c["ms"]), when(truth(epoch_stamp), try_long(c["stamp"]), pa.int64()), of_seconds
    )
    when_text = coalesce(when(truth(pc.invert(epoch_stamp)), c["stamp"]), iso_from_millis(millis))
    thrown = concat_ws(": ", c["thrown"], when(truth(pc.is_valid(c["thrown"])), c["thrown_msg"]))
    bracketed = pc.binary_join_element_wise("[", when_text, "]", "")
    logger = pc.binary_join_element_wise("(", c["logger"], ")", "")
    line = concat_ws(" ", bracketed, pc.utf8_upper(c["level"]), c["message"], logger)
    no_thrown = pc.if_else(pc.equal(thrown, ""), pa.scalar(None, STRING), thrown)
    layout = concat_ws("\n", line, no_thrown)
    out = pc.if_else(pc.is_valid(c["message"]), layout, text)
    return put(message, rows, out)
