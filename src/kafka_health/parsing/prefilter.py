"""The triggers' prefilter as the parse runs it: per family, the fewest plain texts one of which
every match of that family's triggers contains, each started at its rarest byte.

Spark's ``contains`` walks the line once per text, comparing each byte with the text's first
byte and, on every hit, the rest of the text (``ByteArrayMethods.arrayEquals``). A text that
starts with a byte common in log lines ("s", "e", a space, "[") is compared again and again:
measured, those compares were 18 % of the job's executor CPU and the walks 12 % more (JFR,
BENCHMARKS.md). So each trigger literal is searched from its rarest byte on (a suffix holds
wherever the literal does), and a line of one family meets only its family's texts (a GC line
cannot match a Kafka pattern: the pattern stages check the family too).
"""

from __future__ import annotations

from kafka_health.parsing import patterns as P

MIN_ANCHOR = 10
"""The shortest suffix of a literal searched on its own. Shorter ones let ordinary lines through
to the triggers' regex: on 24,282 lines of this project's Kafka 4.1.1 brokers' logs, 4.2 % of
lines hold an anchor of at least 10 characters, against 3.4 % for the whole literals, 15.6 %
at 8 ("partition") and 20 % at 4; the first-byte hits per line fall from 64.5 to 29.6."""
COMMON_BYTES = " etaoinsrhldcumfpgwybvkxjqz0123456789[]().,:=-_/'\"ICRPSGLMTBEFADWNOHKUVYXZJQ"
"""Characters of Kafka's log text from the most to the least frequent, roughly: the space,
lower-case letters in English order, digits and the log4j layout's punctuation, then upper case
("INFO", "Partition", "Controller" first). A character not listed is rarer than any."""
FAMILIES = ("kafka", "gc")


def rarity(char: str) -> int:
    """How rare ``char`` is in log text: higher is rarer (see :data:`COMMON_BYTES`)."""
    index = COMMON_BYTES.find(char)
    return len(COMMON_BYTES) if index < 0 else index


def anchor(literal: str) -> str:
    """The suffix of ``literal`` that starts at its rarest character, at least
    :data:`MIN_ANCHOR` long (the literal itself when it is no longer than that); the first such
    character on a tie."""
    if len(literal) <= MIN_ANCHOR:
        return literal
    starts = range(len(literal) - MIN_ANCHOR + 1)
    best = max(starts, key=lambda i: (rarity(literal[i]), -i))
    return literal[best:]


def prefilter_anchors(
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
) -> dict[str, tuple[str, ...]] | None:
    """Per family (``kafka``, ``gc``): the anchors of its patterns' trigger literals, the
    fewest. None when some trigger has no usable literal (then there is no prefilter)."""
    by_family = P.literals_by_family(patterns)
    if by_family is None:
        return None
    return {
        family: P.fewest({anchor(literal) for literal in by_family.get(family, set())})
        for family in FAMILIES
    }
