"""The prefilter the parse runs: per family, each trigger literal searched from its rarest
character on (most only in a line that holds one of their inner words as a token), and never a
line dropped that a trigger of its family would keep."""

from __future__ import annotations

import re

import pytest

from kafka_health.dev.parsing_cases import ALL_CASES
from kafka_health.parsing import patterns as P
from kafka_health.parsing.prefilter import (
    MIN_ANCHOR,
    FamilyPrefilter,
    anchor,
    burst_rank,
    bursts_first,
    inner_word,
    prefilter_anchors,
    prefilter_gates,
    rarity,
)


def test_rarity_orders_upper_case_after_lower_case_and_the_space_first() -> None:
    assert rarity(" ") < rarity("e") < rarity("z") < rarity("Q")
    assert rarity("I") < rarity("Z")  # "INFO" is on every line
    assert rarity("\u00e9") == rarity("~") > rarity("Q")  # not listed: rarer than any


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("GC(", "GC("),  # no longer than MIN_ANCHOR: whole
        ("Shrinking ISR", "Shrinking ISR"),  # "S" is its rarest start that leaves 10
        ("Unable to reconnect to ZooKeeper service", "ZooKeeper service"),
        ("for offline partition", "for offline partition"),  # "partition" alone is too short
        ("starts at leader epoch", "leader epoch"),
    ],
)
def test_anchor_starts_at_the_rarest_character_and_keeps_min_anchor(
    literal: str, expected: str
) -> None:
    got = anchor(literal)
    assert got == expected
    assert literal.endswith(got)
    assert len(got) >= min(len(literal), MIN_ANCHOR)


def test_fewest_leaves_out_a_text_that_contains_another() -> None:
    assert P.fewest({"leader epoch", "at leader epoch", "Fencing broker"}) == (
        "Fencing broker",
        "leader epoch",
    )


def test_each_family_gets_the_anchors_of_its_patterns() -> None:
    anchors = prefilter_anchors()
    assert anchors is not None
    assert "Shrinking ISR" in anchors["kafka"] and "Shrinking ISR" not in anchors["gc"]
    assert "GC(" in anchors["gc"] and "GC(" not in anchors["kafka"]
    assert len(anchors["kafka"]) < len(P.prefilter_literals() or ())  # fewer walks of a line


def test_none_without_a_literal_for_every_trigger() -> None:
    loose = P.EventPattern(
        name="isr_shrink.loose", event="isr_shrink", family="kafka", regex=r"\d+ more",
        trigger=r"\d+ more", source="test",
    )  # fmt: skip
    assert prefilter_anchors((loose,)) is None


def _lines_a_trigger_matches() -> list[tuple[str, str, str]]:
    """(case id, family, text) of each test line of the parser's table and each trigger of
    the table that matches it."""
    found: list[tuple[str, str, str]] = []
    for case in ALL_CASES:
        text = case.text[:16_384]
        found += [(case.id, p.family, text) for p in P.ALL_PATTERNS if re.search(p.trigger, text)]
    assert len(found) > 100
    return found


def test_no_line_a_trigger_of_its_family_matches_lacks_every_anchor() -> None:
    """Every test line of the parser's table that a trigger matches holds an anchor of that
    trigger's family, and passes that family's gate."""
    anchors, gates = prefilter_anchors(), prefilter_gates()
    assert anchors is not None and gates is not None
    for case_id, family, text in _lines_a_trigger_matches():
        assert any(a in text for a in anchors[family]), case_id
        assert gates[family].passes(text), case_id


@pytest.mark.parametrize(
    ("literal", "word"),
    [
        ("Becoming the active controller", "active"),  # the longest, not "the"
        ("Shutting down broker ", "broker"),  # the literal's own trailing space bounds it
        ("Shrinking ISR", None),  # edge words: "xShrinking ISR" holds no token "Shrinking"
        ("kafka-log-cleaner-thread-", None),
        ("GC(", None),
    ],
)
def test_inner_word_is_the_longest_word_with_a_space_on_each_side(
    literal: str, word: str | None
) -> None:
    assert inner_word(literal) == word


def test_a_line_holding_a_literal_anywhere_holds_its_inner_word_as_a_token() -> None:
    """Whatever stands around the literal in a line (letters, brackets, tabs, newlines)."""
    literals = P.literals_by_family(P.ALL_PATTERNS)
    assert literals is not None
    for literal in set().union(*literals.values()):
        word = inner_word(literal)
        if word is None:
            continue
        for before, after in (("", ""), ("x", "y"), ("[a]\t", "\n"), ("a b", "c d")):
            assert word in (before + literal + after).split(" "), literal


def test_gates_split_each_family_into_searched_and_gated_anchors() -> None:
    gates = prefilter_gates()
    anchors = prefilter_anchors()
    assert gates is not None and anchors is not None
    kafka = gates["kafka"]
    assert "Shrinking ISR" in kafka.searched  # no inner word
    assert "Becoming the active controller" in kafka.gated and "active" in kafka.words
    assert len(kafka.searched) < len(anchors["kafka"]) / 2  # most walks are gated
    literals = P.literals_by_family(P.ALL_PATTERNS)
    assert literals is not None
    for family, gate in gates.items():
        for literal in literals[family]:  # each literal holds a searched or a gated text
            in_searched = any(text in literal for text in gate.searched)
            in_gated = any(text in literal for text in gate.gated)
            assert in_searched or (in_gated and inner_word(literal) in gate.words), literal
    assert prefilter_gates((P.EventPattern(
        name="isr_shrink.loose", event="isr_shrink", family="kafka", regex=r"\d+ more",
        trigger=r"\d+ more", source="test",
    ),)) is None  # fmt: skip


def test_passes_needs_a_searched_text_or_a_word_and_a_gated_text() -> None:
    gate = FamilyPrefilter(searched=("Shrinking ISR",), words=("active",), gated=("the active c",))
    assert gate.passes("[p] Shrinking ISR from 1,2 to 1")
    assert gate.passes("x Becoming the active controller")
    assert not gate.passes("the active-controller count")  # the word is no token
    assert not gate.passes("an active broker")  # the word, but no gated text


def test_a_storms_texts_are_searched_first() -> None:
    """The texts of the events a storm logs by the thousand come first in each list (the
    search stops at the first text a line holds), the same texts as in alphabetical order:
    on a storm's lines, fewer walks, and every line passes or not as before."""
    gates = prefilter_gates()
    assert gates is not None
    kafka = gates["kafka"]
    burst = {"Updated PartitionLeaderEpoch", "Shrinking ISR", "Expanding ISR", "NotLeader",
             "OT_LEADER_"}  # fmt: skip
    assert set(kafka.searched[: len(burst)]) == burst
    assert kafka.gated.index("leader epoch") < kafka.gated.index("Becoming the active controller")
    ordinary = [text for text in kafka.searched if text not in burst]
    assert ordinary == sorted(ordinary)
    ranks = burst_rank(P.ALL_PATTERNS)
    assert bursts_first(("b", "a"), ranks) == ("a", "b")
    anchors = prefilter_anchors()
    assert anchors is not None
    for family, gate in gates.items():
        assert set(gate.searched) | set(gate.gated) <= set(anchors[family])
    storm_line = (
        "[2026-12-02 02:18:17,944] INFO [Partition load-0065-g000-41 broker=142] Shrinking ISR "
        "from 142,143,144 to 142 (kafka.cluster.Partition)"
    )
    assert kafka.passes(storm_line)
    walked = next(i for i, text in enumerate(kafka.searched) if text in storm_line)
    assert walked < len(burst)
