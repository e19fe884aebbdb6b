"""The pattern stages of :func:`~kafka_health.parsing.events.parse_entries`: the prefilter
(``_maybe``), which pattern matched (``_pid``), which event an unmatched line looked like
(``_suspect``), and the matched pattern's named groups (``_groups``).

Each reads the columns the parse's first stages wrote (``_head``, ``_body``, ``_family``,
``_usable``) and adds its own, in stages small enough for the JVM to compile (the chunk
sizes below); only Spark's built-in functions run per record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.parsing import patterns as P
from kafka_health.parsing.columns import any_of, first_match, pick
from kafka_health.parsing.prefilter import FamilyPrefilter, anchor, prefilter_gates
from kafka_health.spark.stages import chunks, coalesce_in_stages, end_stage

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

MATCH_CHUNK = 36
"""Patterns per match stage (their literal guards and regexes in one CASE): the table's 69 in
two stages. With the guards, all of them in one stage was a method C1 gave up on (tier 3
failed, ``tests/spark/test_parser_jit.py``). Every stage boundary copies each row, so the
stages are as few as HotSpot compiles whole: the session's ``JIT_OPTIONS``
(:mod:`kafka_health.spark.session`) let it compile methods over 8 KB, but C1 gives up on a
method with too many values in it ("out of virtual registers"), and a method C1 cannot profile
may never reach C2 and run at C1's lowest tier, or interpreted, for good. That test holds every
stage to that."""
TRIGGER_CHUNK = 36
"""Patterns per suspect stage (their literal guards and triggers in one CASE), as
:data:`MATCH_CHUNK`."""
GROUPS_CHUNK = 12
"""Patterns per group-extraction stage (six stages). At 36 (two stages of 15 and 10 KB) and
at 18, C1 gave up on every one of them: each pattern's ``regexp_replace`` holds many values."""


def family_allows(family_col: Column, family: str) -> Column:
    """Whether an entry of ``family_col`` may meet a pattern of ``family``: any but one of the
    other family (an entry of neither family meets both)."""
    return family_col != ("gc" if family == "kafka" else "kafka")


def allowed(p: P.EventPattern) -> Column:
    """Whether the entry's family (``_family``) may meet ``p``."""
    from pyspark.sql import functions as F

    return family_allows(F.col("_family"), p.family)


def pattern_text(p: P.EventPattern) -> Column:
    """The bounded text ``p`` reads: the entry's (``_body``) or its first line's (``_head``)."""
    from pyspark.sql import functions as F

    return F.col("_body") if p.scope == "entry" else F.col("_head")


def holds_literal(p: P.EventPattern) -> Column:
    """Whether ``pattern_text(p)`` holds one of ``p``'s trigger literals (each from its rarest
    character, :func:`~kafka_health.parsing.prefilter.anchor`): every match of ``p``'s
    regex and of its trigger does (``tests/unit/parsing/test_trigger_literals.py``), and
    a plain search of the line is far cheaper than trying the regex."""
    from pyspark.sql import functions as F

    literals = P.trigger_literals(p.trigger)
    if not literals:
        return F.lit(True)
    return any_of([pattern_text(p).contains(anchor(lit)) for lit in dict.fromkeys(literals)])


def passes_prefilter(text: Column, tokens: Column, gate: FamilyPrefilter) -> Column:
    """:meth:`FamilyPrefilter.passes` over ``text`` (``tokens``: it split at spaces)."""
    from pyspark.sql import functions as F

    parts = [text.contains(t) for t in gate.searched]
    if gate.words:
        words = F.array(*[F.lit(w) for w in gate.words])
        parts.append(
            F.arrays_overlap(tokens, words) & any_of([text.contains(t) for t in gate.gated])
        )
    return any_of(parts)


