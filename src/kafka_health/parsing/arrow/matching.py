"""The entry's bounded texts and the pattern stages for one batch: head, body, family,
continuation, the prefilter (``_maybe``), the matching pattern (``pid``), the suspected event
of an unmatched line and the matched pattern's named groups; as
:mod:`~kafka_health.parsing.events` and :mod:`~kafka_health.parsing.matching` compute them.

A regex runs per pattern over the rows still open to it (those holding its literal), never
per record in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing import patterns as P
from kafka_health.parsing.arrow.arrays import STRING, coalesce, otherwise, take, truth, when
from kafka_health.parsing.arrow.regexes import groups, matches
from kafka_health.parsing.arrow.rewrites import SHAPE_REWRITES, Rewrite, pattern_rewrite
from kafka_health.parsing.events import KAFKA_KINDS
from kafka_health.parsing.prefilter import FamilyPrefilter, anchor, prefilter_gates

GC_LINE = SHAPE_REWRITES["GC_LINE"]
LOG4J_LINE = SHAPE_REWRITES["LOG4J_LINE"]
ENTRY_START = SHAPE_REWRITES["ENTRY_START"]
CONTINUATION = SHAPE_REWRITES["CONTINUATION"]


def first_line(text: pa.Array, chars: int) -> pa.Array:
    """The text's first line, cut to ``chars`` characters, a final ``\\r`` off (Java's
    ``\\r$`` takes a second one before it too)."""
    line = pc.list_element(pc.split_pattern(text, "\n", max_splits=1), 0)
    line = pc.utf8_slice_codeunits(line, 0, chars)
    return pc.replace_substring_regex(line, r"\r\r?\z", "")


def default_layout(head: pa.Array) -> np.ndarray:
    """:func:`~kafka_health.parsing.patterns.is_default_layout`."""
    at = P.DEFAULT_LAYOUT_LEVEL_AT
    found = np.zeros(len(head), dtype=bool)
    for size in sorted({len(level) for level in P.DEFAULT_LAYOUT_LEVELS}):
        levels = [lv for lv in P.DEFAULT_LAYOUT_LEVELS if len(lv) == size]
        piece = pc.utf8_slice_codeunits(head, at, at + size)
        found |= truth(pc.is_in(piece, value_set=pa.array(levels)))
    return np.asarray(found & truth(pc.starts_with(head, "[")), dtype=bool)


def is_entry_start(head: pa.Array) -> np.ndarray:
    """Whether ``head`` starts a log entry (default layout, else ENTRY_START)."""
    found = default_layout(head)
    rest = np.flatnonzero(~found & truth(pc.is_valid(head)))
    if len(rest):
        found[rest] = matches(take(head, rest), ENTRY_START)
    return found


def family(head: pa.Array, kind: pa.Array | None, forced: str) -> pa.Array:
    """The entry's family (``kafka``, ``gc``, else the hint of ``kind``, else ``auto``)."""
    n = len(head)
    if forced != "auto":
        return pa.repeat(pa.scalar(forced, STRING), n)
    out = np.full(n, "", dtype=object)
    kafka = default_layout(head)
    rest = ~kafka
    holds = np.zeros(n, dtype=bool)
    for text in P.GC_LINE_TEXTS:
        holds |= truth(pc.match_substring(head, text))
    gc = np.zeros(n, dtype=bool)
    rows = np.flatnonzero(rest & holds)
    gc[rows] = matches(take(head, rows), GC_LINE)
    rest &= ~gc
    log4j = np.zeros(n, dtype=bool)
    rows = np.flatnonzero(rest)
    log4j[rows] = matches(take(head, rows), LOG4J_LINE)
    hint = pa.nulls(n, STRING)
    if kind is not None:
        lower = pc.utf8_lower(kind)
        hint = when(truth(pc.is_in(lower, value_set=pa.array(KAFKA_KINDS))), "kafka")
        hint = otherwise(truth(pc.equal(lower, "gc")), "gc", hint)
    fallback = coalesce(hint, pa.repeat(pa.scalar("auto", STRING), n))
    del out
    result = otherwise(kafka | log4j, "kafka", fallback)
    return otherwise(gc, "gc", result)


def _tokens_hold(text: pa.Array, words: tuple[str, ...]) -> np.ndarray:
    """Whether ``text`` split at spaces holds one of ``words`` as a token."""
    alternatives = "|".join(_re2_literal(w) for w in words)
    return truth(pc.match_substring_regex(text, f"(?:^| )(?:{alternatives})(?: |\\z)"))


def _re2_literal(text: str) -> str:
    return "".join("\\" + c if c in "\\.^$|?*+()[]{}" else c for c in text)


def _holds_any(text: pa.Array, literals: tuple[str, ...]) -> np.ndarray:
    found = np.zeros(len(text), dtype=bool)
    for literal in literals:
        found |= truth(pc.match_substring(text, literal))
    return found


def passes_prefilter(text: pa.Array, gate: FamilyPrefilter) -> np.ndarray:
    """:meth:`~kafka_health.parsing.prefilter.FamilyPrefilter.passes` per row."""
    found = _holds_any(text, gate.searched)
    if gate.words:
        found |= _tokens_hold(text, gate.words) & _holds_any(text, gate.gated)
    return found


