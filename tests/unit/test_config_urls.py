"""Receiver and Pushgateway URLs in the config (issue 55, item 2): plain or secret, checked
with their key named, and never printed beyond ``scheme://host[:port]``; secret values are
never in an error, and are read without surrounding whitespace."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from kafka_health.alerting.exporter import Exporter
from kafka_health.cli import main
from kafka_health.config import ExporterConfig, ReceiverConfig, Secret, parse_config
from kafka_health.configuration.redact import safe_url
from kafka_health.configuration.secrets import resolve_value
from kafka_health.errors import ConfigError

PASSWORD = "hunter2pw"
TOKEN = "T0KEN9xyz"
SLACK = f"https://hooks.example.com:8443/services/{TOKEN}?token={TOKEN}#{TOKEN}"


def receiver_yaml(url: str, extra: str = "") -> str:
    return f"alerting:\n  receivers:\n  - {{name: p, url: {url}{extra}}}\n"


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    return [str(p) for p in caught.value.problems]


def check_config(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run ``kafka-health check-config`` on ``text``: (exit code, stdout and stderr)."""
    path = tmp_path / "monitor.yaml"
    path.write_text(text)
    code = main(["check-config", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize(
    ("url", "printed"),
    [
        (SLACK, "https://hooks.example.com:8443"),
        (f"http://user:{PASSWORD}@Host.example.com/x", "http://host.example.com"),
        ("http://[::1]:9091/metrics/job", "http://[::1]:9091"),
        ("https://host", "https://host"),
        ("not a url", "<invalid url>"),
        ("http://host:99999/", "<invalid url>"),
        ("http://[::1/", "<invalid url>"),
        ("", "<invalid url>"),
    ],
)
def test_safe_url_keeps_scheme_host_and_port_only(url: str, printed: str) -> None:
    assert safe_url(url) == printed


def test_safe_url_never_raises() -> None:
    assert safe_url(None) == "<invalid url>"  # type: ignore[arg-type]
    assert safe_url(b"http://x/") == "<invalid url>"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (f"'https://user:{PASSWORD}@hooks.example.com/{TOKEN}'", "carries user info"),
        (f"'https://{PASSWORD}@hooks.example.com/{TOKEN}'", "carries user info"),
        (f"'https://hooks.example.com:{PASSWORD}/{TOKEN}'", "has an invalid port"),
        (f"'https://hooks.example.com:70000/{TOKEN}'", "has an invalid port"),
        (f"'https://hooks.example.com:0/{TOKEN}'", "has an invalid port"),
        (f"'ftp://hooks.example.com/{TOKEN}'", "is not an http(s) URL"),
        (f"'https:///{TOKEN}'", "has no host"),
        ("''", "is empty"),
    ],
)
def test_a_bad_receiver_url_names_its_key_and_not_its_secret_parts(url: str, reason: str) -> None:
    (problem,) = problems(receiver_yaml(url))
    assert problem.startswith(f"alerting.receivers[0].url: {reason}")
    assert PASSWORD not in problem and TOKEN not in problem


def test_the_pushgateway_url_is_checked_too() -> None:
    text = f"alerting:\n  exporter: {{pushgateway_url: 'http://u:{PASSWORD}@pgw:9091/'}}\n"
    (problem,) = problems(text)
    assert problem.startswith("alerting.exporter.pushgateway_url: carries user info")
    assert PASSWORD not in problem
    assert parse_config("alerting:\n  exporter: {pushgateway_url: ''}\n")  # empty: no push


