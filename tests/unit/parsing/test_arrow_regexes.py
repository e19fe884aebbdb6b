"""The parse's regexes as RE2 (pyarrow.compute): every one compiles, every one RE2 cannot
take as written has a rewrite with a reason, and each matches (and captures) what Java's
regex does on the parser's case lines (through the reference's Java-semantics twin)."""

from __future__ import annotations

import random
import re

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from kafka_health.dev.parsing_cases import ALL_CASES, case_lines
from kafka_health.parsing import patterns as P
from kafka_health.parsing.arrow.java_regex import (
    JAVA_END,
    UnsupportedJava,
    has_possessive,
    not_followed_by,
    to_re2,
)
from kafka_health.parsing.arrow.regexes import groups, matches, name_groups
from kafka_health.parsing.arrow.rewrites import REWRITES, Rewrite, pattern_rewrite, rewrite_for
from kafka_health.parsing.hostile import mutate
from kafka_health.parsing.reference import java_compile


def _compiles(regex: str) -> None:
    pc.match_substring_regex(pa.array(["x"]), regex)


def _texts() -> list[str]:
    """The case table's entries and lines, some mutated (ASCII: Java's and Python's word
    boundaries agree there)."""
    rng = random.Random(7)
    lines = [line.decode() for line in case_lines()]
    texts = [c.text for c in ALL_CASES] + lines
    texts += [
        mutate(rng, rng.choice(lines).encode()).decode("utf-8", "replace") for _ in range(400)
    ]
    return [t for t in texts if t.isascii()]


TEXTS = _texts()
ALL_REGEXES = {
    **{f"{p.name}:regex": p.regex for p in P.ALL_PATTERNS},
    **{f"{p.name}:trigger": p.trigger for p in P.ALL_PATTERNS},
    **P.SHAPES,
}


def test_plain_translation_of_java_semantics() -> None:
    assert to_re2("a.b") == r"a[^\n\r\x{85}\x{2028}\x{2029}]b"
    assert to_re2("(?s)a.b") == "(?s)a.b"
    assert to_re2("x$") == "x" + JAVA_END
    assert to_re2(r"\s[^\s\]]") == r"[\t\n\x0B\f\r ][^\t\n\x0B\f\r \]]"
    assert to_re2(r"a++b", possessive_ok=True) == "a+b"
    with pytest.raises(UnsupportedJava):
        to_re2(r"a++b")
    with pytest.raises(UnsupportedJava):
        to_re2(r"a(?!b)")
    with pytest.raises(UnsupportedJava):
        to_re2(r"\bword")
    assert has_possessive(r"[^()]++") and not has_possessive(r"a+\+")


def test_name_groups() -> None:
    assert name_groups(r"(a)(?:b)[(](c)(?P<x>d)") == r"(?P<g1>a)(?:b)[(](?P<g2>c)(?P<x>d)"


@pytest.mark.parametrize("seed", range(3))
def test_not_followed_by_is_the_negative_lookahead(seed: int) -> None:
    rng = random.Random(seed)
    branches: list[tuple[str, str | None]] = [("abd", None), ("CMS", "-"), ("x y", None)]
    java = r"(?!abd|CMS(?!-)|x y)"
    rx = "^" + not_followed_by(branches)
    alphabet = "abdCMS-xy z"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6)))
        want = re.match(java, text) is not None
        got = bool(pc.match_substring_regex(pa.array([text]), rx)[0].as_py())
        assert got == want, text


def test_every_regex_compiles_in_re2_and_every_rewrite_has_a_reason() -> None:
    for name, java in ALL_REGEXES.items():
        rw = rewrite_for(name, java)
        for regex in (rw.re2, rw.also, rw.unless):
            if regex is not None:
                _compiles(regex)
        try:
            to_re2(java)
        except UnsupportedJava:
            assert name in REWRITES and REWRITES[name].reason, name
    for name, rw in REWRITES.items():
        assert rw.reason, name


def _java_search(regex: str, text: str) -> re.Match[str] | None:
    return java_compile(regex).search(text)


def _check(name: str, java: str, rw: Rewrite) -> None:
    got = matches(pa.array(TEXTS), rw)
    for text, found in zip(TEXTS, got, strict=True):
        assert found == (_java_search(java, text) is not None), (name, text)


@pytest.mark.parametrize("name", sorted(ALL_REGEXES))
def test_rewrite_matches_as_java_does(name: str) -> None:
    _check(name, ALL_REGEXES[name], rewrite_for(name, ALL_REGEXES[name]))


@pytest.mark.parametrize("pattern", P.ALL_PATTERNS, ids=[p.name for p in P.ALL_PATTERNS])
def test_rewrite_captures_as_java_does(pattern: P.EventPattern) -> None:
    rw = pattern_rewrite(pattern, "regex")
    texts = pa.array(TEXTS)
    found = groups(texts, rw.re2)
    if found is None:
        return
    for i, text in enumerate(TEXTS):
        m = _java_search(pattern.regex, text)
        if m is None or not found[i].is_valid:
            continue
        row = found[i].as_py()
        for name, value in m.groupdict().items():
            spare = row.get(f"{name}__1") or ""
            assert (row.get(name) or spare) == (value or ""), (pattern.name, name, text)
