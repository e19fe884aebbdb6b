"""Entries -> events for one Arrow batch: what :func:`~kafka_health.parsing.events.parse_entries`
computes (the same columns, in the same order, with the same options)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing import patterns as P
from kafka_health.parsing.arrow.arrays import (
    STRING,
    coalesce,
    empty_to_null,
    otherwise,
    truth,
    when,
)
from kafka_health.parsing.arrow.fields import event_fields
from kafka_health.parsing.arrow.layout import layout_text
from kafka_health.parsing.arrow.matching import (
    CONTINUATION,
    CompiledPattern,
    compile_patterns,
    family,
    first_line,
    is_entry_start,
    matched_groups,
    maybe,
    pattern_ids,
    suspects,
)
from kafka_health.parsing.arrow.regexes import matches
from kafka_health.parsing.arrow.times import millis_of_iso
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.events import EVENT_FIELDS, LETTER_ONLY


@dataclass(frozen=True)
class ParseOptions:
    """How :func:`parse_entries_batch` runs (``parse_entries``' arguments)."""

    config: ParsingConfig
    kind: str = "auto"
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS
    keep_message: bool = True
    values_for_dead_letters_only: bool = False


_COMPILED: dict[tuple[P.EventPattern, ...], list[CompiledPattern]] = {}


def _compiled(patterns: tuple[P.EventPattern, ...]) -> list[CompiledPattern]:
    if patterns not in _COMPILED:
        _COMPILED[patterns] = compile_patterns(patterns)
    return _COMPILED[patterns]


def _source_millis(cols: dict[str, pa.Array]) -> pa.Array | None:
    stamp = cols.get("source_timestamp")
    if stamp is None:
        return None
    per_second = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[stamp.type.unit]
    raw = pc.cast(stamp, pa.int64())
    values = np.asarray(pc.fill_null(raw, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    millis = values * 1000 // per_second if per_second <= 1000 else values // (per_second // 1000)
    return pc.if_else(pc.is_valid(raw), pa.array(millis), pa.scalar(None, pa.int64()))


def parse_entries_batch(cols: dict[str, pa.Array], options: ParseOptions) -> dict[str, pa.Array]:
    """``cols`` (entries, in order) with ``outcome``, ``reason``, ``type``, the event fields
    and ``event_ms``; ``message`` left out unless ``keep_message``."""
    config, n = options.config, len(cols["message"])
    message = pc.fill_null(cols["message"], "")
    text = layout_text(message)
    head = first_line(text, config.scan_chars)
    body = pc.utf8_slice_codeunits(text, 0, config.scan_chars)
    fam = family(head, cols.get("kind"), options.kind)
    bad = cols.get("bad_reason", pa.nulls(n, STRING))
    size = pc.binary_length(cols["message"])
    continued = truth(cols["continued"]) if "continued" in cols else np.zeros(n, dtype=bool)
    starts = is_entry_start(head)
    continuation = continued | (~starts & truth(pc.match_substring_regex(head, CONTINUATION.re2)))
    usable = truth(pc.is_null(bad)) & truth(pc.greater(size, 0)) & ~continuation
    maybe_rows = maybe(body, fam, usable, options.patterns)
    out = dict(cols)
    if not options.keep_message:
        out.pop("message")
    both = truth(pc.is_in(fam, value_set=pa.array(["gc", "kafka"])))
    may_be_letter = maybe_rows | truth(pc.is_valid(bad)) | truth(pc.equal(size, 0)) | ~both
    if options.values_for_dead_letters_only:
        named = (
            truth(pc.is_valid(empty_to_null(pc.utf8_trim(cols["broker_id"], " "))))
            if "broker_id" in cols
            else np.zeros(n, dtype=bool)
        )
        head = when(may_be_letter | ~named, head)
        for name in LETTER_ONLY:
            if name in out:
                out[name] = when(may_be_letter, out[name])
    compiled = _compiled(options.patterns)
    pid = pattern_ids(head, body, fam, maybe_rows, compiled)
    matched = pid >= 0
    if options.values_for_dead_letters_only:
        for name in LETTER_ONLY:
            if name in out:
                out[name] = when(~matched, out[name])
    suspect = suspects(head, body, fam, maybe_rows & ~matched, compiled)
    found = matched_groups(head, body, pid, compiled)

    def g(name: str) -> pa.Array:
        return empty_to_null(found[name]) if name in found else pa.nulls(n, STRING)

    fields = event_fields(pid, g, head, cols.get("broker_id"), options.patterns)
    outcome = otherwise(
        matched,
        "event",
        otherwise(
            truth(pc.is_valid(suspect)), "malformed", pa.repeat(pa.scalar("unrecognised"), n)
        ),
    )
    unknown = ~both & ~is_entry_start(head)
    reason = pa.repeat(pa.scalar("no_event"), n)
    for cond, value in reversed(
        [
            (matched, pa.scalar(None, STRING)),
            (truth(pc.is_valid(suspect)), suspect),
            (truth(pc.is_valid(bad)), bad),
            (truth(pc.equal(size, 0)), "empty"),
            (continuation, "continuation"),
            (unknown, "unknown_format"),
        ]
    ):
        reason = otherwise(cond, value, reason)
    out["outcome"], out["reason"], out["type"] = outcome, reason, fields.pop("type")
    for name in EVENT_FIELDS:
        out[name] = fields[name]
    source_ms = _source_millis(cols)
    stamped = millis_of_iso(fields["ts"], config.log_timezone)
    event_ms = coalesce(stamped, source_ms) if source_ms is not None else stamped
    out["event_ms"] = when(matched, event_ms, pa.int64())
    return out


__all__ = ["ParseOptions", "matches", "parse_entries_batch"]
