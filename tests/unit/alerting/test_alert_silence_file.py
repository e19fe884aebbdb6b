"""A malformed entry of ``silences.json`` (issue 55): skipped with a warning naming it (index
and id) and counted, at the service's start and at a reload alike; the others still load."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.alerting.silence import SilenceStore, parse_matcher
from kafka_health.model import Signal


def good(silence_id: str, matcher: str = 'alertname="FullGC"') -> dict[str, Any]:
    return {"id": silence_id, "matchers": [matcher], "starts_at": T0 - 10, "ends_at": T0 + 3600}


MALFORMED: list[tuple[str, Any]] = [
    ("not an object", ["id", "x"]),
    ("no ends_at", {"id": "no-end", "matchers": ["broker_id=1"], "starts_at": T0}),
    ("bad matcher", {**good("bad-matcher"), "matchers": ["broker id"]}),
    ("bad regex", {**good("bad-regex"), "matchers": ['broker_id=~"("']}),
    ("no matchers: would mute everything", {**good("mutes-all"), "matchers": []}),
    ("matchers not a list", {**good("str-matchers"), "matchers": "broker_id=1"}),
    ("time not a number", {**good("bad-time"), "starts_at": "yesterday"}),
    ("time not finite", {**good("nan-time"), "ends_at": float("nan")}),
    ("time a boolean", {**good("bool-time"), "ends_at": True}),
]


def write(path: Path, entries: list[Any]) -> None:
    path.write_text(json.dumps({"silences": entries}))


def full_gc(t: float) -> list[Signal]:
    return [sig("full_gc_count", 1, t, broker_id=3)] if t % 100 == 0 else []


@pytest.mark.parametrize(("case", "entry"), MALFORMED, ids=[c for c, _ in MALFORMED])
def test_a_malformed_entry_is_skipped_named_and_counted(
    case: str, entry: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "silences.json"
    write(path, [good("first"), entry, good("last")])
    store = SilenceStore(path)
    with caplog.at_level(logging.WARNING, "kafka_health.alerting.silence"):
        store.reload()
    assert [s.id for s in store.all()] == ["first", "last"], case
    assert store.skipped == 1 and store.skipped_total == 1
    (record,) = caplog.records
    name = "#1" if not isinstance(entry, dict) else f"#1 (id {entry['id']!r})"
    assert f"silence {name} skipped, malformed" in record.getMessage()


@pytest.mark.parametrize("content", [[], {"silences": 5}, "text"])
def test_a_file_of_the_wrong_shape_loads_nothing_and_says_so(
    content: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "silences.json"
    path.write_text(json.dumps(content))
    store = SilenceStore(path)
    with caplog.at_level(logging.WARNING, "kafka_health.alerting.silence"):
        store.reload()
    assert store.all() == [] and store.skipped == 1
    assert "no list 'silences'" in caplog.text


def test_at_start_the_service_loads_the_good_silences_past_a_malformed_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path / "silences.json", [dict(MALFORMED[2][1]), good("gc", "broker_id=3")])
    with caplog.at_level(logging.WARNING, "kafka_health.alerting.silence"):
        h = Harness(tmp_path)  # opened the service: this raised before
    assert "silence #0 (id 'bad-matcher') skipped" in caplog.text
    assert h.service.silences.skipped == 1
    h.run(0, 100, full_gc)
    assert h.firing("FullGC") and h.sent == [], "the good silence mutes"


def test_at_a_reload_a_malformed_entry_is_skipped_and_the_rest_take_effect(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "silences.json"
    store = SilenceStore(path)
    write(path, [good("old", "broker_id=1")])
    store.reload()
    assert [s.id for s in store.all()] == ["old"]
    write(path, [good("old", "broker_id=1"), {"id": "typo", "matchers": ["x"]}, good("new")])
    with caplog.at_level(logging.WARNING, "kafka_health.alerting.silence"):
        store.reload()
    assert [s.id for s in store.all()] == ["old", "new"], "the change is not ignored"
    assert store.muting({"alertname": "FullGC"}, T0) == ["new"]
    assert "silence #1 (id 'typo') skipped" in caplog.text
    assert store.skipped == 1 and store.skipped_total == 1
    store.reload()  # unchanged: not read, not counted again
    assert store.skipped_total == 1


def test_writing_a_silence_keeps_the_malformed_entries_for_the_operator(tmp_path: Path) -> None:
    path = tmp_path / "silences.json"
    typo = {"id": "typo", "matchers": ["broker id=1"], "starts_at": T0, "ends_at": T0 + 60}
    write(path, [typo])
    store = SilenceStore(path)
    added = store.add([parse_matcher("broker_id=2")], T0, T0 + 60, "", "me", T0)
    entries = json.loads(path.read_text())["silences"]
    assert entries == [added.to_json(), typo]
    assert [s.id for s in store.all()] == [added.id]
