"""The one typed configuration tree of kafka-health, loaded from YAML and validated.

Nobody else reads configuration files or environment variables for settings: every module
receives the part of :class:`MonitorConfig` it needs. Loading fails before anything starts,
with every problem named by its key path and reason (``ConfigError``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from kafka_health.errors import ConfigError, ConfigProblem

REDACTED = "<redacted>"


@dataclass(frozen=True)
class Secret:
    """A secret referenced by the config: read from an environment variable or a file.

    Secrets are never written inline in the config file; ``resolve()`` reads the value when a
    client is built, so the loaded config can be printed without revealing it.
    """

    env: str | None = None
    file: str | None = None

    def check(self, path: str) -> list[ConfigProblem]:
        if (self.env is None) == (self.file is None):
            return [ConfigProblem(path, "a secret needs exactly one of 'env' or 'file'")]
        return []

    def resolve(self) -> str:
        """Return the secret's value; raise ``ConfigError`` when it cannot be read."""
        if self.env is not None:
            value = os.environ.get(self.env)
            if value is None:
                raise ConfigError([ConfigProblem("secret.env", f"variable {self.env} is not set")])
            return value
        assert self.file is not None
        try:
            return Path(self.file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                [ConfigProblem("secret.file", f"cannot read {self.file}: {exc.strerror}")]
            ) from exc


SecurityProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]


@dataclass(frozen=True)
class KafkaClientConfig:
    """Security settings given to every Kafka client the project creates."""

    security_protocol: SecurityProtocol = "PLAINTEXT"
    sasl_mechanism: SaslMechanism | None = None
    sasl_username: str | None = None
    sasl_password: Secret | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_key_password: Secret | None = None
    ssl_check_hostname: bool = True
    request_timeout_s: float = 30.0

    def check(self, path: str) -> list[ConfigProblem]:
        problems: list[ConfigProblem] = []
        uses_sasl = self.security_protocol.startswith("SASL")
        if uses_sasl:
            for name in ("sasl_mechanism", "sasl_username", "sasl_password"):
                if getattr(self, name) is None:
                    problems.append(
                        ConfigProblem(
                            f"{path}.{name}",
                            f"required when security_protocol is {self.security_protocol}",
                        )
                    )
        elif self.sasl_mechanism is not None:
            problems.append(
                ConfigProblem(
                    f"{path}.sasl_mechanism",
                    f"SASL is not used with security_protocol {self.security_protocol}",
                )
            )
        if (self.ssl_certfile is None) != (self.ssl_keyfile is None):
            problems.append(
                ConfigProblem(f"{path}.ssl_keyfile", "ssl_certfile and ssl_keyfile go together")
            )
        if self.request_timeout_s <= 0:
            problems.append(ConfigProblem(f"{path}.request_timeout_s", "must be positive"))
        return problems


