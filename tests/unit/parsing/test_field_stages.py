"""The parse's event fields in stages: FIELDS_CHUNK to a stage, the heavy ones alone, and the
fields' order kept (the output's column order)."""

from __future__ import annotations

from kafka_health.parsing.events import FIELDS_CHUNK, field_stages


def test_fields_in_chunks_with_the_timestamp_alone_in_order() -> None:
    names = ["outcome", "reason", "type", "ts", "broker_id", "level", "topic", "partition"]
    stages = field_stages(names)
    assert stages == [["outcome", "reason", "type"], ["ts"], ["broker_id", "level", "topic"],
                      ["partition"]]  # fmt: skip
    assert [n for stage in stages for n in stage] == names
    assert all(1 <= len(stage) <= FIELDS_CHUNK for stage in stages)


def test_a_heavy_field_first_or_last_leaves_no_empty_stage() -> None:
    assert field_stages(["ts", "a"]) == [["ts"], ["a"]]
    assert field_stages(["a", "ts"]) == [["a"], ["ts"]]
    assert field_stages([]) == []