def with_maybe(df: DataFrame, patterns: tuple[P.EventPattern, ...]) -> DataFrame:
    """``df`` with ``_maybe`` (does the usable entry look like any event at all?) in a stage
    of its own: one cheap pass, as most lines do not.

    A plain substring search (prefilter_gates: one of its family's texts is in every match of
    a trigger; most are searched only in a line that holds one of their words). A line it
    passes goes to the patterns, each behind its own literals: the union of every trigger's
    regex, tried on it first, decided nothing more (each pattern's regex holds its trigger's
    match), and dropping it took 22-27 % off an election storm's batch (BENCHMARKS.md)."""
    from pyspark.sql import functions as F

    b, fam = F.col("_body"), F.col("_family")
    gates = prefilter_gates(patterns)
    maybe_col = F.col("_usable")
    if gates is None:  # some trigger has no literal to search for: the triggers' regex
        any_trigger = "|".join(f"(?:{t})" for t in dict.fromkeys(p.trigger for p in patterns))
        maybe_col = maybe_col & b.rlike(any_trigger)
    else:
        # A GC line meets only the GC texts, a Kafka line only Kafka's (as allowed() says).
        tokens = F.split(b, " ")
        maybe_col = maybe_col & any_of(
            [family_allows(fam, family) & passes_prefilter(b, tokens, gate)
             for family, gate in gates.items() if gate.searched or gate.words]
        )  # fmt: skip
    df = df.withColumn("_maybe", maybe_col)
    return end_stage(df)


def with_pattern_ids(df: DataFrame, patterns: tuple[P.EventPattern, ...]) -> DataFrame:
    """``df`` with ``_pid``, the index of the first pattern that matches a ``_maybe`` entry.
    The patterns in chunks, a stage each: the first chunk that matches wins, as one CASE
    would, but no stage's generated method outgrows Janino's 64 KB (:data:`MATCH_CHUNK`)."""
    from pyspark.sql import functions as F

    maybe = F.col("_maybe")
    matches = [
        F.when(maybe, first_match(
            [(allowed(p) & holds_literal(p) & pattern_text(p).rlike(p.java_regex()), F.lit(i))
             for i, p in chunk]
        ))
        for chunk in chunks(list(enumerate(patterns)), MATCH_CHUNK)
    ]  # fmt: skip
    return coalesce_in_stages(df, "_pid", matches, "int")


def with_suspects(df: DataFrame, patterns: tuple[P.EventPattern, ...]) -> DataFrame:
    """``df`` with ``_suspect``: for a ``_maybe`` entry no pattern matched, the event of the
    first pattern whose trigger matches (the entry is then ``malformed``, not unrecognised),
    in stages of :data:`TRIGGER_CHUNK` patterns."""
    from pyspark.sql import functions as F

    unmatched = F.col("_maybe") & F.col("_pid").isNull()
    suspects = [
        F.when(unmatched, first_match(
            [(allowed(p) & holds_literal(p) & pattern_text(p).rlike(p.trigger), F.lit(p.event))
             for _i, p in chunk]
        ))
        for chunk in chunks(list(enumerate(patterns)), TRIGGER_CHUNK)
    ]  # fmt: skip
    return coalesce_in_stages(df, "_suspect", suspects)


def group_template(p: P.EventPattern) -> str:
    """Java replacement text listing a pattern's named groups: "name\x02$n\x01..."."""
    return "\x01".join(f"{name}\x02${index}" for name, index in p.group_index().items())


def whole_entry(p: P.EventPattern) -> str:
    r"""The pattern widened to the whole text, so that regexp_replace keeps only the template.
    The widening is ``.`` under DOTALL, which Java tests with one predicate a character where
    ``[\s\S]`` is a union of two (about half of the first group-extraction stage's samples in
    an election storm, JFR); the pattern itself keeps the default flags, whatever its own
    inline flags do."""
    return rf"(?s)^.*?(?-s:{p.java_regex()}).*$"


def with_groups(df: DataFrame, patterns: tuple[P.EventPattern, ...]) -> DataFrame:
    r"""``df`` with ``_groups``, the matched pattern's named groups as a map (name -> text).

    One regexp_replace per pattern (only the matching one runs) turns the entry into
    "name\x02value\x01name\x02value..." of its named groups: one small expression per
    pattern instead of one per group, so the generated code stays within the JVM's limits."""
    from pyspark.sql import functions as F

    templates = [(i, p, group_template(p)) for i, p in enumerate(patterns)]
    cases = [
        (i, F.regexp_replace(pattern_text(p), whole_entry(p), template))
        for i, p, template in templates
        if template
    ]
    picks = [pick(F.col("_pid"), part) for part in chunks(cases, GROUPS_CHUNK)]
    df = coalesce_in_stages(df, "_extracted", picks)
    extracted = F.col("_extracted")
    df = df.withColumn("_groups", F.str_to_map(extracted, F.lit("\x01"), F.lit("\x02")))
    return end_stage(df)
