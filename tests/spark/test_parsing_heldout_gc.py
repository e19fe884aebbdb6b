"""``kafka-health parse`` on the held-out GC logs (tests/fixtures/logs/heldout): the same
collections and pauses through Spark's Java regexes and its joining of lines as the reference
parser finds (``tests/unit/parsing/test_heldout_gc.py``, whose lists this test reads)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafka_health.cli import main
from tests.unit.parsing.test_heldout_gc import EXPECTED, GC_EVENTS, HELDOUT

pytestmark = pytest.mark.spark


def test_parse_finds_the_heldout_collections_and_no_other(
    spark: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every fixture in one run (files in order): per file, the exact (line, type, pause)."""
    paths = [str(HELDOUT / name) for name in EXPECTED]
    code = main(["parse", *paths])
    out, _ = capsys.readouterr()
    assert code == 0
    got: dict[str, list[tuple[int, str, float | None]]] = {name: [] for name in EXPECTED}
    for event in map(json.loads, out.splitlines()):
        assert event["type"] in GC_EVENTS, event
        pause = event.get("pause_s")
        name = event["file"].rsplit("/", 1)[-1]
        got[name].append((event["line"], event["type"], None if pause is None else round(pause, 7)))
    assert got == EXPECTED


def test_summary_has_no_malformed_gc_entry(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """No entry of these files is left malformed (a trigger without a full match)."""
    code = main(["parse", "--summary", *[str(HELDOUT / name) for name in EXPECTED]])
    out, _ = capsys.readouterr()
    assert code == 0
    summary = json.loads(out)
    assert summary.get("malformed", 0) == 0, summary
    assert summary["full_gc"] == sum(e == "full_gc" for v in EXPECTED.values() for _, e, _ in v)
