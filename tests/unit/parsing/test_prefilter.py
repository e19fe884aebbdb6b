"""The prefilter the parse runs: per family, each trigger literal searched from its rarest
character on, and never a line dropped that a trigger of its family would keep."""

from __future__ import annotations

import re

import pytest
from tests.parsing_cases import ALL_CASES

from kafka_health.parsing import patterns as P
from kafka_health.parsing.prefilter import MIN_ANCHOR, anchor, prefilter_anchors, rarity


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


def test_no_line_a_trigger_of_its_family_matches_lacks_every_anchor() -> None:
    """Every test line of the parser's table that a trigger matches holds an anchor of that
    trigger's family."""
    anchors = prefilter_anchors()
    assert anchors is not None
    checked = 0
    for case in ALL_CASES:
        text = case.text[:16_384]
        for p in P.ALL_PATTERNS:
            if re.search(p.trigger, text):
                checked += 1
                assert any(a in text for a in anchors[p.family]), (case.id, p.name)
    assert checked > 100
