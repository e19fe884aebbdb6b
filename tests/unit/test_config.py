"""The config loader: every problem is named by its key path and reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from kafka_health.config import MonitorConfig, Secret, dump_redacted, load_config, parse_config
from kafka_health.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def problems_of(text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    return [str(p) for p in caught.value.problems]


# (case, YAML, the problem it must report, why)
INVALID = [
    (
        "misspelt key",
        "kafka:\n  bootstrap_server: [a:1]\n",
        "kafka.bootstrap_server: unknown key (did you mean 'bootstrap_servers'?)",
        "typos must not be silently ignored",
    ),
    (
        "unknown top-level section",
        "kafak: {}\n",
        "kafak: unknown key (did you mean 'kafka'?)",
        "a misspelt section would drop all its settings",
    ),
    (
        "wrong type",
        "spark:\n  shuffle_partitions: many\n",
        "spark.shuffle_partitions: expected an integer, got a string",
        "types are checked, not coerced",
    ),
    (
        "boolean is not an integer",
        "spark:\n  shuffle_partitions: true\n",
        "spark.shuffle_partitions: expected an integer, got a boolean",
        "YAML true must not pass as 1",
    ),
    (
        "impossible value",
        "devcluster:\n  brokers: 2\n",
        "devcluster.brokers: must be 1 or 3",
        "the dev cluster supports 1 or 3 brokers",
    ),
    (
        "not one of the choices",
        "kafka:\n  client:\n    security_protocol: TLS\n",
        "kafka.client.security_protocol: 'TLS' is not one of 'PLAINTEXT', 'SSL', "
        "'SASL_PLAINTEXT', 'SASL_SSL'",
        "Kafka's protocol names only",
    ),
    (
        "inline secret",
        "kafka:\n  client:\n    security_protocol: SASL_SSL\n    sasl_mechanism: PLAIN\n"
        "    sasl_username: u\n    sasl_password: hunter2\n",
        "kafka.client.sasl_password: secrets are never inline: use {env: VARIABLE} or "
        "{file: /path}",
        "passwords never live in the config file",
    ),
    (
        "SASL without credentials",
        "kafka:\n  client:\n    security_protocol: SASL_PLAINTEXT\n",
        "kafka.client.sasl_mechanism: required when security_protocol is SASL_PLAINTEXT",
        "SASL needs a mechanism, user and password",
    ),
    (
        "secret with both sources",
        "kafka:\n  client:\n    ssl_key_password: {env: A, file: /b}\n",
        "kafka.client.ssl_key_password: a secret needs exactly one of 'env' or 'file'",
        "one source per secret",
    ),
    (
        "bad bootstrap address",
        "kafka:\n  bootstrap_servers: [localhost]\n",
        "kafka.bootstrap_servers[0]: 'localhost' is not host:port",
        "the port is required",
    ),
    (
        "illegal topic name",
        "topics:\n  canary: 'has space'\n",
        "topics.canary: 'has space' is not a legal Kafka topic name",
        "Kafka would reject it later, at a worse time",
    ),
    (
        "transport address",
        "transport:\n  bootstrap_servers: [transport-kafka]\n",
        "transport.bootstrap_servers[0]: 'transport-kafka' is not host:port",
        "the transport is checked like the monitored cluster",
    ),
    (
        "transport client without servers",
        "transport:\n  client:\n    security_protocol: SSL\n",
        "transport.client: has no effect without transport.bootstrap_servers (the monitored "
        "cluster's kafka.client is used)",
        "settings that silently do nothing would mislead",
    ),
    (
        "probe deadline past the send timeout",
        "canary:\n  probe_deadline_s: 12\n",
        "canary.probe_deadline_s: must be 0.1 to send_timeout_s",
        "the producer would give up before the deadline",
    ),
    (
        "section is not a mapping",
        "spark: local\n",
        "spark: expected a mapping, got a string",
        "the shape is checked",
    ),
]


@pytest.mark.parametrize(("case", "text", "expected", "why"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_config_names_key_and_reason(case: str, text: str, expected: str, why: str) -> None:
    assert expected in problems_of(text), why


def test_every_problem_is_reported_at_once() -> None:
    found = problems_of("kafka:\n  bootstrap_server: []\nspark:\n  shuffle_partitions: 0\n")
    assert len(found) == 2


def test_not_yaml_is_a_clear_error() -> None:
    assert problems_of("kafka: [unclosed\n")[0].startswith("<file>: not valid YAML")


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.yaml")


def test_empty_file_gives_defaults() -> None:
    assert parse_config("") == MonitorConfig()


def test_shipped_monitor_yaml_documents_the_defaults() -> None:
    """conf/monitor.yaml holds every key with its default value, so it documents them."""
    shipped = yaml.safe_load((REPO / "conf/monitor.yaml").read_text())
    defaults = yaml.safe_load(dump_redacted(MonitorConfig()))
    assert shipped == defaults


def test_secrets_are_redacted_when_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KH_TEST_PASSWORD", "hunter2")
    config = parse_config(
        "kafka:\n  client:\n    security_protocol: SASL_SSL\n    sasl_mechanism: PLAIN\n"
        "    sasl_username: monitor\n    sasl_password: {env: KH_TEST_PASSWORD}\n"
    )
    printed = dump_redacted(config)
    assert "hunter2" not in printed
    assert "<redacted> (env KH_TEST_PASSWORD)" in printed
    assert config.kafka.client.sasl_password == Secret(env="KH_TEST_PASSWORD")
    assert config.kafka.client.sasl_password.resolve() == "hunter2"


def test_secret_from_file(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("s3cret\n")
    assert Secret(file=str(path)).resolve() == "s3cret"


def test_unset_secret_variable_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KH_NOT_SET", raising=False)
    with pytest.raises(ConfigError, match="KH_NOT_SET is not set"):
        Secret(env="KH_NOT_SET").resolve()


def test_with_bootstrap_changes_only_the_servers() -> None:
    config = MonitorConfig().with_bootstrap(["127.0.0.1:9092"])
    assert config.kafka.bootstrap_servers == ["127.0.0.1:9092"]
    assert dataclasses.replace(config.kafka, bootstrap_servers=[]) == MonitorConfig().kafka


def test_transport_defaults_to_the_monitored_cluster() -> None:
    config = MonitorConfig().with_bootstrap(["10.0.0.1:9092"])
    assert not config.separate_transport
    assert config.transport_kafka() == config.kafka


def test_transport_carries_its_own_servers_and_client() -> None:
    config = parse_config(
        "kafka:\n  bootstrap_servers: [monitored:9092]\n"
        "transport:\n  bootstrap_servers: [transport:9093]\n"
        "  client: {security_protocol: SSL, request_timeout_s: 5}\n"
    )
    assert config.separate_transport
    transport = config.transport_kafka()
    assert transport.bootstrap_servers == ["transport:9093"]
    assert transport.client.security_protocol == "SSL"
    assert config.kafka.client.security_protocol == "PLAINTEXT", "the monitored one is unchanged"
    assert MonitorConfig().with_transport(["t:1"]).transport_kafka().bootstrap_servers == ["t:1"]


def test_check_config_accepts_the_whole_config_with_a_transport(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped file with a transport section (SASL, its own client) is valid; a broken
    transport section is reported key by key."""
    from kafka_health.cli import main

    shipped = yaml.safe_load((REPO / "conf/monitor.yaml").read_text())
    shipped["kafka"]["bootstrap_servers"] = ["kafka-1:9092", "kafka-2:9092"]
    shipped["transport"] = {
        "bootstrap_servers": ["monitor-kafka:9094"],
        "client": {
            "security_protocol": "SASL_SSL",
            "sasl_mechanism": "SCRAM-SHA-512",
            "sasl_username": "kafka-health",
            "sasl_password": {"env": "KH_TRANSPORT_PASSWORD"},
        },
    }
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(shipped))
    assert main(["check-config", str(good)]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["transport"]["bootstrap_servers"] == ["monitor-kafka:9094"]
    assert printed["transport"]["client"]["sasl_password"].startswith("<redacted>")

    shipped["transport"] = {
        "bootstrap_servers": ["monitor-kafka"],
        "client": {"security_protocol": "SASL_SSL", "request_timeout_s": 0},
        "clinet": {},
    }
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(shipped))
    assert main(["check-config", str(bad)]) == 2
    errors = capsys.readouterr().err
    for key in (
        "transport.clinet: unknown key (did you mean 'client'?)",
        "transport.bootstrap_servers[0]: 'monitor-kafka' is not host:port",
        "transport.client.sasl_mechanism: required when security_protocol is SASL_SSL",
        "transport.client.request_timeout_s: must be positive",
    ):
        assert key in errors
