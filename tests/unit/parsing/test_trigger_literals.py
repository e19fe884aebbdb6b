"""The triggers' literal prefilter: a plain substring one of which every trigger match holds."""

from __future__ import annotations

import re

import pytest

from kafka_health.dev.parsing_cases import ALL_CASES
from kafka_health.parsing import patterns as P
from kafka_health.parsing.prefilter import anchor


@pytest.mark.parametrize(
    ("trigger", "literals"),
    [
        ("Shrinking ISR", ("Shrinking ISR",)),
        (r"zookeeper state changed \(Expired", ("zookeeper state changed (Expired",)),
        (r"Shutting down broker \d", ("Shutting down broker ",)),
        ("NOT_LEADER_(?:FOR_PARTITION|OR_FOLLOWER)", ("NOT_LEADER_",)),
        (r"\(concurrent mode failure\)|\(promotion failed\)",
         ("(concurrent mode failure)", "(promotion failed)")),
        (r"insufficient to satisfy the min\.isr", ("insufficient to satisfy the min.isr",)),
        ("colou?r change", ("colo",)),  # the optional "u" and what follows are left out
        ("abc+d", ("abc",)),  # "c" at least once: kept, then nothing more is sure
        (r"\d+ more", None),  # starts with a class: nothing plain to search for
        ("(?i)shrinking isr", None),  # a flag group: no literal taken
        ("GC|Full GC", None),  # an alternative too short to be worth a search
    ],
)  # fmt: skip
def test_leading_literals(trigger: str, literals: tuple[str, ...] | None) -> None:
    assert P.trigger_literals(trigger) == literals


def test_every_trigger_of_the_table_has_a_literal() -> None:
    """Otherwise the prefilter is off and every line meets the whole trigger regex again."""
    assert P.prefilter_literals() is not None
    missing = [p.name for p in P.ALL_PATTERNS if P.trigger_literals(p.trigger) is None]
    assert missing == []


def test_no_line_a_trigger_matches_lacks_every_literal() -> None:
    """The prefilter never drops a line the triggers would have kept (every test line of the
    parser's table, and a few neighbours that are not events)."""
    literals = P.prefilter_literals()
    assert literals is not None
    triggers = [re.compile(p.trigger) for p in P.ALL_PATTERNS]
    checked = 0
    for case in ALL_CASES:
        text = case.text[:16_384]
        if any(t.search(text) for t in triggers):
            checked += 1
            assert any(lit in text for lit in literals), case.id
    assert checked > 100


def test_a_literal_that_contains_another_is_left_out() -> None:
    literals = P.prefilter_literals()
    assert literals is not None
    assert "preferred replica leader election" in literals
    assert "completed preferred replica leader election" not in literals
    assert "GC(" in literals and len(literals) == len(set(literals))


def _unguarded_matches(
    patterns: tuple[P.EventPattern, ...], texts: list[str]
) -> list[tuple[str, str]]:
    """(pattern, text) pairs where the pattern's regex matches the text it reads (the first
    line for a ``head`` pattern) but its own trigger does not, or none of the trigger's
    literals (from their rarest character, as the parse searches them) is in it."""
    found = []
    for p in patterns:
        regex, trigger = re.compile(p.regex), re.compile(p.trigger)
        anchors = [anchor(lit) for lit in P.trigger_literals(p.trigger) or ()]
        for entry in texts:
            text = entry[:16_384] if p.scope == "entry" else entry.split("\n", 1)[0][:16_384]
            if not regex.search(text):
                continue
            if not trigger.search(text) or (anchors and not any(a in text for a in anchors)):
                found.append((p.name, text))
    return found


def test_every_match_of_a_pattern_holds_its_own_trigger_and_literal() -> None:
    """The parse tries a pattern's regex only on a line that holds one of its trigger's
    literals, and no longer asks the union of every trigger first (the parse): both
    are exact only while each pattern's matches are its trigger's matches too."""
    texts = [case.text for case in ALL_CASES]
    assert _unguarded_matches(P.ALL_PATTERNS, texts) == []
    matched = sum(
        1 for p in P.ALL_PATTERNS for t in texts if re.search(p.regex, t.split("\n", 1)[0])
    )
    assert matched > 100


def test_a_pattern_wider_than_its_trigger_is_found() -> None:
    wider = P.EventPattern(
        "isr_shrink.wider", "isr_shrink", "kafka", "Shrinking ISR", r"(?:Shrinking|Shrank) ISR",
        "a test pattern",
    )  # fmt: skip
    texts = ["[2024-01-01 00:00:00,000] INFO Shrank ISR from 1,2 to 1 (kafka.cluster.Partition)"]
    assert [name for name, _ in _unguarded_matches((wider,), texts)] == ["isr_shrink.wider"]
