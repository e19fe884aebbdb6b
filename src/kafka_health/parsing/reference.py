"""The pattern table run by Python's ``re``: the tests' oracle and the benchmark's baseline.

It classifies one entry exactly as the parser (the Java UDF, :mod:`kafka_health.parsing.udf`)
does (first matching pattern of the allowed families wins; a trigger without a full match is
``malformed``) and returns the raw named groups. Unit conversion is the parser's only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from kafka_health.parsing import patterns as P
from kafka_health.parsing.jsonlayout import py_layout_text


@dataclass(frozen=True)
class Classified:
    """What one entry is: its outcome, the pattern that matched and the raw groups."""

    outcome: str  # event | malformed | unrecognised
    event: str | None = None
    pattern: str | None = None
    groups: dict[str, str] = field(default_factory=dict)


_JAVA_LINE_END = "\n\r\x85\u2028\u2029"
_JAVA_DOT = f"[^{_JAVA_LINE_END}]"
_JAVA_END = f"(?=(?:\r\n|[{_JAVA_LINE_END}])?\\Z)"


def java_semantics(regex: str) -> str:
    """``regex`` rewritten so that Python's ``re`` reads it as ``java.util.regex`` does (Spark's
    ``rlike`` and ``regexp_*``), for the constructs the table uses: outside a character class,
    ``.`` stops at every Java line terminator (``\\r``, ``\\u0085``, ``\\u2028``, ``\\u2029`` too,
    unless ``(?s)`` leads) and ``$`` also matches before a final one. Compile the result with
    ``re.ASCII``: Java's ``\\w \\d \\s \\b`` and their negations are ASCII-only (found by the
    1,000,000-record fuzz: mutated lines with a non-ASCII letter or a no-break space that Spark
    read as events and this twin did not)."""
    dotall = regex.startswith("(?s)")
    out: list[str] = []
    i, in_class = 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            out.append(c)
        elif c == "[":
            in_class = True
            if regex.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
            out.append(c)
        elif c == "." and not dotall:
            out.append(_JAVA_DOT)
        elif c == "$":
            out.append(_JAVA_END)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def java_compile(regex: str) -> re.Pattern[str]:
    """``regex`` compiled to match what Spark's Java regex matches."""
    return re.compile(java_semantics(regex), re.ASCII)


@cache
def _compiled(patterns: tuple[P.EventPattern, ...]) -> tuple[
    re.Pattern[str], list[tuple[P.EventPattern, re.Pattern[str], re.Pattern[str]]]
]:  # fmt: skip
    any_trigger = "|".join(f"(?:{t})" for t in dict.fromkeys(p.trigger for p in patterns))
    table = [(p, java_compile(p.regex), java_compile(p.trigger)) for p in patterns]
    return java_compile(any_trigger), table


ENTRY_START = java_compile(P.ENTRY_START)
GC_LINE = java_compile(P.GC_LINE)
LOG4J_LINE = java_compile(P.LOG4J_LINE)


def content_family(head: str) -> str | None:
    """gc or kafka from an entry's first line; None when it shows neither. A line in Kafka's
    default layout is a Kafka line before anything else (the parse checks it first)."""
    if P.is_default_layout(head):
        return "kafka"
    if GC_LINE.search(head):
        return "gc"
    if LOG4J_LINE.search(head):
        return "kafka"
    return None


CONTINUATION = java_compile(P.CONTINUATION)


def entry_text(message: str) -> str:
    """The text the patterns read: a JSON layout's entry as the default layout's text."""
    return (py_layout_text(message) or message) if message.startswith("{") else message


def scan_window(message: str, scan_chars: int) -> str:
    """The text the entry-scope patterns read (``EntryParser``'s window): ``message`` whole up to
    twice ``scan_chars`` characters; a longer one's first ``scan_chars`` and, of its last
    ``scan_chars``, the part from their first line on (none without one). A JDK 8 Full GC's
    figures follow its class histograms, thousands of lines on: read, on bounded text."""
    if len(message) <= 2 * scan_chars:
        return message
    tail = message[-scan_chars:]
    at = tail.find("\n")
    return message[:scan_chars] if at < 0 else message[:scan_chars] + tail[at:]


def classify(
    message: str,
    family: str = "auto",
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
    scan_chars: int = 16_384,
    hint: str | None = None,
) -> Classified:
    """Classify one entry (``family``: auto, kafka or gc, forced; auto decides from the
    entry's first line, then from ``hint``, the family its file name or shipper gives)."""
    message = entry_text(message)
    head = message.split("\n", 1)[0][:scan_chars].removesuffix("\r")
    body = scan_window(message, scan_chars)
    if not message or (not ENTRY_START.search(head) and CONTINUATION.search(head)):
        return Classified("unrecognised")
    any_trigger, table = _compiled(patterns)
    if not any_trigger.search(body):
        return Classified("unrecognised")
    if family == "auto":
        family = content_family(head) or hint or "auto"
    excluded = {"kafka": "gc", "gc": "kafka"}.get(family)
    suspect = None
    for p, regex, trigger in table:
        if p.family == excluded:
            continue
        text = body if p.scope == "entry" else head
        m = regex.search(text)
        if m:
            groups = {k: v for k, v in m.groupdict().items() if v}
            return Classified("event", p.event, p.name, groups)
        if suspect is None and trigger.search(text):
            suspect = p.event
    if suspect is not None:
        return Classified("malformed", suspect)
    return Classified("unrecognised")
