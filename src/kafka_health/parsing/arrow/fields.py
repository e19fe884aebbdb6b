"""The event fields of one batch, from the matched pattern and its groups and the entry's
first line: what :mod:`~kafka_health.parsing.fields` computes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing import patterns as P
from kafka_health.parsing.arrow.arrays import (
    STRING,
    coalesce,
    empty_to_null,
    nulls,
    otherwise,
    truth,
    when,
)
from kafka_health.parsing.arrow.java_regex import to_re2
from kafka_health.parsing.arrow.matching import default_layout
from kafka_health.parsing.arrow.regexes import extract, name_groups
from kafka_health.parsing.arrow.rewrites import SHAPE_REWRITES
from kafka_health.parsing.arrow.times import iso_of_log4j_date
from kafka_health.parsing.fields import LEADER_IS_SELF

LINE_BROKER = SHAPE_REWRITES["LINE_BROKER"].re2
LEVEL = SHAPE_REWRITES["LEVEL"].re2
TIMESTAMP = SHAPE_REWRITES["TIMESTAMP"].re2
LOG4J_DATE = SHAPE_REWRITES["LOG4J_DATE"].re2
UPTIME_UNIFIED = name_groups(to_re2(P.UPTIME_UNIFIED))
UPTIME_JDK8 = name_groups(to_re2(P.UPTIME_JDK8))
DEFAULT_STAMP = to_re2(P.DEFAULT_LAYOUT_STAMP)
TOPIC_ID = r"^[A-Za-z0-9_-]{22}:"
TOPIC_PARTITION = name_groups(to_re2(r"^(.+)-(\d+)$"))
HEAP_NUMBER = name_groups(to_re2(r"^([\d.,]+)"))
HEAP_UNIT = name_groups(to_re2(r"([BKMG])$"))
INT_MAX = 2_147_483_647
Group = Callable[[str], pa.Array]


def to_int(texts: pa.Array) -> pa.Array:
    """``try_cast(text as int)`` for texts of digits (groups): null past an int."""
    digits = truth(pc.match_substring_regex(texts, r"^[0-9]+$"))
    short = pc.replace_substring_regex(pc.fill_null(texts, "0"), "^0+(?:([0-9]))", "\\1")
    fits = digits & truth(pc.less_equal(pc.utf8_length(short), 10))
    wide = pc.cast(pc.if_else(pa.array(fits), short, "0"), pa.int64())
    fits &= truth(pc.less_equal(wide, INT_MAX))
    return when(fits, pc.cast(pc.if_else(pa.array(fits), wide, 0), pa.int32()), pa.int32())


def to_double(texts: pa.Array) -> pa.Array:
    """``try_cast(text as double)`` for the parse's decimal figures ("12", "1.5", ".5", "5.")."""
    ok = truth(pc.match_substring_regex(texts, r"^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$"))
    safe = pc.if_else(pa.array(ok), texts, "0")
    return when(ok, pc.cast(safe, pa.float64()), pa.float64())


def half_up(values: pa.Array, digits: int) -> pa.Array:
    """Spark's ``round(x, digits)``: HALF_UP on the decimal ``Double.toString`` gives
    (``BigDecimal.valueOf``), not on the binary value. A tie in that decimal is the double
    nearest the midpoint ``(2k+1) / (2 * 10^digits)``, which one IEEE division gives exactly;
    so ``x`` rounds up past ``k`` where it is at least that double."""
    x = np.asarray(pc.fill_null(values, 0.0).to_numpy(zero_copy_only=False), dtype=np.float64)
    scale = 10.0**digits
    size = np.abs(x)
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.floor(size * scale)
        finite = np.isfinite(size) & (size * scale < 2.0**52)
        k = np.where(finite, k, 0.0)
        k = np.where(size < (2 * k - 1) / (2 * scale), k - 1, k)
        k = np.where(size >= (2 * k + 1) / (2 * scale), k + 1, k)
        rounded = np.copysign(k / scale, x)
    out = np.where(finite, rounded, x)
    return pc.if_else(pc.is_valid(values), pa.array(out), pa.scalar(None, pa.float64()))


