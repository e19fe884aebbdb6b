"""The ``shipper`` section: defaults, and every mistake named by its key path."""

from __future__ import annotations

import pytest

from kafka_health.config import parse_config
from kafka_health.errors import ConfigError

GOOD = """
shipper:
  brokers:
    - broker_id: 1
      host: kafka-1.example
      files:
        - {kind: server, path: /var/log/kafka/server.log}
        - {kind: gc, glob: /var/log/kafka/gc*.log, multiline_start: '^\\S'}
"""


def test_a_valid_section_loads_with_defaults() -> None:
    shipper = parse_config(GOOD).shipper
    assert shipper.brokers[0].broker_id == "1", "an integer broker id is read as text"
    assert [f.pattern for f in shipper.brokers[0].files] == [
        "/var/log/kafka/server.log",
        "/var/log/kafka/gc*.log",
    ]
    assert shipper.buffer_max_entries == 10_000 and shipper.start_at == "beginning"


@pytest.mark.parametrize(
    ("yaml_text", "path", "reason"),
    [
        ("shipper: {brokers: [{broker_id: 1, files: []}]}", "shipper.brokers[0].files",
         "a broker without files ships nothing"),
        ("shipper: {brokers: [{files: [{path: /a}]}]}", "shipper.brokers[0].broker_id",
         "the broker id is the record key"),
        ("shipper: {brokers: [{broker_id: 1, files: [{path: /a, glob: /b}]}]}",
         "shipper.brokers[0].files[0]", "path and glob are exclusive"),
        ("shipper: {brokers: [{broker_id: 1, files: [{kind: broker, path: /a}]}]}",
         "shipper.brokers[0].files[0].kind", "kinds are the envelope's fixed list"),
        ("shipper: {brokers: [{broker_id: 1, files: [{path: /a, multiline_start: '['}]}]}",
         "shipper.brokers[0].files[0].multiline_start", "the regex must compile"),
        ("shipper: {brokers: [{broker_id: 1, files: [{path: /a}]}, "
         "{broker_id: 1, files: [{path: /b}]}]}", "shipper.brokers[1].broker_id",
         "two brokers with one id would mix their logs"),
        ("shipper: {buffer_max_entries: 0}", "shipper.buffer_max_entries", "a bound of 0"),
        ("shipper: {max_entry_bytes: 2000000}", "shipper.max_entry_bytes",
         "an entry must fit in one Kafka record"),
        ("shipper: {retry_backoff_s: 5, retry_backoff_max_s: 1}", "shipper.retry_backoff_max_s",
         "the cap below the first wait"),
        ("shipper: {metrics_port: 70000}", "shipper.metrics_port", "not a TCP port"),
        ("shipper: {start_at: middle}", "shipper.start_at", "beginning or end"),
    ],
)  # fmt: skip
def test_mistakes_are_named_by_key_path(yaml_text: str, path: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(yaml_text)
    assert path in [p.path for p in caught.value.problems], reason
