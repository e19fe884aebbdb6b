"""Silences: by matcher and expiry, from the config and from ``kafka-health silence``."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.alerting.silence import SilenceStore, format_time, parse_matcher
from kafka_health.config import SilenceConfig
from kafka_health.model import Signal


def full_gc(t: float) -> list[Signal]:
    """A Full GC on broker 3 every 100 s (not frequent enough for FrequentFullGC)."""
    return [sig("full_gc_count", 1, t, broker_id=3)] if t % 100 == 0 else []


def test_config_silence_mutes_until_it_ends(tmp_path: Path) -> None:
    silence = SilenceConfig(
        matchers=['alertname="FullGC"', "broker_id=3"],
        ends_at=format_time(T0 + 300),
        comment="heap resize",
    )
    h = Harness(tmp_path, silences=[silence])
    h.run(0, 295, full_gc)
    assert h.firing("FullGC") and h.sent == []
    h.run(300, 340, full_gc)  # group_wait 30 s from the end of the silence
    assert h.paged_rules() == ["FullGC"], "still firing when the silence ends: it pages"


def test_silence_from_the_command_is_picked_up_and_expired(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    store = SilenceStore(tmp_path / "silences.json")  # what `kafka-health silence add` writes
    added = store.add([parse_matcher('alertname=~"Full.*"')], T0, T0 + 3600, "resize", "me", T0)
    h.run(0, 100, full_gc)
    assert h.sent == []
    assert store.expire(added.id, T0 + 100)
    h.run(105, 140, full_gc)
    assert h.paged_rules() == ["FullGC"], "still firing (keep_firing_for) when it expires"


def test_a_silence_on_another_broker_does_not_mute(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    SilenceStore(tmp_path / "silences.json").add(
        [parse_matcher('broker_id="1"')], T0, T0 + 3600, "", "me", T0
    )
    h.run(0, 30, full_gc)
    assert h.paged_rules() == ["FullGC"]


def test_silences_persist(tmp_path: Path) -> None:
    path = tmp_path / "silences.json"
    s = SilenceStore(path).add([parse_matcher("broker_id=2")], T0, T0 + 60, "c", "me", T0)
    again = SilenceStore(path)
    again.reload()
    assert [x.id for x in again.all()] == [s.id]
    assert again.muting({"broker_id": "2"}, T0 + 1) == [s.id]
    assert again.muting({"broker_id": "2"}, T0 + 61) == []


# (text, labels, matches, why)
MATCHERS = [
    ('alertname="FullGC"', {"alertname": "FullGC"}, True, "equality"),
    ("broker_id=3", {"broker_id": "3"}, True, "quotes are optional"),
    ('broker_id!="3"', {"broker_id": "3"}, False, "inequality"),
    ('broker_id=~"1|2"', {"broker_id": "12"}, False, "regexes match the whole value"),
    ('broker_id=~"1|2"', {"broker_id": "2"}, True, "alternation"),
    ('kind!~"gc|server"', {"kind": "controller"}, True, "negative regex"),
    ('broker_id=""', {}, True, "an absent label is empty"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "lbl", "matches", "why"), MATCHERS)
def test_matcher(text: str, lbl: dict[str, str], matches: bool, why: str) -> None:
    assert parse_matcher(text).matches(lbl) is matches, why


@pytest.mark.parametrize("text", ["broker_id", "=3", 'broker_id=~"("', "1abc=2"])
def test_bad_matcher_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_matcher(text)