def isr_list(texts: pa.Array) -> pa.Array:
    """ "3,1,4", "[1, 2]", "Set(3, 1)" -> list<int>; an id past an int is a null element."""
    digits = pc.replace_substring_regex(pc.fill_null(texts, ""), "[^0-9,]", "")
    parts = pc.split_pattern(digits, ",")
    flat = pc.list_flatten(parts)
    parents = np.asarray(pc.list_parent_indices(parts).to_numpy(zero_copy_only=False))
    keep = np.flatnonzero(truth(pc.not_equal(flat, "")))
    values = to_int(flat.take(pa.array(keep)))
    counts = np.bincount(parents[keep], minlength=len(texts))
    offsets = np.zeros(len(texts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    lists = pa.ListArray.from_arrays(pa.array(offsets), values)
    return pc.if_else(pc.is_valid(texts), lists, pa.scalar(None, lists.type))


def heap_mb(texts: pa.Array) -> pa.Array:
    """ "8071M", "272640K", "5649.6M", "0.0B", "1,5G" -> megabytes."""
    number = pc.replace_substring(extract(texts, HEAP_NUMBER), ",", ".")
    unit = extract(texts, HEAP_UNIT)
    factor = nulls(len(texts), pa.float64())
    for letter, f in (("B", 1 / 1048576.0), ("K", 1 / 1024.0), ("M", 1.0), ("G", 1024.0)):
        factor = otherwise(truth(pc.equal(unit, letter)), f, factor)
    return half_up(pc.multiply(to_double(number), factor), 3)


def seconds(value: pa.Array, unit: pa.Array) -> pa.Array:
    """A duration and its unit (secs, s, ms, us, ns) -> seconds."""
    number = to_double(pc.replace_substring(value, ",", "."))
    factor = nulls(len(value), pa.float64())
    for units, f in ((("secs", "s"), 1.0), (("ms",), 1e-3), (("us",), 1e-6), (("ns",), 1e-9)):
        factor = otherwise(truth(pc.is_in(unit, value_set=pa.array(units))), f, factor)
    return half_up(pc.multiply(number, factor), 9)


def default_stamp(head: pa.Array) -> np.ndarray:
    """:func:`~kafka_health.parsing.stamps.default_stamp`."""
    at = P.DEFAULT_LAYOUT_LEVEL_AT
    bracket = truth(pc.equal(pc.utf8_slice_codeunits(head, at - 1, at), "]"))
    stamp = pc.utf8_slice_codeunits(head, 1, at - 1)
    stamped = default_layout(head) & bracket & truth(pc.match_substring_regex(stamp, DEFAULT_STAMP))
    return np.asarray(stamped, dtype=bool)


def iso_ts(head: pa.Array) -> pa.Array:
    """The head's own timestamp as ISO 8601 text (:func:`~kafka_health.parsing.stamps.iso_ts`)."""
    date, time, frac, zone = (extract(head, TIMESTAMP, f"g{k}") for k in (1, 2, 3, 4))
    offset = pc.replace_substring_regex(zone, r"^([+-]\d\d):?(\d\d)$", "\\1:\\2")
    fraction = pc.if_else(pc.not_equal(frac, ""), pc.binary_join_element_wise(".", frac, ""), "")
    iso = pc.binary_join_element_wise(date, "T", time, fraction, offset, "")
    iso = when(truth(pc.not_equal(date, "")), iso)
    return coalesce(iso, iso_of_log4j_date(empty_to_null(extract(head, LOG4J_DATE))))


def line_columns(
    head: pa.Array, broker_id: pa.Array | None, is_gc: np.ndarray
) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """The broker the line names, the entry's broker, its time and its level."""
    n = len(head)
    line_broker = when(~is_gc, to_int(empty_to_null(extract(head, LINE_BROKER))).cast(STRING))
    given = nulls(n) if broker_id is None else empty_to_null(pc.utf8_trim(broker_id, " "))
    stamped = default_stamp(head)
    default_iso = pc.binary_join_element_wise(
        pc.utf8_slice_codeunits(head, 1, 11),
        "T",
        pc.utf8_slice_codeunits(head, 12, 20),
        ".",
        pc.utf8_slice_codeunits(head, 21, 24),
        "",
    )
    ts = otherwise(stamped, default_iso, iso_ts(head))
    at = P.DEFAULT_LAYOUT_LEVEL_AT + 1
    default_level = pc.utf8_rtrim(pc.utf8_slice_codeunits(head, at, at + 5), " ")
    level = otherwise(stamped, default_level, extract(head, LEVEL))
    return line_broker, coalesce(given, line_broker), ts, when(~is_gc, empty_to_null(level))


def event_fields(
    pid: np.ndarray,
    g: Group,
    head: pa.Array,
    broker_id: pa.Array | None,
    patterns: tuple[P.EventPattern, ...],
) -> dict[str, pa.Array]:
    """``type`` and the event fields (:data:`~kafka_health.parsing.events.EVENT_FIELDS`)."""
    matched = pid >= 0
    safe = np.maximum(pid, 0)
    events = np.array([p.event for p in patterns] or [""], dtype=object)
    gc_family = np.array([p.family == "gc" for p in patterns] or [False])
    is_gc = matched & gc_family[safe]
    self_led = np.isin(pid, [i for i, p in enumerate(patterns) if p.name in LEADER_IS_SELF])
    line_broker, broker, ts, level = line_columns(head, broker_id, is_gc)
    tp = pc.replace_substring_regex(g("tp"), TOPIC_ID, "")
    tp_topic = empty_to_null(extract(tp, TOPIC_PARTITION, "g1"))
    tp_partition = empty_to_null(extract(tp, TOPIC_PARTITION, "g2"))
    isr_set = isr_list(g("isr_set"))
    constant = np.array([p.collector for p in patterns] or [None], dtype=object)[safe]
    collector = coalesce(
        when(matched & (constant != None), pa.array(constant, STRING)),  # noqa: E711
        _young_gen_collector(g("young_gen")),
        when(truth(pc.starts_with(g("cause"), "G1 ")), "g1"),
    )
    uptime = coalesce(
        seconds(
            empty_to_null(extract(head, UPTIME_UNIFIED, "g1")), extract(head, UPTIME_UNIFIED, "g2")
        ),
        to_double(empty_to_null(extract(head, UPTIME_JDK8, "g1"))),
    )
    return {
        "type": when(matched, pa.array(events[safe], STRING)),
        "ts": when(matched, ts),
        "broker_id": broker,
        "level": when(matched, level),
        "topic": coalesce(g("topic"), tp_topic),
        "partition": to_int(coalesce(g("partition"), tp_partition)),
        "isr_before": isr_list(g("isr_before")),
        "isr_after": isr_list(g("isr_after")),
        "leader": coalesce(to_int(g("leader")), when(self_led, to_int(line_broker), pa.int32())),
        "leader_epoch": to_int(g("leader_epoch")),
        "min_isr": to_int(g("min_isr")),
        "isr_size": coalesce(to_int(g("isr_size")), pc.list_value_length(isr_set).cast(pa.int32())),
        "session_id": g("session_id"),
        "subject_broker_id": to_int(g("subject")),
        "pause_s": seconds(g("pause"), g("pause_unit")),
        "heap_before_mb": heap_mb(g("heap_before")),
        "heap_after_mb": heap_mb(g("heap_after")),
        "heap_total_mb": heap_mb(g("heap_total")),
        "cause": g("cause"),
        "collector": when(matched & is_gc, collector),
        "uptime_s": when(matched & is_gc, uptime, pa.float64()),
        "session_timeout_ms": to_int(g("session_timeout")),
        "log_dir": g("log_dir"),
        "group": g("group"),
        "generation": to_int(g("generation")),
        "members": to_int(g("members")),
    }


def _young_gen_collector(young_gen: pa.Array) -> pa.Array:
    names = list(P.YOUNG_GEN_COLLECTOR)
    which = pc.index_in(young_gen, value_set=pa.array(names))
    return pa.array(list(P.YOUNG_GEN_COLLECTOR.values()), STRING).take(which)
