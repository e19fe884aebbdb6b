"""The one typed configuration tree of kafka-health, loaded from YAML and validated.

Nobody else reads configuration files or environment variables for settings: every module
receives the part of :class:`MonitorConfig` it needs. Loading fails before anything starts,
with every problem named by its key path and reason (``ConfigError``). Each section's schema
lives beside the part it configures (``canary/config.py``, ``detectors/config.py``, ...); the
engine, secrets and redaction are :mod:`kafka_health.configuration`. This module assembles
them and re-exports every section for the entry points, the processes and tests. Only the
layers above it (``cli``, ``commands``, ``job``, ``services``, ``replay``, the dev tooling)
import it; below, each package imports its own section (pyproject.toml's import-linter layers).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from kafka_health.alerting.config import (
    AlertFormat,
    AlertingConfig,
    ExporterConfig,
    ReceiverConfig,
    Severity,
    SilenceConfig,
)
from kafka_health.canary.config import (
    CanaryConfig,
)
from kafka_health.cluster_state.config import (
    ClusterStateConfig,
)
from kafka_health.configuration.engine import (
    build,
    join_path,
    parse_section,
)
from kafka_health.configuration.redact import (
    dump_redacted,
    to_redacted_dict,
)
from kafka_health.configuration.secrets import (
    REDACTED,
    Secret,
)
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.detectors.config import (
    JobConfig,
)
from kafka_health.dev_cluster_config import (
    DevClusterConfig,
)
from kafka_health.errors import (
    ConfigError,
    ConfigProblem,
)
from kafka_health.kafka_config import (
    KafkaClientConfig,
    KafkaConfig,
    SaslMechanism,
    SecurityProtocol,
    TopicsConfig,
    TransportConfig,
)
from kafka_health.metrics_endpoint import (
    MetricsEndpointsConfig,
)
from kafka_health.parsing.config import (
    DeadLetterConfig,
    EnvelopeFieldsConfig,
    ParsingConfig,
)
from kafka_health.reachability.config import (
    ReachabilityConfig,
)
from kafka_health.shipper.config import (
    ShipperBrokerConfig,
    ShipperConfig,
    ShipperFileConfig,
    ShipperFileKind,
)
from kafka_health.spark.config import (
    SparkConfig,
)

__all__ = [
    "REDACTED",
    "AlertFormat",
    "AlertingConfig",
    "CanaryConfig",
    "ClusterStateConfig",
    "ConfigError",
    "ConfigProblem",
    "DeadLetterConfig",
    "DevClusterConfig",
    "EnvelopeFieldsConfig",
    "ExporterConfig",
    "JobConfig",
    "KafkaClientConfig",
    "KafkaConfig",
    "MetricsEndpointsConfig",
    "MonitorConfig",
    "ParsingConfig",
    "ReachabilityConfig",
    "ReceiverConfig",
    "SaslMechanism",
    "Secret",
    "SecurityProtocol",
    "Severity",
    "ShipperBrokerConfig",
    "ShipperConfig",
    "ShipperFileConfig",
    "ShipperFileKind",
    "SilenceConfig",
    "SparkConfig",
    "TopicsConfig",
    "TransportConfig",
    "dump_redacted",
    "from_mapping",
    "load_config",
    "parse_config",
    "parse_section",
    "resolve_cluster_name",
    "to_redacted_dict",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class MonitorConfig:
    """The whole configuration."""

    cluster_name: str = ""
    """The ``cluster`` label of every series, alert and checkpoint folder. Empty: the monitored
    cluster's id, asked once when a process starts (:func:`resolve_cluster_name`); the local
    dev cluster's is ``local``."""
    kafka: KafkaConfig = field(default_factory=KafkaConfig)
    transport: TransportConfig = field(default_factory=TransportConfig)
    topics: TopicsConfig = field(default_factory=TopicsConfig)
    canary: CanaryConfig = field(default_factory=CanaryConfig)
    cluster_state: ClusterStateConfig = field(default_factory=ClusterStateConfig)
    consumer_groups: ConsumerGroupsConfig = field(default_factory=ConsumerGroupsConfig)
    reachability: ReachabilityConfig = field(default_factory=ReachabilityConfig)
    spark: SparkConfig = field(default_factory=SparkConfig)
    job: JobConfig = field(default_factory=JobConfig)
    devcluster: DevClusterConfig = field(default_factory=DevClusterConfig)
    shipper: ShipperConfig = field(default_factory=ShipperConfig)
    alerting: AlertingConfig = field(default_factory=AlertingConfig)
    parsing: ParsingConfig = field(default_factory=ParsingConfig)
    metrics_endpoints: MetricsEndpointsConfig = field(default_factory=MetricsEndpointsConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        if self.cluster_name and not re.fullmatch(CLUSTER_NAME_PATTERN, self.cluster_name):
            return [ConfigProblem(join_path(path, "cluster_name"), "only letters, digits, _ . -")]
        return []

    def with_bootstrap(self, servers: list[str]) -> MonitorConfig:
        """Return a copy pointing at ``servers`` (used once a dev cluster has started)."""
        return dataclasses.replace(
            self, kafka=dataclasses.replace(self.kafka, bootstrap_servers=list(servers))
        )

    def with_transport(self, servers: list[str]) -> MonitorConfig:
        """Return a copy whose own topics travel through ``servers`` (a separate cluster)."""
        return dataclasses.replace(
            self, transport=dataclasses.replace(self.transport, bootstrap_servers=list(servers))
        )

    @property
    def separate_transport(self) -> bool:
        """True when the monitor's own topics live on a cluster of their own."""
        return bool(self.transport.bootstrap_servers)

    def clusters(self) -> list[KafkaConfig]:
        """The monitored cluster, then the transport when it is a separate one."""
        if self.separate_transport:
            return [self.kafka, self.transport_kafka()]
        return [self.kafka]

    def transport_kafka(self) -> KafkaConfig:
        """The cluster of the monitor's own topics: ``transport``, else the monitored one."""
        if self.separate_transport:
            return KafkaConfig(list(self.transport.bootstrap_servers), self.transport.client)
        return self.kafka


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
        raise ConfigError(
            [ConfigProblem("<file>", f"not valid YAML: {_yaml_error(exc)}")]
        ) from None
    if raw is None:
        raw = {}
    return from_mapping(raw)


def _yaml_error(exc: yaml.YAMLError) -> str:
    """What is wrong and where (line, column), without the quoted text: it may be a secret."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return f"{exc.problem or exc.context or 'a syntax error'}{where}"
    return type(exc).__name__


def from_mapping(raw: Any) -> MonitorConfig:
    """Validate an already-parsed mapping into a ``MonitorConfig``."""
    problems: list[ConfigProblem] = []
    config = build(MonitorConfig, raw, "", problems)
    if problems:
        raise ConfigError(problems)
    assert isinstance(config, MonitorConfig)
    return config


CLUSTER_NAME_PATTERN = r"[A-Za-z0-9_.-]+"
"""What a cluster name may hold (it names a checkpoint folder, and is every series' label)."""
DEV_CLUSTER_NAME = "local"
"""``cluster_name`` when it is not set and the monitor watches the local dev cluster."""


def resolve_cluster_name(
    config: MonitorConfig,
    cluster_id: Callable[[KafkaConfig], str] | None = None,
    kept_in: Path | None = None,
) -> MonitorConfig:
    """``config`` with its ``cluster_name`` set: as configured, else the monitored cluster's id
    (``DescribeCluster``, once: a name that changed while running would split the series),
    else, without bootstrap servers (the dev cluster), ``local``. A cluster that cannot be
    asked at start (down, refusing the login) must still be watched, and paged about: the
    name is then the one its id gave at an earlier start, kept in the folder ``kept_in`` (the
    job's checkpoints, named by it: a job restarted in an outage must resume its own state and
    series), else its first bootstrap server's (:func:`bootstrap_cluster_name`); either with a
    warning naming ``cluster_name``; set it so the name never depends on the cluster at start."""
    if config.cluster_name:
        return config
    if not config.kafka.bootstrap_servers:
        return dataclasses.replace(config, cluster_name=DEV_CLUSTER_NAME)
    ask = cluster_id or described_cluster_id
    try:
        found = ask(config.kafka)
        why = f"its id {found!r} is not a usable name"
    except Exception as exc:  # NoBrokersAvailable, timeouts, authentication...
        found, why = "", f"its id cannot be read ({type(exc).__name__})"
    kept = None if kept_in is None else _kept_name_file(kept_in, config.kafka)
    if found and re.fullmatch(CLUSTER_NAME_PATTERN, found):
        if kept is not None:
            _keep_name(kept, config.kafka, found)
        return dataclasses.replace(config, cluster_name=found)
    earlier = None if kept is None else _kept_name(kept)
    if earlier is not None:
        log.warning("cluster_name is not set and the monitored cluster's %s: named %r, as its "
                    "id named it at an earlier start (%s); set cluster_name",
                    why, earlier, kept)  # fmt: skip
        return dataclasses.replace(config, cluster_name=earlier)
    fallback = bootstrap_cluster_name(config.kafka)
    log.warning("cluster_name is not set and the monitored cluster's %s: named %r after its "
                "first bootstrap server; set cluster_name", why, fallback)  # fmt: skip
    return dataclasses.replace(config, cluster_name=fallback)


def _kept_name_file(folder: Path, kafka: KafkaConfig) -> Path:
    """Where the name of the cluster at ``kafka``'s bootstrap servers is kept (one file per
    set of servers: jobs of several clusters may share a checkpoint folder)."""
    servers = ",".join(sorted(kafka.bootstrap_servers))
    digest = hashlib.sha256(servers.encode()).hexdigest()[:16]
    return folder.expanduser() / f"cluster-name-{digest}.json"


def _kept_name(path: Path) -> str | None:
    """The name kept in ``path``; None if there is none, or it cannot be read as one."""
    try:
        name = json.loads(path.read_text(encoding="utf-8")).get("cluster_name")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, AttributeError) as exc:
        log.warning("the cluster's name kept in %s cannot be read (%s)", path, type(exc).__name__)
        return None
    return name if isinstance(name, str) and re.fullmatch(CLUSTER_NAME_PATTERN, name) else None


def _keep_name(path: Path, kafka: KafkaConfig, name: str) -> None:
    """``name`` kept in ``path`` (written whole, then renamed), unless it is already; a folder
    that cannot be written is a warning, not a failure to start."""
    if _kept_name(path) == name:
        return
    text = json.dumps({"cluster_name": name, "bootstrap_servers": sorted(kafka.bootstrap_servers)})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    except OSError as exc:
        log.warning("the cluster's name cannot be kept in %s (%s): a restart while the cluster "
                    "cannot be asked will name it after its first bootstrap server",
                    path, type(exc).__name__)  # fmt: skip


def bootstrap_cluster_name(kafka: KafkaConfig) -> str:
    """A name from the first bootstrap server (``host:port`` -> ``host_port``), kept to the
    characters a cluster name may hold."""
    first = kafka.bootstrap_servers[0] if kafka.bootstrap_servers else DEV_CLUSTER_NAME
    return re.sub(r"[^A-Za-z0-9_.-]", "_", first)[:100] or DEV_CLUSTER_NAME


def described_cluster_id(kafka: KafkaConfig) -> str:
    """The cluster's id from ``DescribeCluster`` (kafka-python's admin client)."""
    from kafka import KafkaAdminClient

    from kafka_health.kafka_clients import admin_options

    admin = KafkaAdminClient(**admin_options(kafka, "kafka-health-cluster-id", 30.0))
    try:
        return str(admin.describe_cluster().get("cluster_id") or "")
    finally:
        admin.close()
