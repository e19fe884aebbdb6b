"""The pattern table, run by Python's ``re`` (the same table Spark runs as Java regexes)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from kafka_health.dev.parsing_cases import ALL_CASES, Case
from kafka_health.parsing import patterns as P
from kafka_health.parsing.reference import classify, entry_text

# Groups that the reference returns raw and the cases state converted; checked in Spark only.
CONVERTED = {"isr_before", "isr_after", "partition", "leader", "leader_epoch", "min_isr"}


def test_table_is_sound() -> None:
    """Unique names, known events, groups and collectors, every regex compiles."""
    assert P.check_table() == []


def test_every_event_type_has_a_pattern_and_a_case() -> None:
    """The vocabulary is the contract: each type is parsed and tested."""
    with_patterns = {p.event for p in P.ALL_PATTERNS}
    with_cases = {c.expect for c in ALL_CASES}
    assert set(P.EVENT_TYPES) <= with_patterns
    assert set(P.EVENT_TYPES) <= with_cases


def test_every_pattern_has_a_case() -> None:
    """Each supported wording has at least one test line."""
    used = {classify(c.text, c.kind).pattern for c in ALL_CASES}
    assert {p.name for p in P.ALL_PATTERNS} - used == set()


def test_every_pattern_names_its_source() -> None:
    """A wording without a source is a guess."""
    assert all(len(p.source) > 10 for p in P.ALL_PATTERNS)


def test_java_regex_keeps_group_numbers() -> None:
    """Spark gets the regex without names; group numbers must not move."""
    for p in P.ALL_PATTERNS:
        java = p.java_regex()
        assert "(?P<" not in java
        assert re.compile(java).groups == re.compile(p.regex).groups


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_case(case: Case) -> None:
    """Each line gets the expected outcome and event (reason: the case's source)."""
    result = classify(case.text, case.kind)
    if case.expect in ("malformed", "unrecognised"):
        assert result.outcome == case.expect, case.source
        if case.expect == "malformed":
            assert result.event == case.fields["reason"]
        return
    assert result.outcome == "event", case.source
    assert result.event == case.expect, case.source
    if "session_id" in case.fields:
        assert result.groups["session_id"] == case.fields["session_id"]
    if "cause" in case.fields:
        assert result.groups["cause"] == case.fields["cause"]
    if "session_timeout_ms" in case.fields:
        assert int(result.groups["session_timeout"]) == case.fields["session_timeout_ms"]
    if "log_dir" in case.fields:
        assert result.groups["log_dir"] == case.fields["log_dir"]
    if "group" in case.fields:
        assert result.groups.get("group") == case.fields["group"]
    for name in ("generation", "members"):
        if name in case.fields:
            raw = result.groups.get(name)
            assert (None if raw is None else int(raw)) == case.fields[name], name


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.expect in P.EVENT_TYPES],
                         ids=[c.id for c in ALL_CASES if c.expect in P.EVENT_TYPES])  # fmt: skip
def test_trigger_covers_pattern(case: Case) -> None:
    """The one-pass prefilter (all triggers) must see every event line, or events are lost."""
    pattern = next(p for p in P.ALL_PATTERNS if p.name == classify(case.text).pattern)
    entry = entry_text(case.text)
    text = entry if pattern.scope == "entry" else entry.split("\n")[0]
    assert re.search(pattern.trigger, text), pattern.name


@pytest.mark.parametrize(
    ("line", "starts"),
    [
        ("[2019-05-15 22:20:14,399] INFO x (y)", True),  # log4j default layout
        ("2019-05-15 22:20:14,399 INFO x", True),  # Strimzi layout
        ("ERROR 2019-05-15 23:05:23,221 [main] x", True),  # level-first layout
        ("[0.029s][info][gc] GC(0) Pause Full", True),  # unified JVM logging
        ("2019-05-15T22:25:59.422+0800: 21989402.560: [Full GC", True),  # JDK 8 date stamps
        ("0.844: [GC 0.844: [DefNew", True),  # JDK 8 uptime stamps
        ("   [Eden: 0.0B(408.0M)->0.0B(408.0M)", False),  # JDK 8 G1 detail line
        (" [Times: user=21.74 sys=0.00, real=10.39 secs]", False),  # JDK 8 times line
        ("\tat kafka.log.LogCleaner.run(LogCleaner.scala:1)", False),  # stack frame
        ("java.lang.ArrayIndexOutOfBoundsException: 18", False),  # exception line
        (" (concurrent mode failure): 1K->1K(2K), 0.1 secs]", False),  # CMS continuation
        ("kafka-scheduler-4 INFO  2019-05-15 22:20:14,399 k.c.Partition - x", True),  # no brackets
        ('{"timeMillis":1431,"level":"INFO","message":"x"}', True),  # JSON layout
        ("151.126: #12: [GC (Allocation Failure) [PSYoungGen", True),  # -XX:+PrintGCID
        ("151.140: Total time for which application threads were stopped: 0.01 seconds", True),
        ("org.apache.kafka.common.errors.SomeException: ERROR in request", False),  # exception
    ],
)
def test_entry_start(line: str, starts: bool) -> None:
    """Which lines start an entry and which continue the one before."""
    assert bool(re.search(P.ENTRY_START, line)) is starts