@dataclass(frozen=True)
class CompiledPattern:
    """One pattern as the batch runs it: its RE2 regex and trigger, its literals' anchors."""

    index: int
    pattern: P.EventPattern
    regex: Rewrite
    trigger: Rewrite
    anchors: tuple[str, ...] | None


def compile_patterns(patterns: tuple[P.EventPattern, ...]) -> list[CompiledPattern]:
    """``patterns`` with their RE2 forms (see :mod:`.rewrites`)."""
    out = []
    for i, p in enumerate(patterns):
        literals = P.trigger_literals(p.trigger)
        anchors = None if not literals else tuple(dict.fromkeys(anchor(x) for x in literals))
        out.append(
            CompiledPattern(
                i, p, pattern_rewrite(p, "regex"), pattern_rewrite(p, "trigger"), anchors
            )
        )
    return out


def maybe(
    body: pa.Array, fam: pa.Array, usable: np.ndarray, patterns: tuple[P.EventPattern, ...]
) -> np.ndarray:
    """``_maybe``: a usable entry that holds a text of its family's prefilter."""
    gates = prefilter_gates(patterns)
    rows = np.flatnonzero(usable)
    out = np.zeros(len(body), dtype=bool)
    if not len(rows):
        return out
    text, fams = take(body, rows), take(fam, rows)
    if gates is None:
        union = "|".join(f"(?:{pattern_rewrite(p, 'trigger').re2})" for p in patterns)
        out[rows] = truth(pc.match_substring_regex(text, union))
        return out
    found = np.zeros(len(rows), dtype=bool)
    for name, gate in gates.items():
        if not (gate.searched or gate.words):
            continue
        other = "gc" if name == "kafka" else "kafka"
        allowed = truth(pc.not_equal(fams, other))
        found |= allowed & passes_prefilter(text, gate)
    out[rows] = found
    return out


def _open_rows(
    candidates: np.ndarray, fam: pa.Array, text: pa.Array, c: CompiledPattern
) -> np.ndarray:
    other = "gc" if c.pattern.family == "kafka" else "kafka"
    open_ = candidates & truth(pc.not_equal(fam, other))
    rows = np.flatnonzero(open_)
    if c.anchors is not None and len(rows):
        rows = rows[_holds_any(take(text, rows), c.anchors)]
    return rows


def pattern_ids(
    head: pa.Array,
    body: pa.Array,
    fam: pa.Array,
    maybe_rows: np.ndarray,
    compiled: list[CompiledPattern],
) -> np.ndarray:
    """The index of the first pattern matching each ``_maybe`` row (-1: none)."""
    pid = np.full(len(head), -1, dtype=np.int64)
    for c in compiled:
        text = body if c.pattern.scope == "entry" else head
        rows = _open_rows(maybe_rows & (pid < 0), fam, text, c)
        if len(rows):
            pid[rows[matches(take(text, rows), c.regex)]] = c.index
    return pid


def suspects(
    head: pa.Array,
    body: pa.Array,
    fam: pa.Array,
    unmatched: np.ndarray,
    compiled: list[CompiledPattern],
) -> pa.Array:
    """For an unmatched ``_maybe`` row, the event of the first pattern whose trigger matches."""
    found = np.full(len(head), -1, dtype=np.int64)
    for c in compiled:
        text = body if c.pattern.scope == "entry" else head
        rows = _open_rows(unmatched & (found < 0), fam, text, c)
        if len(rows):
            found[rows[matches(take(text, rows), c.trigger)]] = c.index
    events = pa.array([c.pattern.event for c in compiled] or [""], STRING)
    return when(found >= 0, events.take(pa.array(np.maximum(found, 0))))


def matched_groups(
    head: pa.Array, body: pa.Array, pid: np.ndarray, compiled: list[CompiledPattern]
) -> dict[str, pa.Array]:
    """The matched pattern's named groups per row (null where the row has none of a name;
    the empty text where a group did not take part)."""
    n = len(head)
    parts: dict[str, list[tuple[np.ndarray, pa.Array]]] = {}
    for c in compiled:
        rows = np.flatnonzero(pid == c.index)
        if not len(rows):
            continue
        text = body if c.pattern.scope == "entry" else head
        found = groups(take(text, rows), c.regex.re2)
        if found is None:
            continue
        for k in range(found.type.num_fields):
            name = found.type.field(k).name
            parts.setdefault(name, []).append((rows, pc.struct_field(found, [k])))
    out: dict[str, pa.Array] = {}
    for name, pieces in parts.items():
        where = np.full(n, -1, dtype=np.int64)
        values = pa.concat_arrays([v.cast(STRING) for _rows, v in pieces])
        at = 0
        for rows, v in pieces:
            where[rows] = np.arange(at, at + len(v))
            at += len(v)
        out[name] = values.take(pa.array(where, mask=where < 0))
    for name in [k for k in out if "__" in k]:
        base = name.split("__")[0]
        main = out.get(base, pa.nulls(n, STRING))
        spare = out.pop(name)
        out[base] = pc.if_else(
            pc.fill_null(pc.not_equal(main, ""), False),
            main,
            coalesce(pc.if_else(pc.equal(spare, ""), pa.scalar(None, STRING), spare), main),
        )
    return out
