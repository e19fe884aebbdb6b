"""Running the rewritten regexes (:mod:`.rewrites`) over arrays: a boolean per row, or the
named groups of each row's first match. A regex runs only on the rows given to it."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing.arrow.arrays import STRING, any_per_row, take, truth
from kafka_health.parsing.arrow.java_regex import JAVA_LINE_END
from kafka_health.parsing.arrow.rewrites import Rewrite

_UNNAMED = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]|\((?!\?)")


def name_groups(re2: str) -> str:
    """``re2`` with each unnamed capturing group named ``g1``, ``g2``... in order (pyarrow's
    extract reads named groups only)."""
    count = 0

    def rename(m: re.Match[str]) -> str:
        nonlocal count
        if m.group(0) != "(":
            return m.group(0)
        count += 1
        return f"(?P<g{count}>"

    return _UNNAMED.sub(rename, re2)


def matches(texts: pa.Array, rw: Rewrite) -> np.ndarray:
    """Whether each text matches ``rw`` (null texts do not)."""
    if rw.later_on_line is not None:
        return _literal_free_on_a_line(texts, rw.re2, rw.later_on_line)
    found = truth(pc.match_substring_regex(texts, rw.re2))
    if rw.also is not None:
        found &= truth(pc.match_substring_regex(texts, rw.also))
    if rw.unless is not None:
        found &= ~truth(pc.match_substring_regex(texts, rw.unless))
    if rw.alternative is not None:
        found |= matches(texts, rw.alternative)
    return found


def _literal_free_on_a_line(texts: pa.Array, literal: str, later: str) -> np.ndarray:
    """``literal(?!.*later)`` (``.`` Java's): some line holds ``literal`` and no ``later``
    after the last ``literal`` on it."""
    n = len(texts)
    rows = np.flatnonzero(truth(pc.match_substring(texts, literal)))
    out = np.zeros(n, dtype=bool)
    if not len(rows):
        return out
    lines = pc.split_pattern_regex(take(texts, rows), f"[{JAVA_LINE_END}]")
    flat = pc.list_flatten(lines)
    parents = np.asarray(pc.list_parent_indices(lines).to_numpy(zero_copy_only=False))
    tail = pc.struct_field(
        pc.extract_regex(flat, rf"(?s)^.*{re.escape(literal)}(?P<tail>.*)$"), "tail"
    )
    free = truth(pc.is_valid(tail)) & ~truth(pc.match_substring(tail, later))
    out[rows] = any_per_row(len(rows), parents, free)
    return out


def groups(texts: pa.Array, re2: str) -> pa.StructArray | None:
    """The named groups of each text's first match (null row: no match); None when the
    regex names none."""
    if "(?P<" not in re2:
        return None
    return pc.extract_regex(pc.fill_null(texts, ""), re2)


def extract(texts: pa.Array, re2: str, group: str = "g1") -> pa.Array:
    """``regexp_extract(text, regex, n)``: the group's text, "" where the regex finds nothing,
    null for a null text."""
    found = pc.struct_field(pc.extract_regex(pc.fill_null(texts, ""), re2), group)
    out = pc.fill_null(found, "")
    return pc.if_else(pc.is_valid(texts), out, pa.scalar(None, STRING))