@pytest.mark.parametrize("inline", [f"'{PASSWORD}'", "12345", "3.25", "true", "2024-01-31"])
@pytest.mark.parametrize("key", ["bearer_token", "hmac_secret", "routing_key"])
def test_an_inline_secret_of_any_scalar_type_names_the_key_never_the_value(
    inline: str, key: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(receiver_yaml("'https://x/'", f", {key}: {inline}"))
    assert [str(p) for p in caught.value.problems] == [
        f"alerting.receivers[0].{key}: secrets are never inline: "
        "use {env: VARIABLE} or {file: /path}"
    ]
    shown = str(caught.value)
    for part in (inline.strip("'"), "12345", "3.25", "true", "2024"):
        if part in inline:
            assert part not in shown


def test_an_inline_number_as_a_kafka_password_is_not_echoed() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("kafka:\n  client: {sasl_password: 987654}\n")
    assert "kafka.client.sasl_password: secrets are never inline" in str(caught.value)
    assert "987654" not in str(caught.value)


def test_check_config_prints_no_user_info_path_query_or_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KH_SLACK_URL", SLACK)
    (tmp_path / "pgw").write_text(f"http://pgw:9091/{TOKEN}\n")
    code, out = check_config(
        tmp_path,
        f"alerting:\n  external_url: 'https://grafana.example.com/d/{TOKEN}?orgId=1'\n"
        "  receivers:\n"
        "  - {name: slack, url: {env: KH_SLACK_URL}, format: slack}\n"
        f"  - {{name: plain, url: '{SLACK}'}}\n"
        f"  exporter: {{pushgateway_url: {{file: {tmp_path / 'pgw'}}}}}\n",
        capsys,
    )
    assert code == 0, out
    assert TOKEN not in out
    assert "url: <redacted> (env KH_SLACK_URL)" in out
    assert "url: https://hooks.example.com:8443\n" in out
    assert f"pushgateway_url: <redacted> (file {tmp_path / 'pgw'})" in out
    assert "external_url: https://grafana.example.com\n" in out


def test_check_config_refuses_user_info_without_echoing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = check_config(
        tmp_path, receiver_yaml(f"'https://user:{PASSWORD}@hooks.example.com/{TOKEN}'"), capsys
    )
    assert code == 2
    assert "alerting.receivers[0].url: carries user info" in out
    assert PASSWORD not in out and TOKEN not in out


def test_a_secret_url_is_checked_when_it_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config(receiver_yaml("{env: KH_URL}"))
    url = config.alerting.receivers[0].url
    assert isinstance(url, Secret)
    monkeypatch.setenv("KH_URL", f"  https://hooks.example.com/{TOKEN}\n")
    assert resolve_value(url) == f"https://hooks.example.com/{TOKEN}"  # stripped
    for bad, reason in [
        (f"https://u:{PASSWORD}@hooks.example.com/{TOKEN}", "carries user info"),
        (f"https://hooks.example.com:{PASSWORD}/{TOKEN}", "has an invalid port"),
    ]:
        monkeypatch.setenv("KH_URL", bad)
        with pytest.raises(ConfigError) as caught:
            resolve_value(url)
        (problem,) = caught.value.problems
        assert problem.path == "alerting.receivers[0].url"
        assert reason in problem.reason and "env KH_URL" in problem.reason
        assert PASSWORD not in str(caught.value) and TOKEN not in str(caught.value)


def test_a_secret_url_in_a_config_built_in_code_is_checked_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KH_URL", f"https://u:{PASSWORD}@x/")
    for value in (
        ReceiverConfig(name="p", url=Secret(env="KH_URL")).url,
        ExporterConfig(pushgateway_url=Secret(env="KH_URL")).pushgateway_url,
    ):
        with pytest.raises(ConfigError, match="carries user info") as caught:
            resolve_value(value)
        assert PASSWORD not in str(caught.value)


def test_secrets_from_env_and_file_are_stripped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KH_TOKEN", f"\t{TOKEN} \r\n")
    (tmp_path / "token").write_text(f"\n {TOKEN}\n\n")
    assert Secret(env="KH_TOKEN").resolve() == TOKEN
    assert Secret(file=str(tmp_path / "token")).resolve() == TOKEN
    assert resolve_value(Secret(env="KH_TOKEN")) == TOKEN
    assert resolve_value(" as is ") == " as is "
    assert resolve_value(None) == ""


def test_a_secret_names_its_key_when_it_cannot_be_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KH_UNSET", raising=False)
    config = parse_config(receiver_yaml("'https://x/'", ", bearer_token: {env: KH_UNSET}"))
    with pytest.raises(ConfigError) as caught:
        resolve_value(config.alerting.receivers[0].bearer_token)
    assert str(caught.value) == "alerting.receivers[0].bearer_token: variable KH_UNSET is not set"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    "url",
    [f"http://127.0.0.1:{{port}}/{TOKEN}?k={TOKEN}", f"http://u:{PASSWORD}@127.0.0.1:{{port}}/"],
)
def test_a_failed_push_logs_scheme_host_and_port_only(
    url: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = closed_port()
    monkeypatch.setenv("KH_PGW", url.format(port=port))
    config = ExporterConfig(port=None, pushgateway_url=url.format(port=port))
    with caplog.at_level(logging.WARNING):
        Exporter(config, CollectorRegistry(), cluster="t").push({"instance": "a"})  # a plain URL
        Exporter(ExporterConfig(port=None, pushgateway_url=Secret(env="KH_PGW")),
                 CollectorRegistry(), cluster="t").push({"instance": "a"})  # fmt: skip
    assert len(caplog.records) == 2, caplog.text
    assert f"push to http://127.0.0.1:{port} failed" in caplog.records[0].getMessage()
    assert TOKEN not in caplog.text and PASSWORD not in caplog.text


def test_a_yaml_syntax_error_says_where_without_quoting_the_line() -> None:
    text = f"alerting:\n  receivers:\n  - {{name: a, url: https://x/services/{TOKEN}: y}}\n"
    (problem,) = problems(text)
    assert problem.startswith("<file>: not valid YAML: ") and "line 3" in problem
    assert TOKEN not in problem


def test_a_config_with_secret_urls_written_back_loads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``write_config`` (dev clusters, the fault suite) dumps ``asdict``: secrets stay
    references, and read back they are URL-checked again."""
    from kafka_health.config import load_config
    from kafka_health.dev.shipper_devcluster import write_config

    config = parse_config(
        receiver_yaml("{env: KH_URL}")
        + "  exporter: {pushgateway_url: {file: /run/pgw}}\n"
        + "kafka:\n  client: {sasl_password: {env: KH_PW}}\n"
    )
    again = load_config(write_config(config, tmp_path / "monitor.yaml"))
    assert again == config
    monkeypatch.setenv("KH_URL", f"https://u:{PASSWORD}@x/")
    with pytest.raises(ConfigError, match=r"^alerting\.receivers\[0\]\.url: the URL from env"):
        resolve_value(again.alerting.receivers[0].url)