@pytest.mark.parametrize(
    ("line", "family", "outcome"),
    [
        ("[0.052s][info][gc] GC(1) Pause Full (Ergonomics) 60M->30M(61M) 12.120ms", "kafka",
         "unrecognised"),  # --kind kafka: GC patterns are not tried
        ("[2019-05-15 22:20:14,399] INFO zookeeper state changed (Expired) (x)", "gc",
         "unrecognised"),  # --kind gc: Kafka patterns are not tried
        ("", "auto", "unrecognised"),  # empty entry
    ],
)  # fmt: skip
def test_family_narrows_patterns(line: str, family: str, outcome: str) -> None:
    """The kind of a log limits which patterns apply."""
    assert classify(line, family).outcome == outcome


def test_line_shapes_cannot_recurse_per_character() -> None:
    """The shapes run on every record: no unbounded repetition of a group (Java recursion)."""
    assert {
        name: P.recursion_hazards(rx) for name, rx in P.SHAPES.items() if P.recursion_hazards(rx)
    } == {}


@pytest.mark.parametrize(
    ("regex", "hazard"),
    [
        (r"(?:a|bc)*", True),
        (r"(?:,\s?\d+)+x", True),
        (r"(?:\[[^\]]*\])*?\[", True),
        (r"(?:a|bc)*+", False),
        (r"(?:\[[^\]]*\]){0,8}?\[", False),
        (r"[^()]+\(\d+\)", False),
        (r"(?!.*closing)x(?:y(?:a|b)+)?", True),
    ],
)
def test_recursion_hazards(regex: str, hazard: bool) -> None:
    """Group loops are found wherever they hide; possessive or small bounded ones are fine."""
    assert bool(P.recursion_hazards(regex)) == hazard


@pytest.mark.parametrize(
    ("line", "hint", "event"),
    [
        ("[2017-10-12 16:52:38,141] ERROR [kafka-log-cleaner-thread-0], Error due to "
         "(kafka.log.LogCleaner)", "gc", "log_cleaner_died"),  # kafka-logcleaner.log: "gc"
        ("2019-05-15T22:25:59.422+0800: 21989402.560: [Full GC (Allocation Failure)  "
         "8071M->4285M(8192M), 10.3987109 secs]", "kafka", "full_gc"),  # GC in kafkaServer.out
        ("[0.052s][info][gc] GC(1) Pause Full (Ergonomics) 60M->30M(61M) 12.120ms", "kafka",
         "full_gc"),
    ],
)  # fmt: skip
def test_family_comes_from_content(line: str, hint: str, event: str) -> None:
    """A file's name (or a shipper's kind) is only a hint: the line's own shape decides."""
    assert classify(line, "auto", hint=hint).event == event


FIXTURES = Path(__file__).parents[2] / "fixtures" / "logs"


def _entries(path: Path) -> list[str]:
    """A log file's entries, continuation lines joined as the shipper joins them."""
    entries: list[list[str]] = []
    for line in path.read_text().splitlines():
        if re.search(P.ENTRY_START, line) or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return ["\n".join(lines) for lines in entries]


@pytest.mark.parametrize(
    ("fixture", "timeouts"),
    [
        ("server-3.9.1-zookeeper-startup.log", [("zookeeper_client", "6000"),
                                                ("kafka_config_zookeeper", "6000")]),
        ("server-4.1.1-kraft-startup.log", [("kafka_config_kraft", "9000")]),
    ],
)  # fmt: skip
def test_session_timeout_from_real_start_up_logs(fixture: str, timeouts: list[Any]) -> None:
    """Whole start-up logs of the devcluster's brokers: the ZooKeeper client's line and the
    330-line KafkaConfig dump give the broker's own timeout (the mode's key, not the other
    listed one), found within the default scan_chars (16384) that classify reads."""
    found = []
    for entry in _entries(FIXTURES / fixture):
        result = classify(entry)
        if result.event == "session_timeout":
            assert result.pattern is not None
            found.append((result.pattern.removeprefix("session_timeout."),
                          result.groups["session_timeout"]))  # fmt: skip
        if "KafkaConfig values:" in entry:
            assert len(entry.split("\n")) > 300
    assert found == timeouts