@dataclass(frozen=True)
class KafkaConfig:
    """Where the monitored cluster is. No bootstrap servers means the local dev cluster."""

    bootstrap_servers: list[str] = field(default_factory=list)
    client: KafkaClientConfig = field(default_factory=KafkaClientConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        for i, server in enumerate(self.bootstrap_servers):
            if not re.fullmatch(r"\[?[A-Za-z0-9_.:-]+\]?:\d{1,5}", server):
                problems.append(
                    ConfigProblem(f"{path}.bootstrap_servers[{i}]", f"{server!r} is not host:port")
                )
        return problems


@dataclass(frozen=True)
class TopicsConfig:
    """Names of the topics the monitor reads and writes."""

    canary: str = "__kafka_health_canary"
    canary_results: str = "__kafka_health_canary_results"
    cluster_state: str = "__kafka_health_cluster_state"
    broker_logs: str = "__kafka_health_broker_logs"
    dead_letter: str = "__kafka_health_dead_letter"

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        for f in dataclasses.fields(self):
            name = getattr(self, f.name)
            if not re.fullmatch(r"[A-Za-z0-9._-]{1,249}", name) or name in (".", ".."):
                problems.append(
                    ConfigProblem(f"{path}.{f.name}", f"{name!r} is not a legal Kafka topic name")
                )
        return problems


@dataclass(frozen=True)
class SparkConfig:
    """How the SparkSession is built."""

    master: str = "local[2]"
    app_name: str = "kafka-health"
    checkpoint_dir: str = "var/checkpoints"
    connector: Literal["maven", "ivy"] = "maven"
    cache_dir: str = "~/.cache/kafka-health/spark"
    jars: list[str] = field(default_factory=list)
    shuffle_partitions: int = 4
    log_level: Literal["ERROR", "WARN", "INFO", "DEBUG"] = "WARN"
    conf: dict[str, str] = field(default_factory=dict)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.shuffle_partitions < 1:
            problems.append(ConfigProblem(f"{path}.shuffle_partitions", "must be at least 1"))
        for i, jar in enumerate(self.jars):
            if not jar.endswith(".jar"):
                problems.append(ConfigProblem(f"{path}.jars[{i}]", f"{jar!r} is not a .jar file"))
        return problems


@dataclass(frozen=True)
class DevClusterConfig:
    """The local Kafka cluster started for the demo and the tests."""

    mode: Literal["kraft", "zookeeper"] = "kraft"
    brokers: int = 3
    dir: str = "var/devcluster"
    cache_dir: str = "~/.cache/kafka-health/kafka"
    kafka_version: str = "4.1.1"
    zookeeper_kafka_version: str = "3.9.1"
    heap: str = "256m"
    zookeeper_session_timeout_ms: int = 6000

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.brokers not in (1, 3):
            problems.append(ConfigProblem(f"{path}.brokers", "must be 1 or 3"))
        if not re.fullmatch(r"4\.\d+\.\d+", self.kafka_version):
            problems.append(ConfigProblem(f"{path}.kafka_version", "must be a 4.x release"))
        if not re.fullmatch(r"3\.9\.\d+", self.zookeeper_kafka_version):
            problems.append(
                ConfigProblem(f"{path}.zookeeper_kafka_version", "must be a 3.9.x release")
            )
        if not re.fullmatch(r"\d+[mMgG]", self.heap):
            problems.append(ConfigProblem(f"{path}.heap", f"{self.heap!r} is not like 256m or 1g"))
        if not 1000 <= self.zookeeper_session_timeout_ms <= 600_000:
            problems.append(
                ConfigProblem(f"{path}.zookeeper_session_timeout_ms", "must be 1000 to 600000")
            )
        return problems


ShipperFileKind = Literal["server", "controller", "state-change", "gc", "other"]


@dataclass(frozen=True)
class ShipperFileConfig:
    """One log file (``path``) or family of files (``glob``) of a broker, with its kind."""

    kind: ShipperFileKind = "other"
    path: str | None = None
    glob: str | None = None
    multiline_start: str | None = None
    """Regex matching the first line of an entry; other lines join the entry before them.
    Default: the layout of ``kind`` (``[yyyy-MM-dd ...`` for log4j files, GC decorators)."""

    @property
    def pattern(self) -> str:
        """The configured path or glob (also the bounded ``file`` label of the metrics)."""
        return self.path if self.path is not None else (self.glob or "")

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if (self.path is None) == (self.glob is None):
            problems.append(ConfigProblem(path, "a file needs exactly one of 'path' or 'glob'"))
        elif not self.pattern.strip():
            problems.append(ConfigProblem(f"{path}.{'path' if self.path else 'glob'}", "is empty"))
        if self.multiline_start is not None:
            try:
                re.compile(self.multiline_start)
            except re.error as exc:
                problems.append(
                    ConfigProblem(f"{path}.multiline_start", f"not a valid regex: {exc}")
                )
        return problems


@dataclass(frozen=True)
class ShipperBrokerConfig:
    """The log files of one broker, shipped with its id (the record key) and host name."""

    broker_id: str = ""
    host: str = ""
    files: list[ShipperFileConfig] = field(default_factory=list)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not self.broker_id.strip():
            problems.append(ConfigProblem(f"{path}.broker_id", "is required"))
        if not self.files:
            problems.append(ConfigProblem(f"{path}.files", "list at least one file"))
        return problems


@dataclass(frozen=True)
class ShipperConfig:
    """``kafka-health ship-logs``: which broker log files go to ``topics.broker_logs``, and how.

    Positions are written only after Kafka acknowledged the entries before them (at least
    once); ``buffer_max_entries`` bounds the entries read but not yet acknowledged, past which
    reading stops and the files themselves are the buffer.
    """

    brokers: list[ShipperBrokerConfig] = field(default_factory=list)
    positions_file: str = "var/shipper/positions.json"
    start_at: Literal["beginning", "end"] = "beginning"
    buffer_max_entries: int = 10_000
    max_entry_bytes: int = 64 * 1024
    flush_timeout_s: float = 2.0
    poll_interval_s: float = 0.25
    read_chunk_bytes: int = 256 * 1024
    rotated_grace_s: float = 5.0
    positions_interval_s: float = 1.0
    retry_backoff_s: float = 0.5
    retry_backoff_max_s: float = 10.0
    linger_ms: int = 20
    compression: Literal["none", "gzip"] = "none"
    metrics_host: str = "0.0.0.0"
    metrics_port: int | None = 9309
    """Port of the Prometheus /metrics endpoint; 0 picks a free one, null turns it off."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        ids = [b.broker_id for b in self.brokers]
        for i, broker_id in enumerate(ids):
            if broker_id and ids.index(broker_id) != i:
                problems.append(
                    ConfigProblem(f"{path}.brokers[{i}].broker_id", f"{broker_id!r} is repeated")
                )
        positive = (
            "buffer_max_entries", "flush_timeout_s", "poll_interval_s", "read_chunk_bytes",
            "retry_backoff_s", "retry_backoff_max_s",
        )  # fmt: skip
        for name in positive:
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        for name in ("rotated_grace_s", "positions_interval_s", "linger_ms"):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        if not 1024 <= self.max_entry_bytes <= 900 * 1024:
            problems.append(
                ConfigProblem(
                    f"{path}.max_entry_bytes",
                    "must be 1024 to 921600 (an entry and its envelope must fit in one record)",
                )
            )
        if self.retry_backoff_max_s < self.retry_backoff_s:
            problems.append(
                ConfigProblem(f"{path}.retry_backoff_max_s", "must be at least retry_backoff_s")
            )
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            problems.append(ConfigProblem(f"{path}.metrics_port", "must be 0 to 65535 or null"))
        if not self.positions_file.strip():
            problems.append(ConfigProblem(f"{path}.positions_file", "is required"))
        return problems


@dataclass(frozen=True)
class MonitorConfig:
    """The whole configuration."""

    cluster_name: str = "local"
    kafka: KafkaConfig = field(default_factory=KafkaConfig)
    topics: TopicsConfig = field(default_factory=TopicsConfig)
    spark: SparkConfig = field(default_factory=SparkConfig)
    devcluster: DevClusterConfig = field(default_factory=DevClusterConfig)
    shipper: ShipperConfig = field(default_factory=ShipperConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", self.cluster_name):
            return [ConfigProblem(_join(path, "cluster_name"), "only letters, digits, _ . -")]
        return []

    def with_bootstrap(self, servers: list[str]) -> MonitorConfig:
        """Return a copy pointing at ``servers`` (used once a dev cluster has started)."""
        return dataclasses.replace(
            self, kafka=dataclasses.replace(self.kafka, bootstrap_servers=list(servers))
        )


# --------------------------------------------------------------------------------------------
# Loading


def load_config(path: str | os.PathLike[str]) -> MonitorConfig:
    """Read and validate a YAML config file; raise ``ConfigError`` listing every problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([ConfigProblem("<file>", f"cannot read {path}: {exc.strerror}")]) from exc
    return parse_config(text)


def parse_config(text: str) -> MonitorConfig:
    """Validate YAML text into a ``MonitorConfig``."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError([ConfigProblem("<file>", f"not valid YAML: {exc}")]) from exc
    if raw is None:
        raw = {}
    return from_mapping(raw)


def from_mapping(raw: Any) -> MonitorConfig:
    """Validate an already-parsed mapping into a ``MonitorConfig``."""
    problems: list[ConfigProblem] = []
    config = _build(MonitorConfig, raw, "", problems)
    if problems:
        raise ConfigError(problems)
    assert isinstance(config, MonitorConfig)
    return config


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _build(tp: Any, value: Any, path: str, problems: list[ConfigProblem]) -> Any:
    """Convert ``value`` to type ``tp``, appending problems instead of raising."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    shown = path or "<top level>"

    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        return _build(non_none[0], value, path, problems)

    if origin is Literal:
        if value not in args:
            choices = ", ".join(repr(a) for a in args)
            problems.append(ConfigProblem(shown, f"{value!r} is not one of {choices}"))
            return args[0]
        return value

    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if value is None:
            value = {}
        if tp is Secret and isinstance(value, str):
            problems.append(
                ConfigProblem(
                    shown, "secrets are never inline: use {env: VARIABLE} or {file: /path}"
                )
            )
            return None
        if not isinstance(value, Mapping):
            problems.append(ConfigProblem(shown, f"expected a mapping, got {_kind(value)}"))
            return tp()
        hints = typing.get_type_hints(tp)
        known = {f.name for f in dataclasses.fields(tp)}
        for key in value:
            if key not in known:
                hint = _suggest(str(key), known)
                problems.append(ConfigProblem(_join(path, str(key)), f"unknown key{hint}"))
        kwargs = {
            name: _build(hints[name], value[name], _join(path, name), problems)
            for name in known
            if name in value
        }
        obj = tp(**kwargs)
        check = getattr(obj, "check", None)
        if check is not None:
            problems.extend(check(path))
        return obj

    if origin is list:
        if not isinstance(value, list):
            problems.append(ConfigProblem(shown, f"expected a list, got {_kind(value)}"))
            return []
        return [_build(args[0], v, f"{path}[{i}]", problems) for i, v in enumerate(value)]

    if origin is dict:
        if not isinstance(value, Mapping):
            problems.append(ConfigProblem(shown, f"expected a mapping, got {_kind(value)}"))
            return {}
        return {str(k): _build(args[1], v, _join(path, str(k)), problems) for k, v in value.items()}

    if tp is bool:
        if not isinstance(value, bool):
            problems.append(ConfigProblem(shown, f"expected true or false, got {_kind(value)}"))
            return False
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append(ConfigProblem(shown, f"expected an integer, got {_kind(value)}"))
            return 0
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(ConfigProblem(shown, f"expected a number, got {_kind(value)}"))
            return 0.0
        return float(value)
    if tp is str:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            problems.append(ConfigProblem(shown, f"expected a string, got {_kind(value)}"))
            return ""
        return str(value)
    raise TypeError(f"config type {tp!r} at {shown} is not supported")  # a bug, not bad input


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), f"{type(value).__name__} {value!r}"
    )


def _suggest(key: str, known: set[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(sorted(known))})"


# --------------------------------------------------------------------------------------------
# Printing


def to_redacted_dict(config: Any) -> Any:
    """The effective config as plain data, with every secret replaced by where it comes from."""
    if isinstance(config, Secret):
        source = f"env {config.env}" if config.env else f"file {config.file}"
        return f"{REDACTED} ({source})"
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return {
            f.name: to_redacted_dict(getattr(config, f.name)) for f in dataclasses.fields(config)
        }
    if isinstance(config, list):
        return [to_redacted_dict(v) for v in config]
    if isinstance(config, dict):
        return {k: to_redacted_dict(v) for k, v in config.items()}
    return config


def dump_redacted(config: MonitorConfig) -> str:
    """YAML text of the effective config with secrets redacted."""
    return yaml.safe_dump(to_redacted_dict(config), sort_keys=False)
