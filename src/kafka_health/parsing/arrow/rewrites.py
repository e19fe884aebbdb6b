"""THE table of the regexes RE2 cannot take as the pattern table writes them, each rewritten to
RE2 text with the same matches on the text that can reach it, with a one-line reason.

A regex is named ``<pattern>:regex``, ``<pattern>:trigger`` or by its constant's name (the line
shapes of :data:`~kafka_health.parsing.patterns.SHAPES`, the envelope's and the fields'
regexes). Every other regex of the parse goes through
:func:`~kafka_health.parsing.arrow.java_regex.to_re2` alone (``.``, ``$``, ``\\s``: exact).

A :class:`Rewrite` is an RE2 regex and, where a lookaround could not be folded into it, one more
vectorized test: ``also`` (an anchored lookahead, as a second regex that must match too),
``unless`` (an anchored negative lookahead, as one that must not), ``alternative`` (another
rewrite ORed with it) or ``later_on_line`` (``(?!.*X)`` after a literal: the literal must occur
on some line with no ``X`` after its last occurrence there). A named group ``<name>__1`` is
read where ``<name>`` did not take part (one group in two places, which RE2 cannot name twice).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_health.parsing import envelope as E
from kafka_health.parsing import patterns as P
from kafka_health.parsing.arrow.java_regex import (
    END_OF_WORD,
    JAVA_DOT,
    JAVA_END,
    JAVA_SPACE,
    NOT_WORD,
    NOT_WORD_ON_LINE,
    WORD,
    UnsupportedJava,
    has_possessive,
    not_followed_by,
    to_re2,
)


@dataclass(frozen=True)
class Rewrite:
    """An RE2 form of one Java regex (see the module docstring)."""

    re2: str
    reason: str
    also: str | None = None
    unless: str | None = None
    alternative: Rewrite | None = None
    later_on_line: str | None = None


_LEVELS = "(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)"
_LEVEL_GROUP = "(?P<g1>TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)"
_JDK8_PREFIX = to_re2(r"(?:\d{4}-\d\d-\d\dT[\d:.]+[+-]\d{4}: )?(?:\d+[.,]\d+: )?(?:#\d+: )?")
_WORD_CHAR = f"[{WORD}]"
_INNER_GENERATION = [
    ("ParNew", _WORD_CHAR),
    ("DefNew", _WORD_CHAR),
    ("Tenured", _WORD_CHAR),
    ("CMS", "-"),
]
_EXCEPTION_LINE = rf"[a-z][\w$]*\.[\w$.]*(?:Exception|Error|Throwable){END_OF_WORD}"
_NOT_YOUNG = [
    " pause",
    " concurrent",
    " remark",
    " cleanup",
    " ref-proc",
    " (CMS",
    " [1 CMS-initial-mark",
    "[1 CMS-initial-mark",
    " [YG occupancy",
    "[YG occupancy",
]
_CLOSING = ", closing socket connection"

_B = "a word boundary after a word: the end of the text or a character not in Java 17's word class"
_LATER = "(?!.*X) after a literal: some line holds the literal with no X after its last one"

SHAPE_REWRITES: dict[str, Rewrite] = {
    "ENTRY_START": Rewrite(
        rf"^(?:\[?\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d|"
        rf"\[{not_followed_by([('Unloading class ', None), *_INNER_GENERATION])}|"
        rf'\{{"|\{{[{JAVA_SPACE}]*{JAVA_END}|#\d+: \[|'
        rf"\d+[.,]\d+: (?:\[{not_followed_by(_INNER_GENERATION)}|#\d+: \[|Total time for which|"
        rf"Application time:)|{_LEVELS}{END_OF_WORD})",
        "anchored boolean: each (?!...) after '[' becomes what may come there instead; " + _B,
        alternative=Rewrite(
            rf"^(?:[^{JAVA_SPACE}{WORD}]|[^{JAVA_SPACE}][^\n]{{0,99}}?[^\n{WORD}])"
            rf"{_LEVELS}{END_OF_WORD}",
            "the last branch: its (?!exception line|Caused by:) at the start as a second test",
            unless=rf"^(?:{_EXCEPTION_LINE}|Caused by:)",
        ),
    ),
    "CONTINUATION": Rewrite(
        rf"^(?:[{JAVA_SPACE}]|Caused by:|\.\.\. \d+ more|{_EXCEPTION_LINE})", _B
    ),
    "GC_LINE": Rewrite(
        rf"^(?:\[[^\[\]\n]{{0,80}}\]){{0,12}}?\[(?:gc|safepoint)(?:\]|[,{JAVA_SPACE}]"
        rf"[\w,{JAVA_SPACE}]{{0,39}}\])|^{_JDK8_PREFIX}(?:\[(?:GC|Full GC){END_OF_WORD}|"
        r"Total time for which application threads|Application time: )|"
        r"^\{Heap (?:before|after) GC invocations=",
        "after '[gc' the boundary is ']' or a non-word character of [\\w,\\s]; " + _B,
    ),
    "LOG4J_LINE": Rewrite(
        rf"^(?:[^\n]{{0,119}}[^\n{WORD}])?{_LEVELS}{END_OF_WORD}|" + r'^\{"',
        "the boundary before the level: the prefix is empty or ends in a non-word character; " + _B,
    ),
    "LEVEL": Rewrite(
        rf"^(?:[^\n]{{0,119}}?[^\n{WORD}])??{_LEVEL_GROUP}{END_OF_WORD}",
        "as LOG4J_LINE, the lazy prefix kept lazy (??) so the first level is the one read",
    ),
    "LINE_BROKER": Rewrite(
        to_re2(P.LINE_BROKER.removesuffix(r"(\d+)\b")) + rf"(?P<g1>\d+){END_OF_WORD}", _B
    ),
    "TIMESTAMP": Rewrite(
        r"^(?:[^\n]{0,119}?[^\n\d.:\-])??(?P<g1>\d{4}-\d\d-\d\d)[ T](?P<g2>\d\d:\d\d:\d\d)"
        r"(?:[,.](?P<g3>\d{1,9}))?(?P<g4>Z|[+-]\d\d:?\d\d)?",
        "(?<![\\d.:-]) after the lazy prefix: the prefix is empty or its last character is none "
        "of those (lazy kept: ??)",
    ),
    "LOG4J_DATE": Rewrite(
        r"^(?:[^\n]{0,119}?[^\n\d])??(?P<g1>\d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov"
        r"|Dec) \d{4} \d\d:\d\d:\d\d(?:,\d{3})?)",
        "(?<!\\d) after the lazy prefix, as TIMESTAMP",
    ),
    "KIND_FROM_FILE": Rewrite(
        r"(?:^|/)(?:(?P<g1>server|controller|state-change)\.log|(?:[^/]*?[^/A-Za-z])??(?P<g2>gc)"
        rf"(?:[^/A-Za-z][^/]*)?\.log)(?:[.\d-]*)?{JAVA_END}",
        "(?<![A-Za-z])gc(?![A-Za-z]): the prefix is empty (after '/' or the start) or ends in a "
        "non-letter; what follows 'gc' up to '.log' is empty or starts with a non-letter",
    ),
}

_POSSESSIVE_REASONS = (
    (
        P.ISR,
        "ISR's (?:,\\s?\\d+)*+ is followed by ']', ' to ', '.', a space or the end, never "
        "by ',' or a digit: a group given back never lets a match through",
    ),
    (
        P.CAUSE,
        "CAUSE's [^()]++ and (?:\\(\\)[^()]*+)?+ are followed by ')' or '(', which they "
        "exclude: nothing given back can match it",
    ),
    (
        r"[^\]]*+\]",
        "each run of a class excluding the character that follows it ([^\\]]*+\\], "
        "[^\\n]*+\\n, [^}]*+\\}, \\d++ then ' ' or '\\n', [ \\t]++ then 'GC')",
    ),
    (
        " *+",
        "' *+' is followed by a stamp, '[', '\\n', a digit or ' *+' again: a space given "
        "back only moves to the next run of spaces",
    ),
    (
        r"\S++",
        "\\S++ then ' ', [^\\s,]++ then ' ' or the end, [^,\\s]*+ then ',' : classes "
        "that exclude what follows",
    ),
    (
        r"[^\s,]++",
        "a possessive run at the end of the regex gives back nothing a greedy one would need",
    ),
    (r"[^,\s]*+", "[^,\\s]*+ is followed by ','"),
    (r"[^\s,\]]++", "[^\\s,\\]]++ is followed by ' '"),
    (r"\S*+", "\\S*+ is followed by ' '"),
    (
        r"(?: \((?P<cause>",
        "a ' (cause)' group given back leaves ' (' where ' <heap>' needs a digit after the space",
    ),
)


def _possessive_reason(regex: str) -> str:
    reasons = [why for fragment, why in _POSSESSIVE_REASONS if fragment in regex]
    return "possessive -> greedy: " + "; ".join(reasons)


def _plain_but_possessive(regex: str) -> bool:
    """Whether ``regex`` needs nothing but its possessive quantifiers made greedy."""
    try:
        to_re2(regex, True)
    except UnsupportedJava:
        return False
    return True


def _pattern_rewrites() -> dict[str, Rewrite]:
    found: dict[str, Rewrite] = {}
    by_name = {p.name: p for p in P.ALL_PATTERNS}
    for p in P.ALL_PATTERNS:
        for part, regex in (("regex", p.regex), ("trigger", p.trigger)):
            if has_possessive(regex) and _plain_but_possessive(regex):
                found[f"{p.name}:{part}"] = Rewrite(to_re2(regex, True), _possessive_reason(regex))
    for name in (
        "full_gc.jdk8_g1",
        "full_gc.jdk8_g1_interleaved",
        "full_gc.jdk8_g1_dump",
        "full_gc.jdk8_generational",
        "full_gc.jdk8_before_full_gc_dump",
    ):
        found[f"{name}:trigger"] = Rewrite(rf"\[Full GC{END_OF_WORD}", _B)
    found["shutdown_signal.sigterm:regex"] = Rewrite(
        rf"Terminating process due to signal SIG(?:TERM|INT|HUP){END_OF_WORD}", _B
    )
    started = by_name["broker_started.zk"].regex.removesuffix(r"\b")
    found["broker_started.zk:regex"] = Rewrite(to_re2(started) + END_OF_WORD, _B)
    found["full_gc.unified:trigger"] = Rewrite(
        rf"GC\(\d+\) Pause Full{NOT_WORD_ON_LINE}{JAVA_DOT}*\d[BKMG]->",
        "\\b then .*: the boundary's non-word character is the first one .* takes (a line "
        "end there fails both)",
    )
    found["young_gc.unified:trigger"] = Rewrite(
        rf"GC\(\d+\) Pause (?:(?:Young|Mixed){NOT_WORD_ON_LINE}|Initial Mark \((?:[\p{{L}}"
        rf"\p{{Nd}}_]{JAVA_DOT}*)?){JAVA_DOT}*\d[BKMG]->",
        "\\b after '(' needs a word character next: the first one .*\\d takes",
    )
    young = by_name["young_gc.unified"]
    found["young_gc.unified:regex"] = Rewrite(
        to_re2(
            young.regex.replace(
                "(?:Young|Mixed|Initial Mark(?= \\())(?: \\((?P<cause>",
                f"(?:Young|Mixed|Initial Mark \\((?P<cause__1>{P.CAUSE})\\))(?: \\((?P<cause>",
            ),
            True,
        ),
        "Initial Mark(?= \\() then ( \\(cause\\))*+: one cause group at least (cause__1 where "
        "the loop took none); " + _possessive_reason(young.regex),
    )
    generational = by_name["full_gc.jdk8_generational"].regex
    head, tail = generational.split(r"\b.*?)?\] ", 1)
    found["full_gc.jdk8_generational:regex"] = Rewrite(
        to_re2(head, True) + rf"(?:{NOT_WORD}.*?)??)?\] " + to_re2(tail, True),
        "(young_gen)\\b.*?\\] under (?s): empty, or a first character that is not a word "
        "one, then lazily on; " + _possessive_reason(generational),
    )
    young_jdk8 = by_name["young_gc.jdk8_generational"].regex
    head, tail = young_jdk8.replace(P.NOT_YOUNG, "").split(r"\b.*?\] ", 1)
    found["young_gc.jdk8_generational:regex"] = Rewrite(
        to_re2(head, True) + rf"(?:{NOT_WORD}.*?)??\] " + to_re2(tail, True),
        "NOT_YOUNG at the one '[GC' the anchored stamps allow: a second, anchored test; "
        "\\b.*? as in full_gc.jdk8_generational; " + _possessive_reason(young_jdk8),
        unless=to_re2(P.JDK8_STAMP)
        + r"\[GC(?:"
        + "|".join(x.replace("[", r"\[").replace("(", r"\(") for x in _NOT_YOUNG)
        + ")",
    )
    found["young_gc.jdk8_generational:trigger"] = Rewrite(
        r"\[GC" + not_followed_by([(x, None) for x in _NOT_YOUNG], WORD),
        "\\b then NOT_YOUNG: what may follow '[GC' instead, at the end of a boolean test",
    )
    for name, literal in (
        ("zk_session_expired.clientcnxn", "Unable to reconnect to ZooKeeper service"),
        ("zk_disconnected.clientcnxn", "Client session timed out"),
    ):
        found[f"{name}:trigger"] = Rewrite(
            literal, _LATER, later_on_line="closing socket connection"
        )
    expired = by_name["zk_session_expired.clientcnxn"].regex.split("(?!")[0]
    found["zk_session_expired.clientcnxn:regex"] = Rewrite(
        to_re2(expired) + not_followed_by([(_CLOSING, None)]),
        "(?!, closing socket connection) at the regex's end: what may come there instead",
    )
    timed_out = by_name["zk_disconnected.clientcnxn"].regex.split("(?!")[0]
    found["zk_disconnected.clientcnxn:regex"] = Rewrite(
        to_re2(timed_out) + not_followed_by([(_CLOSING, None)], "0-9a-fA-F"),
        "(?![0-9a-fA-F]|, closing socket connection) at the end: what may come there instead "
        "(the greedy hex run leaves no hex digit next)",
    )
    kraft = by_name["session_timeout.kafka_config_kraft"].regex
    lookahead = kraft[kraft.index("(?=") + 3 : kraft.index("))[") + 1]
    first = r"^[^\n]*?KafkaConfig values: ?"
    found["session_timeout.kafka_config_kraft:regex"] = Rewrite(
        to_re2(kraft.replace(f"(?={lookahead})", "")),
        "the lookahead at the first 'KafkaConfig values:' of the first line, as a second "
        "anchored test (a later one sees less of the entry)",
        also=to_re2(first + lookahead),
    )
    return found


PATTERN_REWRITES = _pattern_rewrites()
REWRITES: dict[str, Rewrite] = {**SHAPE_REWRITES, **PATTERN_REWRITES}
"""Every rewrite, by the name of the regex it stands for."""


def rewrite_for(name: str, java: str) -> Rewrite:
    """The RE2 form of the regex ``name`` (``java``): the table's, else the plain translation."""
    found = REWRITES.get(name)
    return found if found is not None else Rewrite(to_re2(java), "")


def pattern_rewrite(p: P.EventPattern, part: str) -> Rewrite:
    """``p``'s regex (``part`` ``regex``) or trigger (``trigger``) as RE2."""
    return rewrite_for(f"{p.name}:{part}", p.regex if part == "regex" else p.trigger)


KIND_FROM_FILE = SHAPE_REWRITES["KIND_FROM_FILE"]
assert E.KIND_FROM_FILE  # the Java text this table's KIND_FROM_FILE stands for
