"""Java regular expressions (as the pattern table writes them) -> RE2 text with the same
matches, for pyarrow.compute's regex kernels.

What differs between ``java.util.regex`` (Spark's ``rlike`` and ``regexp_*``, on JDK 17) and
RE2, and how each is written here:

- ``.`` stops at every Java line terminator (``\\r``, ``\\u0085``, ``\\u2028``, ``\\u2029`` too)
  unless ``(?s)`` leads: :data:`JAVA_DOT`.
- ``$`` (no MULTILINE) also matches before a final line terminator: :data:`JAVA_END`, which
  consumes it (exact where nothing follows in the regex, as in every use in the table).
- ``\\s`` and ``\\S`` hold the vertical tab ``\\x0B`` in Java, not in RE2: spelled out.
- ``\\b`` on JDK 17 takes letters and digits of every script (``Character.isLetterOrDigit``,
  non-spacing marks after one) as word characters, RE2 only ASCII ones: :data:`NOT_WORD`, and
  the hand-written rewrites of :mod:`~kafka_health.parsing.arrow.rewrites`.
- Possessive quantifiers and lookarounds: RE2 has neither; the rewrites table says, for each
  regex that uses them, why the greedy form or the rewrite matches the same.

``\\d`` and ``\\w`` are ASCII in both.
"""

from __future__ import annotations

from collections.abc import Sequence

JAVA_LINE_END = r"\n\r\x{85}\x{2028}\x{2029}"
JAVA_DOT = rf"[^{JAVA_LINE_END}]"
JAVA_END = rf"(?:\r\n|[{JAVA_LINE_END}])?\z"
JAVA_SPACE = r"\t\n\x0B\f\r "
WORD = r"\p{L}\p{Nd}_\p{Mn}"
"""Java 17's word characters for ``\\b``: letters and decimal digits of any script, ``_``, and
non-spacing marks (Java counts one as a word character after a letter or digit)."""
NOT_WORD = rf"[^{WORD}]"
NOT_WORD_ON_LINE = rf"[^{WORD}{JAVA_LINE_END}]"
END_OF_WORD = rf"(?:\z|{NOT_WORD})"
"""``\\b`` after a word character where nothing the regex matches next depends on the
character it consumes (the regex ends there)."""


class UnsupportedJava(ValueError):
    """A construct RE2 cannot take: the regex needs a hand-written rewrite."""


def _quantifier_end(regex: str, i: int) -> int:
    """Index just past a quantifier starting at ``i`` (``*``, ``+``, ``?`` or ``{m,n}``), or
    ``i`` when there is none."""
    if i < len(regex) and regex[i] in "*+?":
        return i + 1
    if i < len(regex) and regex[i] == "{":
        close = regex.find("}", i)
        body = regex[i + 1 : close] if close > 0 else ""
        if body and all(c.isdigit() or c == "," for c in body):
            return close + 1
    return i


def to_re2(regex: str, possessive_ok: bool = False, _scan: bool = False) -> str:
    """``regex`` (Python syntax, Java semantics) as RE2 text with the same matches.

    Raises :class:`UnsupportedJava` on a lookaround or ``\\b``, and on a possessive
    quantifier unless ``possessive_ok`` (the caller's rewrite says why greedy is the same)."""
    dotall = regex.startswith("(?s)")
    out: list[str] = []
    i, in_class, class_start = 0, False, 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            pair = regex[i : i + 2]
            if pair == "\\b" and not in_class and not _scan:
                raise UnsupportedJava(f"word boundary at {i}: {regex!r}")
            if pair == "\\s":
                out.append(JAVA_SPACE if in_class else f"[{JAVA_SPACE}]")
            elif pair == "\\S" and not in_class:
                out.append(f"[^{JAVA_SPACE}]")
            elif pair == "\\S" and regex[class_start : class_start + 2] == "[^":
                raise UnsupportedJava(f"\\S in a negated class: {regex!r}")
            else:
                out.append(pair)
            i += 2
        elif in_class:
            if c == "]" and i > class_start + 1 and regex[class_start:i] != "[^":
                in_class = False
            out.append(c)
            i += 1
        elif c == "[":
            in_class, class_start = True, i
            out.append(c)
            i += 1
        elif not _scan and (
            regex[i : i + 3] in ("(?=", "(?!") or regex[i : i + 4] in ("(?<=", "(?<!")
        ):
            raise UnsupportedJava(f"lookaround at {i}: {regex!r}")
        elif c == "." and not dotall:
            out.append(JAVA_DOT)
            i += 1
        elif c == "$":
            out.append(JAVA_END)
            i += 1
        else:
            out.append(c)
            i += 1
            if c in "*+?}" and i < len(regex) and regex[i] == "+" and _is_quantifier(regex, i - 1):
                if not possessive_ok:
                    raise UnsupportedJava(f"possessive quantifier at {i}: {regex!r}")
                i += 1  # possessive -> greedy
    return "".join(out)


def _is_quantifier(regex: str, i: int) -> bool:
    """Whether ``regex[i]`` (``*``, ``+``, ``?`` or ``}``) ends a quantifier (not an escaped
    character, not the ``?`` of a group's ``(?``)."""
    c = regex[i]
    if i > 0 and regex[i - 1] == "\\" and (i < 2 or regex[i - 2] != "\\"):
        return False
    if c == "?" and i > 0 and regex[i - 1] == "(":
        return False
    if c == "}":
        start = regex.rfind("{", 0, i)
        return start >= 0 and _quantifier_end(regex, start) == i + 1
    return True


def has_possessive(regex: str) -> bool:
    """Whether ``regex`` holds a possessive quantifier."""
    try:
        to_re2(regex, _scan=True)
    except UnsupportedJava:
        return True
    return False


def not_followed_by(branches: Sequence[tuple[str, str | None]], other: str = "") -> str:
    """RE2 text that matches (consuming) where none of ``branches`` holds: at the end of the
    text, or where a character leaves every branch. A branch is a literal and the RE2 text of
    what, right after the whole literal, frees the place again (``None``: nothing does):
    ``(?!CMS(?!-))`` is ``("CMS", "-")``, ``(?!ParNew\\b)`` is ``("ParNew", "[<word>]")``.
    ``other`` adds characters that may not come first at all (a word boundary's word
    characters).

    A negative lookahead rewritten as a choice of what comes instead: exact where nothing
    after it in the regex reads the characters it consumes (a boolean test, the regex's end)."""
    root: dict[str, object] = {}
    for literal, free in branches:
        node = root
        for ch in literal:
            node = node.setdefault(ch, {})  # type: ignore[assignment]
        node[""] = free
    found = _not_followed(root, other)
    if found is None:
        raise ValueError("an empty literal excludes every place")
    return found


def class_char(ch: str) -> str:
    """``ch`` as it stands inside an RE2 character class."""
    return "\\" + ch if ch in "\\]^-[" else ch


def literal_char(ch: str) -> str:
    """``ch`` as it stands outside a class."""
    return "\\" + ch if ch in "\\.^$|?*+()[]{}" else ch


def _not_followed(node: dict[str, object], other: str) -> str | None:
    if "" in node:
        if len(node) > 1:
            raise ValueError("a literal that is a prefix of another")
        free = node[""]
        return None if free is None else str(free)
    children = sorted(node)
    excluded = "".join(class_char(ch) for ch in children) + other
    parts = [r"\z", f"[^{excluded}]"]
    for ch in children:
        inner = _not_followed(node[ch], "")  # type: ignore[arg-type]
        if inner is not None:
            parts.append(literal_char(ch) + inner)
    return "(?:" + "|".join(parts) + ")"
