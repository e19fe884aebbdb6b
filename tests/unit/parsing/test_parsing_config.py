"""The ``parsing`` section of the config: defaults, and problems named by key path."""

from __future__ import annotations

import pytest

from kafka_health.config import MonitorConfig, parse_config
from kafka_health.errors import ConfigError


def test_defaults_read_every_known_shipper() -> None:
    """Without a parsing section the paths cover the project, Filebeat, Fluent Bit, Vector."""
    fields = MonitorConfig().parsing.fields
    assert fields.message[:2] == ["message", "log"]
    assert "log.file.path" in fields.file and "host.name" in fields.host


def test_custom_paths_load() -> None:
    """A shipper that keeps the broker id elsewhere is configured, not coded."""
    config = parse_config("parsing:\n  fields:\n    broker_id: [labels.node]\n")
    assert config.parsing.fields.broker_id == ["labels.node"]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("parsing: {fields: {message: []}}", "parsing.fields.message"),  # nothing to read
        ("parsing: {fields: {host: ['a..b']}}", "parsing.fields.host[0]"),  # not a path
        ("parsing: {max_entry_bytes: 10}", "parsing.max_entry_bytes"),  # too small
        ("parsing: {record_key: id}", "parsing.record_key"),  # not a choice
        ("parsing: {dead_letter: {max_value_bytes: -1}}", "parsing.dead_letter.max_value_bytes"),
    ],
)
def test_problems_name_their_key(text: str, key: str) -> None:
    """Each bad setting is reported with its key path."""
    with pytest.raises(ConfigError) as error:
        parse_config(text)
    assert key in {p.path for p in error.value.problems}
