"""The triggers' prefilter as the parse runs it: per family, the fewest plain texts one of which
every match of that family's triggers contains, each started at its rarest byte, most of them
searched only behind a token gate (below).

The parser (``Prefilter`` of the Java UDF) walks the line once per text, as Spark's
``contains`` did when the parse was built-in functions, comparing each byte with the text's first
byte and, on every hit, the rest of the text (``ByteArrayMethods.arrayEquals``). A text that
starts with a byte common in log lines ("s", "e", a space, "[") is compared again and again:
measured, those compares were 18 % of the job's executor CPU and the walks 12 % more (JFR,
BENCHMARKS.md). So each trigger literal is searched from its rarest byte on (a suffix holds
wherever the literal does), and a line of one family meets only its family's texts (a GC line
cannot match a Kafka pattern: the pattern stages check the family too).

Most literals also hold a word with a space on each side ("Becoming the active controller":
"the", "active"): every line that holds the literal holds that word as a whole token of the
line split at spaces. A line's tokens meet a family's words in one hash lookup each (Spark's
``arrays_overlap``), so the walks are left for the few lines that hold one of the words, and
for the literals with no such word (:class:`FamilyPrefilter`).
"""

from __future__ import annotations

from dataclasses import dataclass

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
BURST_EVENTS = ("leader_change", "isr_shrink", "isr_expand", "isr_change", "not_leader")
"""Events an election storm or a rolling restart logs by the thousand, the most frequent
first. The prefilter's texts are ORed and the search stops at the first one a line holds, so
their texts are searched first: in the storm's mix a Kafka line walked 15.1 texts on average
in alphabetical order and 10.4 in this one (the ordinary lines' walks do not move)."""


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


def anchors_of(literals: set[str]) -> tuple[str, ...]:
    """The fewest anchors (:func:`anchor`) one of which each of ``literals`` holds."""
    return P.fewest({anchor(literal) for literal in literals})


def burst_rank(patterns: tuple[P.EventPattern, ...]) -> dict[str, int]:
    """Each trigger literal's rank: the place of its patterns' event in
    :data:`BURST_EVENTS` (the lowest among them), or ``len(BURST_EVENTS)`` for the others."""
    ranks: dict[str, int] = {}
    for p in patterns:
        rank = BURST_EVENTS.index(p.event) if p.event in BURST_EVENTS else len(BURST_EVENTS)
        for literal in P.trigger_literals(p.trigger) or ():
            ranks[literal] = min(rank, ranks.get(literal, rank))
    return ranks


def bursts_first(texts: tuple[str, ...], ranks: dict[str, int]) -> tuple[str, ...]:
    """``texts`` (anchors) ordered by the best rank (:func:`burst_rank`) of the literals that
    hold each, then alphabetically: the texts of a storm's lines are searched first."""
    rank = {
        text: min((r for literal, r in ranks.items() if text in anchor(literal)),
                  default=len(BURST_EVENTS))
        for text in texts
    }  # fmt: skip
    return tuple(sorted(texts, key=lambda text: (rank[text], text)))


def prefilter_anchors(
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
) -> dict[str, tuple[str, ...]] | None:
    """Per family (``kafka``, ``gc``): the anchors of all its patterns' trigger literals,
    each walked in every line of the family without the token gate (:func:`prefilter_gates`
    splits them; tests compare with them). None when
    some trigger has no usable literal (then there is no prefilter)."""
    by_family = P.literals_by_family(patterns)
    if by_family is None:
        return None
    return {family: anchors_of(by_family.get(family, set())) for family in FAMILIES}


@dataclass(frozen=True)
class FamilyPrefilter:
    """One family's prefilter. A line passes when it holds one of ``searched``, or holds one of
    ``words`` as a token (the line split at spaces) and one of ``gated``. ``words`` are the
    literals' inner words (:func:`inner_word`), ``gated`` their anchors; ``searched`` are the
    anchors of the literals with no inner word."""

    searched: tuple[str, ...]
    words: tuple[str, ...]
    gated: tuple[str, ...]

    def passes(self, line: str) -> bool:
        """What the parse's Spark expression computes, in Python (for tests)."""
        if any(text in line for text in self.searched):
            return True
        return bool(set(self.words) & set(line.split(" "))) and any(
            text in line for text in self.gated
        )


def inner_word(literal: str) -> str | None:
    """The longest word of ``literal`` with a space on each side inside it (the first on a
    tie), or None. A line that holds ``literal`` holds it as a token between two spaces."""
    words = [w for w in literal.split(" ")[1:-1] if w]
    return max(words, key=len) if words else None


def prefilter_gates(
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
) -> dict[str, FamilyPrefilter] | None:
    """Per family (``kafka``, ``gc``), its :class:`FamilyPrefilter`, the texts of a storm's
    lines first (:func:`bursts_first`); None when some trigger has no usable literal (then
    there is no prefilter)."""
    by_family = P.literals_by_family(patterns)
    if by_family is None:
        return None
    ranks = burst_rank(patterns)
    gates = {}
    for family in FAMILIES:
        literals = by_family.get(family, set())
        worded = {lit: word for lit in literals if (word := inner_word(lit)) is not None}
        gates[family] = FamilyPrefilter(
            searched=bursts_first(anchors_of(literals - worded.keys()), ranks),
            words=tuple(sorted(set(worded.values()))),
            gated=bursts_first(anchors_of(set(worded)), ranks),
        )
    return gates
