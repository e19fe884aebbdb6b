"""Kafka records -> log entries for one Arrow batch: what
:func:`~kafka_health.parsing.envelope.decode_records` computes, with pyarrow kernels.

Sizes and bad input first (empty, oversize, invalid UTF-8 by an RE2 over the bytes, control
characters), then the JSON records read once for the batch (:mod:`.jsontext`), the
configured paths, the record's key, the checked broker id and kind.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing.arrow.arrays import (
    STRING,
    coalesce,
    const,
    empty_to_null,
    nulls,
    otherwise,
    truth,
    when,
)
from kafka_health.parsing.arrow.jsontext import Documents, Objects, get_json_object, is_json_value
from kafka_health.parsing.arrow.rewrites import KIND_FROM_FILE
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.envelope import (
    BINARY_CHARACTERS,
    BROKER_ID_MAX,
    LOG_KINDS,
    PRE_ECS_BEATS,
    VALUE_KEPT_MIN_BYTES,
)
from kafka_health.parsing.jsonlayout import LEVEL, LOGGER, MESSAGE

VALID_UTF8 = (
    r"^(?:[\x00-\x7F]|[\xC2-\xDF][\x80-\xBF]|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF]"
    r"[\x80-\xBF]{2}|\xED[\x80-\x9F][\x80-\xBF]|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3]"
    r"[\x80-\xBF]{3}|\xF4[\x80-\x8F][\x80-\xBF]{2})*$"
)
"""Well-formed UTF-8 (Unicode's table 3-7), run over the bytes (RE2 reads binary as Latin-1)."""
BINARY_CLASS = "[" + "".join(f"\\x{ord(c):02X}" for c in BINARY_CHARACTERS) + "]"
KEY_IS_ID = r"^[\t\n\x0B\f\r ]*[0-9]+[\t\n\x0B\f\r ]*(?:\r\n|[\n\r]|\xC2\x85|\xE2\x80[\xA8\xA9])?\z"
"""``^\\s*\\d+\\s*$`` (Java's) over the key's bytes (a key need not be UTF-8): Java's final
line terminators spelled in UTF-8."""
BROKER_ID = r"^(?:0|[1-9][0-9]{0,9})$"


def _bool(arr: pa.Array) -> np.ndarray:
    return truth(arr)


class JsonPaths:
    """The configured dotted paths read from one batch's parsed JSON records."""

    def __init__(self, docs: Documents, ok: np.ndarray) -> None:
        self.docs, self.ok = docs, ok
        self._nested: dict[str, Objects] = {}

    def path(self, dotted: str, layouts: bool = False) -> pa.Array:
        """:func:`~kafka_health.parsing.envelope.json_path` of every row."""
        first, *rest = dotted.split(".")
        value = self.docs.get(first)
        if rest:
            if first not in self._nested:
                self._nested[first] = Objects(value)
            value = self._nested[first].get(tuple(rest))
        opens = pc.or_(pc.starts_with(value, "["), pc.starts_with(value, "{"))
        closes = pc.or_(pc.ends_with(value, "]"), pc.ends_with(value, "}"))
        brackets = _bool(pc.and_(opens, closes))
        structured = np.zeros(len(value), dtype=bool)
        rows = np.flatnonzero(brackets)
        if len(rows):
            sub = value.take(pa.array(rows))
            held = is_json_value(sub)
            if layouts:
                held &= _bool(pc.is_null(get_json_object(sub, ("message",))))
            structured[rows] = held
        keep = ~structured & _bool(pc.not_equal(value, ""))
        return when(keep, value)

    def first(self, paths: list[str], layouts: bool = False) -> pa.Array:
        """The first non-empty scalar among ``paths``, on JSON records only."""
        if not paths:
            return nulls(len(self.ok))
        found = coalesce(*[self.path(p, layouts) for p in paths])
        return when(self.ok, found)

    def has(self, key: str) -> np.ndarray:
        return _bool(pc.is_valid(self.docs.get(key)))


def is_layout_record(paths: JsonPaths) -> np.ndarray:
    """:func:`~kafka_health.parsing.jsonlayout.is_layout_record` over the parsed records."""

    def has(keys: tuple[tuple[str, ...], ...]) -> np.ndarray:
        return np.asarray(
            np.logical_or.reduce([paths.has(k[0]) for k in keys if len(k) == 1]), dtype=bool
        )

    return np.asarray(has(MESSAGE) & has(LEVEL) & has(LOGGER), dtype=bool)


def envelope_name(paths: JsonPaths) -> pa.Array:
    """:func:`~kafka_health.parsing.envelope.envelope_name`."""
    h = paths.has
    schema = _bool(pc.starts_with(paths.docs.get("schema"), "kafka-health/log/"))
    choices = [
        (schema, "kafka-health"),
        (is_layout_record(paths), "log4j-json"),
        (h("@metadata") | h("agent") | h("ecs") | h("beat"), "filebeat"),
        (h("source_type"), "vector"),
        (h("syslogtag") | h("syslog-tag") | h("programname"), "rsyslog"),
        (h("log") & ~h("message"), "fluent-bit"),
    ]
    out = const(len(schema), "json")
    for cond, name in reversed(choices):
        out = otherwise(cond, name, out)
    return out


def kind_from_file(file: pa.Array) -> pa.Array:
    """server / controller / state-change / gc from a log file name; null when unknown."""
    groups = pc.extract_regex(pc.fill_null(file, ""), KIND_FROM_FILE.re2)
    named = empty_to_null(pc.fill_null(pc.struct_field(groups, "g1"), ""))
    gc = _bool(pc.not_equal(pc.fill_null(pc.struct_field(groups, "g2"), ""), ""))
    out = otherwise(gc, "gc", nulls(len(file)))
    out = pc.if_else(pc.is_valid(named), named, out)
    return when(_bool(pc.is_valid(file)), out)


def valid_broker_id(text: pa.Array) -> np.ndarray:
    """Kafka's node id written as Kafka writes it (:func:`~.envelope.valid_broker_id`)."""
    shaped = _bool(pc.match_substring_regex(text.cast(pa.binary()), BROKER_ID))
    number = pc.cast(pc.if_else(pa.array(shaped), text, "0"), pa.int64())
    return np.asarray(shaped & _bool(pc.less_equal(number, BROKER_ID_MAX)), dtype=bool)


def _sized(batch: dict[str, pa.Array], config: ParsingConfig) -> dict[str, pa.Array]:
    value = batch["source_value"]
    size = pc.fill_null(pc.binary_length(value), 0).cast(pa.int32())
    kept = max(config.dead_letter.max_value_bytes, VALUE_KEPT_MIN_BYTES)
    cut = pc.binary_slice(value, 0, kept)
    return {
        "_size": size,
        "source_value_bytes": size,
        "source_value": pc.if_else(pc.greater(size, kept), cut, value),
    }


def decode_batch(batch: dict[str, pa.Array], config: ParsingConfig) -> dict[str, pa.Array]:
    """``batch`` (the source columns renamed ``source_*``) with the decoded entry's columns:
    ``source_value_bytes``, ``message``, ``bad_reason``, ``file``, ``broker_id``, ``host``,
    ``kind``, ``envelope``, ``n_lines`` (and ``source_value`` cut to what is carried)."""
    n = len(batch["source_value"])
    raw = batch["source_value"]
    sized = _sized(batch, config)
    size = np.asarray(sized["_size"].to_numpy(zero_copy_only=False), dtype=np.int64)
    small = size <= config.max_entry_bytes
    valid_utf8 = _bool(pc.match_substring_regex(pc.fill_null(raw, b""), VALID_UTF8))
    text_ok = small & (size > 0) & valid_utf8
    safe = pc.if_else(pa.array(text_ok), raw, pa.scalar(b"", raw.type))
    text = when(text_ok, pc.cast(safe, pa.binary()).view(STRING))
    binary = np.zeros(n, dtype=bool)
    binary[text_ok] = _bool(pc.match_substring_regex(text.filter(pa.array(text_ok)), BINARY_CLASS))
    pre_bad = nulls(n)
    for cond, reason in reversed(
        [
            (size == 0, "empty"),
            (size > config.max_entry_bytes, "oversize"),
            (~valid_utf8, "not_utf8"),
            (binary, "binary"),
        ]
    ):
        pre_bad = otherwise(cond, reason, pre_bad)
    clean = text_ok & ~binary
    is_json = clean & _bool(pc.starts_with(pc.utf8_ltrim(text, " "), "{"))
    json_rows = np.flatnonzero(is_json)
    docs = Documents(scatter_texts(n, json_rows, text))
    parsed_ok = np.zeros(n, dtype=bool)
    parsed_ok[json_rows] = docs.parsed.valid[json_rows]
    paths = JsonPaths(docs, parsed_ok)
    fields = config.fields
    json_message = paths.first(fields.message, layouts=True)
    layout = parsed_ok & is_layout_record(paths)
    message = pc.if_else(pa.array(is_json), json_message, text)
    message = pc.if_else(pa.array(layout), text, message)
    message = when(clean, message)
    bad = coalesce(
        pre_bad,
        when(is_json & ~parsed_ok, "bad_json"),
        when(parsed_ok & _bool(pc.is_null(json_message)), "no_message"),
    )
    file = coalesce(paths.first(fields.file), _pre_ecs(paths, "file"))
    key_broker, key_host = _key_parts(batch.get("source_key"), config.record_key, n)
    broker_id = trim_spaces(coalesce(paths.first(fields.broker_id), key_broker))
    host = coalesce(paths.first(fields.host), _pre_ecs(paths, "host"), key_host)
    given = pc.utf8_lower(paths.first(fields.kind))
    kind = coalesce(
        when(_bool(pc.is_in(given, value_set=pa.array(LOG_KINDS))), given),
        kind_from_file(file),
        when(_bool(pc.is_valid(given)), "other"),
    )
    good_id = valid_broker_id(broker_id)
    bad = coalesce(bad, when(_bool(pc.not_equal(broker_id, "")) & ~good_id, "bad_broker_id"))
    envelope = otherwise(
        parsed_ok, envelope_name(paths), when(_bool(pc.is_null(pre_bad)) & ~is_json, "raw")
    )
    msg = pc.fill_null(message, "")
    n_lines = pc.add(pc.count_substring(msg, "\n"), 1).cast(pa.int32())
    return {
        **{k: v for k, v in batch.items()},
        "source_value": sized["source_value"],
        "source_value_bytes": sized["source_value_bytes"],
        "message": message,
        "bad_reason": bad,
        "file": file,
        "broker_id": when(good_id, broker_id),
        "host": host,
        "kind": kind,
        "envelope": envelope,
        "n_lines": n_lines,
    }


def scatter_texts(n: int, rows: np.ndarray, text: pa.Array) -> pa.Array:
    """``text`` at ``rows``, null elsewhere (the JSON reader's input)."""
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return when(mask, text)


def _pre_ecs(paths: JsonPaths, part: str) -> pa.Array:
    beats = paths.ok & paths.has("beat")
    return when(beats, paths.path(PRE_ECS_BEATS[part]))


def _key_parts(key: pa.Array | None, record_key: str, n: int) -> tuple[pa.Array, pa.Array]:
    """What the record's key gives: a broker id, a host, or (``auto``) the one it looks like."""
    if key is None or record_key == "none":
        return nulls(n), nulls(n)
    raw = key.cast(pa.binary())
    text = raw.view(STRING)
    if record_key == "broker_id":
        return text, nulls(n)
    if record_key == "host":
        return nulls(n), text
    is_id = _bool(pc.match_substring_regex(raw, KEY_IS_ID))
    return when(is_id, trim_spaces(text)), when(~is_id & _bool(pc.is_valid(raw)), text)


def trim_spaces(text: pa.Array) -> pa.Array:
    """Spark's ``trim``: spaces off both ends, byte by byte (the text need not be UTF-8)."""
    raw = text.cast(pa.binary()) if text.type != pa.binary() else text
    return pc.replace_substring_regex(raw, "^ +| +$", "").view(STRING)
