"""JSON texts read per batch as Spark's Jackson reads them, with RE2 and array arithmetic.

Vectorized JSON readers (pyarrow's) infer one type per key over a batch and refuse a key that
is a string in one record and an object in another, which the supported envelopes do
(``host``, ``log``); and they reject a whole block for one bad record. Here instead:

1. RE2 marks every token of every text (strings, numbers, literals, punctuation, blanks, and
   any other single character as junk) and the texts are split there: one flat array of
   tokens for the batch, with each token's row.
2. Depth is a running sum of brackets; the first value of a text ends where its depth is 0
   again (Jackson reads the first value and ignores what follows it).
3. Its grammar is checked on a string of token classes per row, reduced by RE2 from the
   innermost brackets out (``{s:n}`` -> ``v``) until one ``v`` is left: a pass per level.
4. The members of a root object are the tokens at depth 1 around each ``:``; a value is its
   token (a string unescaped, a number as Jackson writes it again) or, for an object or array,
   its tokens joined again compact, strings escaped as Jackson's generator escapes them.

Two readers: ``from_json`` (Spark's options: ``NaN`` and infinities, single quotes; nesting to
1000; a repeated key: the last) and ``get_json_object`` (no ``NaN``; a repeated key: the first).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafka_health.parsing.arrow.arrays import (
    any_per_row,
    lengths,
    scatter,
    string_from_bytes,
    string_parts,
    take,
    utf8_from_code_points,
)

_ESCAPE = r"""\\(?:["'\\/bfnrt]|u[0-9A-Fa-f]{4})"""
_DQ = rf""""(?:[^"\\\x00-\x1f]|{_ESCAPE})*\""""
_SQ = rf"""'(?:[^'\\\x00-\x1f]|{_ESCAPE})*'"""
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_NON_NUMERIC = r"NaN|-Infinity|-INF|\+Infinity|\+INF|Infinity"
_REST = r"true|false|null|[{}\[\]:,]|[ \t\n\r]+|(?s:.)"
TOKEN_SPARK = f"{_DQ}|{_SQ}|{_NON_NUMERIC}|{_NUMBER}|{_REST}"
TOKEN_GJO = f"{_DQ}|{_SQ}|{_NUMBER}|{_REST}"
MAX_DEPTH = 1000
MAX_NUMBER_DIGITS = 1000

# Token classes.
OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA = 1, 2, 3, 4, 5, 6
STRING_TOKEN, NUMBER_TOKEN, LITERAL_TOKEN, NULL_TOKEN, BLANK, JUNK = 7, 8, 9, 10, 11, 12
_CLASS_CHAR = np.frombuffer(b"?{}[]:,snnnwj", dtype=np.uint8)
_REDUCE_OBJECT = r"\{(?:s:[snv](?:,s:[snv])*)?\}"
_REDUCE_ARRAY = r"\[(?:[snv](?:,[snv])*)?\]"


@dataclass(frozen=True)
class Members:
    """The members of the valid root objects of a batch of texts, in text order."""

    row: np.ndarray
    key: pa.Array
    kind: np.ndarray
    text: pa.Array

    def pick(self, n: int, key: str, last: bool) -> tuple[pa.Array, np.ndarray]:
        """Per row of ``n``, the text of member ``key`` (the last or the first of a repeated
        one; null for a JSON null or none) and its token class (0 for none)."""
        sel = np.flatnonzero(np.asarray(pc.equal(self.key, key).to_numpy(zero_copy_only=False)))
        rows = self.row[sel]
        if len(sel):
            keep = np.ones(len(sel), dtype=bool)
            if last:
                keep[:-1] = rows[:-1] != rows[1:]
            else:
                keep[1:] = rows[1:] != rows[:-1]
            sel, rows = sel[keep], rows[keep]
        kinds = np.zeros(n, dtype=np.int64)
        kinds[rows] = self.kind[sel]
        return scatter(n, rows, take(self.text, sel)), kinds


@dataclass(frozen=True)
class Parsed:
    """What a reader found in a batch of texts: which hold one well-formed first value (an
    object or an array) and the members of the objects among them."""

    valid: np.ndarray
    members: Members


def _tokens(texts: pa.Array, token: str) -> tuple[pa.Array, np.ndarray]:
    """Every token of every text (flat) and its row."""
    safe = pc.replace_substring(pc.fill_null(texts, ""), "\x01", "\x02")
    pieces = pc.split_pattern(pc.replace_substring_regex(safe, token, "\x01\\0"), "\x01")
    flat = pc.list_flatten(pieces)
    parents = np.asarray(pc.list_parent_indices(pieces).to_numpy(zero_copy_only=False))
    keep = np.flatnonzero(lengths(flat) > 0)
    return take(flat, keep), parents[keep]


def _classes(flat: pa.Array, spark: bool) -> np.ndarray:
    """Each token's class."""
    data, offsets = string_parts(flat)
    size = np.diff(offsets)
    first = data[offsets[:-1]] if len(size) else np.zeros(0, np.uint8)
    cls = np.full(len(size), JUNK, dtype=np.int8)
    for ch, c in (
        (b"{", OPEN_OBJECT),
        (b"}", CLOSE_OBJECT),
        (b"[", OPEN_ARRAY),
        (b"]", CLOSE_ARRAY),
        (b":", COLON),
        (b",", COMMA),
    ):
        cls[first == ch[0]] = c
    for blank in b" \t\n\r":
        cls[first == blank] = BLANK
    quote = (first == ord('"')) | (first == ord("'"))
    cls[quote & (size >= 2)] = STRING_TOKEN
    digit = (first >= ord("0")) & (first <= ord("9"))
    signed = np.isin(first, np.frombuffer(b"-+NI", dtype=np.uint8)) & (size >= 2)
    number = digit | signed
    digits = size - np.isin(first, np.frombuffer(b"-+", dtype=np.uint8))
    cls[number & (digits <= MAX_NUMBER_DIGITS)] = NUMBER_TOKEN
    cls[(first == ord("t")) & (size == 4)] = LITERAL_TOKEN
    cls[(first == ord("f")) & (size == 5)] = LITERAL_TOKEN
    cls[(first == ord("n")) & (size == 4)] = NULL_TOKEN
    del spark
    return cls


def _reduces_to_value(classes: pa.Array) -> np.ndarray:
    """Whether each class string is one well-formed value (reduced a level per pass)."""
    n = len(classes)
    valid = np.zeros(n, dtype=bool)
    pending = np.arange(n)
    current = classes
    for _ in range(MAX_DEPTH + 2):
        if not len(pending):
            break
        reduced = pc.replace_substring_regex(current, _REDUCE_OBJECT, "v")
        reduced = pc.replace_substring_regex(reduced, _REDUCE_ARRAY, "v")
        done = np.asarray(pc.equal(reduced, "v").to_numpy(zero_copy_only=False))
        valid[pending[done]] = True
        moved = np.asarray(pc.not_equal(reduced, current).to_numpy(zero_copy_only=False))
        go_on = moved & ~done
        pending, current = pending[go_on], take(reduced, np.flatnonzero(go_on))
    return valid


def parse(texts: pa.Array, spark: bool) -> Parsed:
    """Read each text's first value (``spark``: from_json's reader, else get_json_object's)."""
    n = len(texts)
    flat, parents = _tokens(texts, TOKEN_SPARK if spark else TOKEN_GJO)
    cls = _classes(flat, spark)
    solid = np.flatnonzero(cls != BLANK)
    flat, parents, cls = take(flat, solid), parents[solid], cls[solid]
    delta = np.isin(cls, (OPEN_OBJECT, OPEN_ARRAY)).astype(np.int64) - np.isin(
        cls, (CLOSE_OBJECT, CLOSE_ARRAY)
    ).astype(np.int64)
    total = np.cumsum(delta)
    starts = np.searchsorted(parents, np.arange(n))
    ends = np.searchsorted(parents, np.arange(n), side="right")
    before = np.where(starts > 0, total[np.maximum(starts - 1, 0)], 0)
    depth = total - before[parents]
    has_tokens = ends > starts
    opens = np.zeros(n, dtype=bool)
    opens[has_tokens] = np.isin(cls[starts[has_tokens]], (OPEN_OBJECT, OPEN_ARRAY))
    zeros = np.flatnonzero(depth == 0)
    at = np.searchsorted(zeros, starts)
    closing = zeros[np.minimum(at, len(zeros) - 1)] if len(zeros) else np.full(n, -1)
    closing = np.where(at < len(zeros), closing, -1)
    closed = opens & (closing >= starts) & (closing < ends)
    last = np.where(closed, closing, starts - 1)
    index = np.arange(len(cls))
    in_doc = closed[parents] & (index <= last[parents]) if len(cls) else np.zeros(0, bool)
    too_deep = any_per_row(n, parents, in_doc & (depth > MAX_DEPTH))
    candidates = closed & ~too_deep
    doc = np.flatnonzero(in_doc & candidates[parents])
    counts = np.bincount(parents[doc], minlength=n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    valid = (
        candidates & _reduces_to_value(string_from_bytes(_CLASS_CHAR[cls[doc]], offsets))
        if n
        else np.zeros(0, dtype=bool)
    )
    members = _members(flat, parents, cls, depth - delta, in_doc & valid[parents], n)
    return Parsed(valid, members)


def _members(
    flat: pa.Array,
    parents: np.ndarray,
    cls: np.ndarray,
    depth_before: np.ndarray,
    in_doc: np.ndarray,
    n: int,
) -> Members:
    """The root objects' members (see the module docstring)."""
    level = in_doc & (depth_before == 1)
    colons = np.flatnonzero(level & (cls == COLON))
    separators = np.flatnonzero(level & np.isin(cls, (COMMA, CLOSE_OBJECT)))
    starts = colons + 1
    ends = separators[np.searchsorted(separators, starts)] if len(colons) else starts
    keys = take(flat, colons - 1)
    key_text = unescape(pc.utf8_slice_codeunits(keys, 1, -1))
    kinds = cls[starts] if len(starts) else np.zeros(0, np.int8)
    return Members(
        parents[colons], key_text, kinds.astype(np.int64), _value_texts(flat, cls, starts, ends)
    )


def _value_texts(flat: pa.Array, cls: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """Each value's text as Spark reads it into a string field."""
    m = len(starts)
    scalar = (ends - starts) == 1
    out = pa.nulls(m, pa.string())
    single = np.flatnonzero(scalar)
    first = take(flat, starts[single])
    kinds = cls[starts[single]]
    texts = pc.if_else(
        pa.array(kinds == STRING_TOKEN),
        unescape(pc.utf8_slice_codeunits(first, 1, -1)),
        normal_tokens(first, kinds),
    )
    texts = pc.if_else(pa.array(kinds == NULL_TOKEN), pa.scalar(None, pa.string()), texts)
    out = _merge(out, single, texts)
    nested = np.flatnonzero(~scalar)
    if len(nested):
        size = ends[nested] - starts[nested]
        offsets = np.zeros(len(nested) + 1, dtype=np.int64)
        np.cumsum(size, out=offsets[1:])
        index = np.arange(offsets[-1]) - np.repeat(offsets[:-1] - starts[nested], size)
        parts = normal_tokens(take(flat, index), cls[index])
        joined = pc.binary_join(pa.LargeListArray.from_arrays(pa.array(offsets), parts), "")
        out = _merge(out, nested, joined.cast(pa.string()))
    return out


def _merge(base: pa.Array, rows: np.ndarray, values: pa.Array) -> pa.Array:
    if not len(rows):
        return base
    mask = np.zeros(len(base), dtype=bool)
    mask[rows] = True
    return pc.if_else(pa.array(mask), scatter(len(base), rows, values), base)


def normal_tokens(tokens: pa.Array, kinds: np.ndarray) -> pa.Array:
    """Tokens as Jackson's generator writes them again: strings with double quotes and its
    escapes, numbers as it prints the value read, the rest as they are."""
    out = tokens
    strings = np.flatnonzero(kinds == STRING_TOKEN)
    if len(strings):
        picked = take(tokens, strings)
        plain = np.asarray(
            pc.and_(
                pc.starts_with(picked, '"'), pc.invert(pc.match_substring(picked, "\\"))
            ).to_numpy(zero_copy_only=False)
        )
        redo = strings[~plain]
        if len(redo):
            content = unescape(pc.utf8_slice_codeunits(take(tokens, redo), 1, -1))
            quoted = pc.binary_join_element_wise('"', jackson_escape(content), '"', "")
            out = _merge(out, redo, quoted)
    numbers = np.flatnonzero(kinds == NUMBER_TOKEN)
    if len(numbers):
        out = _merge(out, numbers, java_number_text(take(tokens, numbers)))
    return out


def jackson_escape(texts: pa.Array) -> pa.Array:
    """Strings escaped as Jackson's JSON generator escapes them (``\\``, ``"``, and control
    characters: ``\\b \\t \\n \\f \\r`` short, the others ``\\u00XX``)."""
    out = pc.replace_substring(texts, "\\", "\\\\")
    out = pc.replace_substring(out, '"', '\\"')
    if pc.any(pc.match_substring_regex(out, r"[\x00-\x1f]")).as_py():
        short = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}
        for code in range(32):
            out = pc.replace_substring(out, chr(code), short.get(code, f"\\u{code:04X}"))
    return out


_SIMPLE = ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\'"]
_SIMPLE_TO = ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "'"]
_PAIR = r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"


def unescape(contents: pa.Array) -> pa.Array:
    """JSON string contents (quotes removed) decoded: escapes to characters; a lone surrogate
    becomes ``?``, as Spark writes it."""
    has = np.flatnonzero(
        np.asarray(
            pc.fill_null(pc.match_substring(contents, "\\"), False).to_numpy(zero_copy_only=False)
        )
    )
    if not len(has):
        return contents
    sub = take(contents, has)
    marked = pc.replace_substring_regex(sub, rf"{_PAIR}|\\u[0-9A-Fa-f]{{4}}|\\.", "\x01\\0\x01")
    pieces = pc.split_pattern(marked, "\x01")
    flat = pc.list_flatten(pieces)
    escape = np.asarray(pc.starts_with(flat, "\\").to_numpy(zero_copy_only=False))
    size = lengths(flat)
    decoded = flat
    simple = np.flatnonzero(escape & (size == 2))
    if len(simple):
        which = pc.index_in(take(flat, simple), value_set=pa.array(_SIMPLE))
        decoded = _merge(decoded, simple, pa.array(_SIMPLE_TO).take(which))
    coded = np.flatnonzero(escape & (size > 2))
    if len(coded):
        data, offsets = string_parts(take(flat, coded))
        cps = _hex4(data, offsets[:-1] + 2)
        pair = np.diff(offsets) == 12
        low = _hex4(data, np.where(pair, offsets[:-1] + 8, offsets[:-1] + 2))
        cps = np.where(pair, 0x10000 + ((cps - 0xD800) << 10) + (low - 0xDC00), cps)
        cps = np.where((cps >= 0xD800) & (cps <= 0xDFFF), ord("?"), cps)
        decoded = _merge(decoded, coded, utf8_from_code_points(cps))
    rebuilt = pc.binary_join(pa.ListArray.from_arrays(pieces.offsets, decoded), "")
    return _merge(contents, has, rebuilt)


def _hex4(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The four hex digits at each of ``at`` in ``data``, as numbers."""
    value = np.zeros(len(at), dtype=np.int64)
    for k in range(4):
        c = data[at + k].astype(np.int64)
        digit = np.where(c <= ord("9"), c - ord("0"), (c | 0x20) - ord("a") + 10)
        value = value * 16 + digit
    return value


_QUOTED = {
    "NaN": '"NaN"',
    "Infinity": '"Infinity"',
    "+Infinity": '"Infinity"',
    "+INF": '"Infinity"',
    "-Infinity": '"-Infinity"',
    "-INF": '"-Infinity"',
}


def java_number_text(numbers: pa.Array) -> pa.Array:
    """Number tokens as Jackson copies them into a string field: an integer as its value
    (``-0`` is ``0``), a fraction or exponent as Java's ``Double.toString``, ``NaN`` and the
    infinities quoted."""
    out = numbers
    named = pc.is_in(numbers, value_set=pa.array(list(_QUOTED)))
    if pc.any(named).as_py():
        which = pc.index_in(numbers, value_set=pa.array(list(_QUOTED)))
        out = pc.if_else(named, pa.array(list(_QUOTED.values())).take(which), out)
    out = pc.if_else(pc.equal(out, "-0"), "0", out)
    floating = np.flatnonzero(
        np.asarray(
            pc.and_(pc.invert(named), pc.match_substring_regex(numbers, "[.eE]")).to_numpy(
                zero_copy_only=False
            )
        )
    )
    if len(floating):
        values = pc.cast(take(numbers, floating), pa.float64())
        out = _merge(out, floating, java_double_text(values))
    return out


def java_double_text(values: pa.Array) -> pa.Array:
    """Doubles as Java's ``Double.toString`` writes them (infinities and NaN as Jackson writes
    them, quoted): plain from 10^-3 to 10^7, else ``d.dddE<n>``."""
    d = np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.float64)
    shortest = values.cast(pa.string())
    parts = pc.extract_regex(
        shortest,
        r"^(?P<sign>-?)(?P<int>\d+)(?:\.(?P<frac>\d+))?"
        r"(?:e(?P<exp>[+-]\d+))?$",
    )
    sign, whole, frac, exp = (pc.struct_field(parts, k) for k in ("sign", "int", "frac", "exp"))
    plain = pc.if_else(
        pc.equal(frac, ""), pc.binary_join_element_wise(shortest, ".0", ""), shortest
    )
    digits = pc.replace_substring_regex(pc.binary_join_element_wise(whole, frac, ""), "^0+|0+$", "")
    exp10 = np.asarray(
        pc.fill_null(
            pc.cast(
                pc.if_else(pc.equal(exp, ""), "0", pc.replace_substring(exp, "+", "")), pa.int64()
            ),
            0,
        ).to_numpy(zero_copy_only=False)
    )
    whole_len = np.asarray(pc.utf8_length(whole).to_numpy(zero_copy_only=False))
    frac_text = pc.fill_null(frac, "")
    lead = np.asarray(
        pc.subtract(
            pc.utf8_length(frac_text), pc.utf8_length(pc.utf8_ltrim(frac_text, "0"))
        ).to_numpy(zero_copy_only=False)
    )
    is_zero_int = np.asarray(pc.equal(whole, "0").to_numpy(zero_copy_only=False))
    e = np.where(is_zero_int, -lead, whole_len) + exp10 - 1
    rest = pc.utf8_slice_codeunits(digits, 1)
    sci = pc.binary_join_element_wise(
        sign,
        pc.utf8_slice_codeunits(digits, 0, 1),
        ".",
        pc.if_else(pc.equal(rest, ""), "0", rest),
        "E",
        pa.array(e).cast(pa.string()),
        "",
    )
    magnitude = np.abs(d)
    use_plain = (magnitude >= 1e-3) & (magnitude < 1e7)
    out = pc.if_else(pa.array(use_plain), plain, sci)
    zero = d == 0
    out = pc.if_else(pa.array(zero), pc.if_else(pa.array(np.signbit(d)), "-0.0", "0.0"), out)
    out = pc.if_else(pa.array(np.isposinf(d)), '"Infinity"', out)
    out = pc.if_else(pa.array(np.isneginf(d)), '"-Infinity"', out)
    return out


class Documents:
    """A batch's JSON records read as ``from_json`` reads them (last of a repeated key)."""

    def __init__(self, texts: pa.Array) -> None:
        self.n = len(texts)
        self.parsed = parse(texts, spark=True)
        self._cache: dict[str, tuple[pa.Array, np.ndarray]] = {}

    def get(self, key: str) -> pa.Array:
        """The text Spark's struct field ``key`` holds (null: none, or a JSON null)."""
        return self._pick(key)[0]

    def is_object(self, key: str) -> np.ndarray:
        """Whether member ``key`` is an object or array."""
        return np.isin(self._pick(key)[1], (OPEN_OBJECT, OPEN_ARRAY))

    def _pick(self, key: str) -> tuple[pa.Array, np.ndarray]:
        if key not in self._cache:
            self._cache[key] = self.parsed.members.pick(self.n, key, last=True)
        return self._cache[key]


class Objects:
    """``get_json_object`` over one array of texts for any number of paths: each level of
    nesting is read once (a path's value, an object, is the next level's text)."""

    def __init__(self, texts: pa.Array) -> None:
        self.texts = texts
        self._levels: dict[tuple[str, ...], tuple[np.ndarray, Members, int]] = {}

    def _level(self, prefix: tuple[str, ...]) -> tuple[np.ndarray, Members, int]:
        """The rows whose value at ``prefix`` is an object, and that object's members."""
        if prefix not in self._levels:
            if not prefix:
                valid = pc.is_valid(self.texts).to_numpy(zero_copy_only=False)
                rows = np.flatnonzero(np.asarray(valid))
                sub = take(self.texts, rows)
            else:
                above, members, m = self._level(prefix[:-1])
                value, kind = members.pick(m, prefix[-1], last=False)
                keep = np.flatnonzero(kind == OPEN_OBJECT)
                rows, sub = above[keep], take(value, keep)
            self._levels[prefix] = (rows, parse(sub, spark=False).members, len(sub))
        return self._levels[prefix]

    def get(self, path: tuple[str, ...]) -> pa.Array:
        """``get_json_object(text, "$['a']['b']")`` of every text (see :func:`get_json_object`)."""
        rows, members, m = self._level(path[:-1])
        value, _kind = members.pick(m, path[-1], last=False)
        keep = np.flatnonzero(np.asarray(pc.is_valid(value).to_numpy(zero_copy_only=False)))
        return scatter(len(self.texts), rows[keep], take(value, keep))


def get_json_object(texts: pa.Array, path: tuple[str, ...]) -> pa.Array:
    """Spark's ``get_json_object(text, "$['a']['b']")``: the value at ``path`` (a string
    unescaped, a number, object or array as Jackson writes it; null for none or JSON null)."""
    return Objects(texts).get(path)


def is_json_value(texts: pa.Array) -> np.ndarray:
    """Whether ``get_json_object(text, "$")`` gives a value, for texts that open with ``[`` or
    ``{`` (an object or array well formed up to its end)."""
    return parse(texts, spark=False).valid