@pytest.mark.parametrize(
    ("regex", "text", "java_matches"),
    [
        (r"a.c", "a\rc", False),  # Java's . stops at \r, \u0085, \u2028, \u2029 too
        (r"a.c", "a\u2028c", False),
        (r"(?s)a.c", "a\rc", True),  # unless DOTALL
        (r"ab$", "ab\u2028", True),  # $ before a final line terminator of any kind
        (r"ab$", "ab\r\n", True),
        (r"ab$", "ab\rx", False),
        (r"[.$]x", "$x", True),  # inside a class both stay literal
        (r"[^\].]x", "ax", True),
        (r"\.x", "ax", False),
        (r"\bbroker", "\u00e9broker", True),  # \w, \b are ASCII-only in Java
        (r"^\S+=\d+$", "x\x1fy=6", True),  # \x1c-\x1f are not \s in Java
        (r"\d", "\u0663", False),  # an Arabic-Indic digit is not \d in Java
    ],
)
def test_the_twin_reads_a_regex_as_java_does(regex: str, text: str, java_matches: bool) -> None:
    """What java.util.regex does with each (Spark's rlike); Python's re alone differs on all
    but the literal ones."""
    from kafka_health.parsing.reference import java_compile

    assert (java_compile(regex).search(text) is not None) == java_matches


def first_lines(fixtures_glob: str) -> list[str]:
    """Every line of the log fixtures ``fixtures_glob`` names, and every case's first line."""
    fixtures = Path(__file__).parents[2] / "fixtures" / "logs"
    lines = [
        line
        for path in sorted(fixtures.glob(fixtures_glob))
        for line in path.read_text(errors="replace").splitlines()
    ]
    return lines + [c.text.split("\n")[0] for c in ALL_CASES]


def test_every_gc_line_holds_one_of_the_gc_line_texts() -> None:
    """GC_LINE_TEXTS gate the GC_LINE regex: every line of the GC fixtures and cases that
    GC_LINE matches holds one of them, so the gate never hides a GC line."""
    from kafka_health.parsing.reference import GC_LINE

    gc_lines = [line for line in first_lines("*.log") if GC_LINE.search(line)]
    assert len(gc_lines) > 100
    missed = [line for line in gc_lines if not any(t in line for t in P.GC_LINE_TEXTS)]
    assert missed == []


def test_a_default_layout_line_is_a_log4j_line_and_an_entry_start() -> None:
    """The parse takes is_default_layout for LOG4J_LINE and ENTRY_START: every such line of
    the fixtures and cases matches both, and the check sees the fixtures' Kafka lines."""
    from kafka_health.parsing.reference import ENTRY_START, LOG4J_LINE

    default = [line for line in first_lines("server-*.log") if P.is_default_layout(line)]
    assert len(default) > 50
    assert [line for line in default if not LOG4J_LINE.search(line)] == []
    assert [line for line in default if not ENTRY_START.search(line)] == []
    assert not P.is_default_layout("[2026-11-26 10:15:57,357] INFORMATION x")
    assert not P.is_default_layout("2026-11-26 10:15:57,357] INFO x")


def _regex_stamp(head: str) -> tuple[str, str]:
    """What the TIMESTAMP and LEVEL regexes read of ``head`` (the parse's general path)."""
    stamp = re.search(P.TIMESTAMP, head)
    level = re.search(P.LEVEL, head)
    assert stamp is not None and level is not None
    date, time, fraction, zone = stamp.groups()
    assert zone is None
    return f"{date}T{time}.{fraction}", level.group(1)


def test_a_default_layout_stamp_is_what_the_regexes_read() -> None:
    """Where default_layout_stamp reads a line's time and level at their places, the TIMESTAMP
    and LEVEL regexes read the same: on every default-layout line of the fixtures and cases."""
    default = [line for line in first_lines("*.log") if P.is_default_layout(line)]
    read = [(line, P.default_layout_stamp(line)) for line in default]
    assert sum(stamp is not None for _line, stamp in read) > 50
    assert [(line, s) for line, s in read if s is not None and s != _regex_stamp(line)] == []


@pytest.mark.parametrize(
    "head",
    [
        "[2026-11-26 10:15:57,357+0100] INFO x",  # a zone: the regexes read it
        "[2026-11-26T10:15:57,357] INFO x",  # not the layout's own date
        "[2026-11-26 10:15:57.357] INFO x",
        "[WARN-11-26 10:15:57,357] INFO x",  # a level word inside the bracket
        "[2026-11-26 10:15:57,3570] INFO x",
        "[٢٠٢٦-11-26 10:15:57,357] INFO x",  # Unicode digits: Java's \d does not read them
        "2026-11-26 10:15:57,357 INFO x",
    ],
)
def test_a_default_layout_stamp_leaves_other_shapes_to_the_regexes(head: str) -> None:
    assert P.default_layout_stamp(head) is None
