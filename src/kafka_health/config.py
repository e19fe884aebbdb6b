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
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

from kafka_health.errors import ConfigError, ConfigProblem

REDACTED = "<redacted>"
T = TypeVar("T")


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
class TransportConfig(KafkaConfig):
    """The cluster that carries the monitor's own topics (canary results, broker logs, cluster
    state, dead letters). No bootstrap servers means the monitored cluster itself.

    A monitor that ships its evidence through the cluster it watches goes blind with it: a
    hung broker that leads a results or log partition holds the very records that would page.
    The canary topic always stays on the monitored cluster: it is what is probed.
    """

    def check(self, path: str) -> list[ConfigProblem]:
        problems = super().check(path)
        if not self.bootstrap_servers and self.client != KafkaClientConfig():
            problems.append(
                ConfigProblem(
                    f"{path}.client",
                    "has no effect without transport.bootstrap_servers (the monitored "
                    "cluster's kafka.client is used)",
                )
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
class CanaryConfig:
    """``kafka-health canary``: probes of every partition of ``topics.canary``, and its topic.

    Zero means "automatic" for ``partitions`` (one per live broker), ``replication_factor``
    (min(3, brokers)), ``min_insync_replicas`` (replication factor - 1, at least 1) and
    ``expected_brokers`` (the brokers the current assignment uses: never reassign replicas away
    from a broker that is only restarting).
    """

    id: str = "kafka-health-canary"
    interval_s: float = 1.0
    send_timeout_s: float = 10.0
    """The probe producer's request timeout: how long the client waits for an answer."""
    probe_deadline_s: float = 3.0
    """A probe unanswered this long has failed (``Timeout``), published at once; an answer
    that comes later is only counted as late."""
    acks1_probe: bool = True
    """Also an acks=1 probe per partition and round: tells a hung leader from a follower that
    holds back acks=all writes, and shows the acks=1 data-loss window."""
    partitions: int = 0
    replication_factor: int = 0
    min_insync_replicas: int = 0
    expected_brokers: int = 0
    manage_topic: bool = True
    manage_interval_s: float = 60.0
    state_dir: str = "var/canary"
    sequence_block: int = 1000
    buffer_max_bytes: int = 64 * 1024 * 1024
    buffer_segment_bytes: int = 1024 * 1024
    results_partitions: int = 3
    results_timeout_s: float = 3.0
    """How long a batch of outcomes may wait for its acknowledgement before it is sent again
    through a new producer: bounds how long a hung leader of a results partition holds them
    (when the results share the monitored cluster)."""
    cluster_state: bool = True
    """Run the cluster-state prober in the canary's process too."""
    metrics_host: str = "127.0.0.1"
    metrics_port: int | None = 9310
    """Port of the canary's own /metrics endpoint; 0 picks a free one, null turns it off."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", self.id):
            problems.append(ConfigProblem(f"{path}.id", "1 to 100 letters, digits, _ . -"))
        if not 0.05 <= self.interval_s <= 3600:
            problems.append(ConfigProblem(f"{path}.interval_s", "must be 0.05 to 3600"))
        if not 0.1 <= self.send_timeout_s <= 120:
            problems.append(ConfigProblem(f"{path}.send_timeout_s", "must be 0.1 to 120"))
        if not 0.1 <= self.probe_deadline_s <= max(0.1, self.send_timeout_s):
            problems.append(
                ConfigProblem(f"{path}.probe_deadline_s", "must be 0.1 to send_timeout_s")
            )
        if self.manage_interval_s <= 0:
            problems.append(ConfigProblem(f"{path}.manage_interval_s", "must be positive"))
        for name in ("partitions", "replication_factor", "min_insync_replicas", "expected_brokers"):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be 0 (automatic) or more"))
        if self.replication_factor > 0 and self.min_insync_replicas > self.replication_factor:
            problems.append(
                ConfigProblem(f"{path}.min_insync_replicas", "must not exceed replication_factor")
            )
        if self.sequence_block < 1:
            problems.append(ConfigProblem(f"{path}.sequence_block", "must be at least 1"))
        if self.buffer_segment_bytes < 4096:
            problems.append(ConfigProblem(f"{path}.buffer_segment_bytes", "must be at least 4096"))
        if self.buffer_max_bytes < 2 * self.buffer_segment_bytes:
            problems.append(
                ConfigProblem(
                    f"{path}.buffer_max_bytes", "must be at least twice buffer_segment_bytes"
                )
            )
        if self.results_partitions < 1:
            problems.append(ConfigProblem(f"{path}.results_partitions", "must be at least 1"))
        if not 0.5 <= self.results_timeout_s <= 300:
            problems.append(ConfigProblem(f"{path}.results_timeout_s", "must be 0.5 to 300"))
        if not self.state_dir.strip():
            problems.append(ConfigProblem(f"{path}.state_dir", "is required"))
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            problems.append(ConfigProblem(f"{path}.metrics_port", "must be 0 to 65535 or null"))
        return problems


@dataclass(frozen=True)
class ClusterStateConfig:
    """The cluster-state prober: every ``interval_s``, one record per partition and broker.

    ``topics_regex`` must match a whole topic name; partitions are described
    ``page_partitions`` at a time, so memory stays bounded however large the cluster.
    """

    interval_s: float = 10.0
    topics_regex: str = ".*"
    include_internal: bool = True
    page_partitions: int = 2000
    topic_partitions: int = 1
    """Partitions of ``topics.cluster_state`` when the canary creates it; with one, a
    snapshot's records stay in order (its closing record comes last)."""
    request_timeout_s: float = 3.0
    """Bound of each describe request and of each write of snapshot records: a frozen broker
    fails the snapshot within it instead of stalling the loop for
    ``kafka.client.request_timeout_s``."""
    metrics_host: str = "127.0.0.1"
    metrics_port: int | None = 9311
    """/metrics of ``kafka-health cluster-state`` (the canary serves its own port)."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not 0.5 <= self.interval_s <= 86400:
            problems.append(ConfigProblem(f"{path}.interval_s", "must be 0.5 to 86400"))
        try:
            re.compile(self.topics_regex)
        except re.error as exc:
            problems.append(ConfigProblem(f"{path}.topics_regex", f"not a valid regex: {exc}"))
        if not 1 <= self.page_partitions <= 100_000:
            problems.append(ConfigProblem(f"{path}.page_partitions", "must be 1 to 100000"))
        if self.topic_partitions < 1:
            problems.append(ConfigProblem(f"{path}.topic_partitions", "must be at least 1"))
        if not 0.1 <= self.request_timeout_s <= 300:
            problems.append(ConfigProblem(f"{path}.request_timeout_s", "must be 0.1 to 300"))
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            problems.append(ConfigProblem(f"{path}.metrics_port", "must be 0 to 65535 or null"))
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
    metrics_host: str = "127.0.0.1"
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
class JobConfig:
    """The streaming health job: windows, thresholds of its stateful signals, supervision."""

    window_s: float = 60.0
    slide_s: float = 10.0
    availability_window_s: float = 20.0
    """Canary availability is over this last part of the window (fast to page and to clear)."""
    watermark_s: float = 30.0
    trigger_interval_s: float = 2.0
    canary_trigger_interval_s: float = 10.0
    """The canary query's trigger: it feeds only the loss verdicts, which wait loss_grace_s."""
    starting_offsets: Literal["latest", "earliest"] = "latest"
    max_offsets_per_trigger: int = 500_000
    latency_accuracy: int = 10_000
    canary_silence_s: float = 30.0
    loss_grace_s: float = 60.0
    loss_report_window_s: float = 900.0
    coordinator_load_stuck_s: float = 300.0
    log_silence_s: float = 300.0
    isr_expire_after_s: float = 60.0
    session_timeout_ms: int = 18_000
    session_timeout_ms_by_broker: dict[str, int] = field(default_factory=dict)
    restart_backoff_initial_s: float = 2.0
    restart_backoff_max_s: float = 60.0
    stop_timeout_s: float = 30.0
    stale_after_s: dict[str, float] = field(default_factory=dict)
    """Per source (canary, cluster_state, canary_topic): newest observation older than this is
    stale. Not listed: canary and cluster_state two trigger intervals plus three of the
    source's own intervals; canary_topic 120 s."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        for source, seconds in self.stale_after_s.items():
            if source not in ("canary", "cluster_state", "canary_topic") or seconds <= 0:
                problems.append(
                    ConfigProblem(
                        f"{path}.stale_after_s.{source}",
                        "keys are canary, cluster_state or canary_topic, values positive seconds",
                    )
                )
        positive = (
            "window_s", "slide_s", "availability_window_s", "trigger_interval_s",
            "canary_trigger_interval_s", "canary_silence_s", "loss_grace_s",
            "loss_report_window_s", "coordinator_load_stuck_s", "log_silence_s",
            "isr_expire_after_s", "restart_backoff_initial_s", "restart_backoff_max_s",
            "stop_timeout_s",
        )  # fmt: skip
        for name in positive:
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        if self.watermark_s < 0:
            problems.append(ConfigProblem(f"{path}.watermark_s", "must not be negative"))
        if self.slide_s > self.window_s:
            problems.append(ConfigProblem(f"{path}.slide_s", "must not exceed window_s"))
        if self.availability_window_s > self.window_s:
            problems.append(
                ConfigProblem(f"{path}.availability_window_s", "must not exceed window_s")
            )
        if self.max_offsets_per_trigger < 1 or self.latency_accuracy < 1:
            problems.append(
                ConfigProblem(path, "max_offsets_per_trigger and latency_accuracy must be >= 1")
            )
        if self.session_timeout_ms < 1000:
            problems.append(ConfigProblem(f"{path}.session_timeout_ms", "must be >= 1000"))
        for broker, timeout in self.session_timeout_ms_by_broker.items():
            if not broker.isdigit() or timeout < 1000:
                problems.append(
                    ConfigProblem(
                        f"{path}.session_timeout_ms_by_broker.{broker}",
                        "keys are broker ids, values >= 1000 ms",
                    )
                )
        if self.restart_backoff_max_s < self.restart_backoff_initial_s:
            problems.append(
                ConfigProblem(
                    f"{path}.restart_backoff_max_s", "must be >= restart_backoff_initial_s"
                )
            )
        return problems


# --------------------------------------------------------------------------------------------
# Alerting (issue 7): the alert service, its receivers, silences and the /metrics exporter.
# The rules themselves are in their own file (``alerting.rules_file``, conf/alerts.yaml).

AlertFormat = Literal["alertmanager", "pagerduty", "slack"]
Severity = Literal["critical", "warning", "info"]


def _check_matchers(matchers: list[str], path: str) -> list[ConfigProblem]:
    from kafka_health.alerting.silence import parse_matcher  # no cycle: silence imports no config

    problems = []
    for i, text in enumerate(matchers):
        try:
            parse_matcher(text)
        except ValueError as exc:
            problems.append(ConfigProblem(f"{path}[{i}]", str(exc)))
    return problems


@dataclass(frozen=True)
class ReceiverConfig:
    """Where notifications go: a URL, a payload format, which alerts (routing), how to retry.

    Routing: an alert goes to every receiver whose ``severities`` (empty: all) contain its
    severity and whose ``matchers`` (``label="value"``, ``!=``, ``=~``, ``!~``) all match.
    """

    name: str = ""
    url: str = ""
    format: AlertFormat = "alertmanager"
    severities: list[Severity] = field(default_factory=list)
    matchers: list[str] = field(default_factory=list)
    send_resolved: bool = True
    bearer_token: Secret | None = None
    hmac_secret: Secret | None = None
    """Signs ``<timestamp>.<body>`` with HMAC-SHA256 into ``X-Kafka-Health-Signature``."""
    routing_key: Secret | None = None
    """PagerDuty Events API v2 integration key (format: pagerduty)."""
    timeout_s: float = 10.0
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 15.0
    """A receiver that is back gets the page within this (fault suite, receiver-outage: 24 s
    after a 2-minute outage with 60 s); a retry every 15 s costs a pager nothing."""
    jitter: float = 0.2
    retry_after_max_s: float = 600.0
    give_up_after_s: float = 86400.0
    max_alerts: int = 0
    """At most this many alerts in one payload (0: all); the rest are counted as truncated."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", self.name):
            problems.append(ConfigProblem(f"{path}.name", "1 to 64 letters, digits, _ . -"))
        if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", self.url):
            problems.append(ConfigProblem(f"{path}.url", f"{self.url!r} is not an http(s) URL"))
        if self.format == "pagerduty" and self.routing_key is None:
            problems.append(ConfigProblem(f"{path}.routing_key", "required by format pagerduty"))
        for name in ("bearer_token", "hmac_secret", "routing_key"):
            secret = getattr(self, name)
            if secret is not None:
                problems.extend(secret.check(f"{path}.{name}"))
        problems.extend(_check_matchers(self.matchers, f"{path}.matchers"))
        for name in ("timeout_s", "backoff_initial_s", "give_up_after_s"):
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        if self.backoff_max_s < self.backoff_initial_s:
            problems.append(
                ConfigProblem(f"{path}.backoff_max_s", "must be at least backoff_initial_s")
            )
        if not 0 <= self.jitter <= 1:
            problems.append(ConfigProblem(f"{path}.jitter", "must be 0 to 1"))
        if self.retry_after_max_s < 0 or self.max_alerts < 0:
            name = "retry_after_max_s" if self.retry_after_max_s < 0 else "max_alerts"
            problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        return problems


@dataclass(frozen=True)
class SilenceConfig:
    """A silence written in the config: alerts matching every matcher are not notified."""

    matchers: list[str] = field(default_factory=list)
    starts_at: str = ""
    """ISO 8601 time, quoted in YAML (empty: already started)."""
    ends_at: str = ""
    comment: str = ""
    created_by: str = "config"

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not self.matchers:
            problems.append(ConfigProblem(f"{path}.matchers", "list at least one matcher"))
        problems.extend(_check_matchers(self.matchers, f"{path}.matchers"))
        for name in ("starts_at", "ends_at"):
            value = getattr(self, name)
            if not value and name == "starts_at":
                continue
            try:
                datetime.fromisoformat(value)
            except ValueError:
                problems.append(
                    ConfigProblem(f"{path}.{name}", f"{value!r} is not an ISO 8601 time")
                )
        return problems


@dataclass(frozen=True)
class ExporterConfig:
    """The Prometheus /metrics endpoint of the job's driver, and an optional Pushgateway."""

    host: str = "127.0.0.1"
    port: int | None = 9308
    """0 picks a free port, null turns the endpoint off."""
    max_series_per_signal: int = 2000
    pushgateway_url: str = ""
    push_interval_s: float = 15.0
    push_job: str = "kafka-health"

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if self.port is not None and not 0 <= self.port <= 65535:
            problems.append(ConfigProblem(f"{path}.port", "must be 0 to 65535 or null"))
        if self.max_series_per_signal < 1:
            problems.append(ConfigProblem(f"{path}.max_series_per_signal", "must be at least 1"))
        if self.pushgateway_url and not re.fullmatch(r"https?://\S+", self.pushgateway_url):
            problems.append(ConfigProblem(f"{path}.pushgateway_url", "is not an http(s) URL"))
        if self.push_interval_s <= 0:
            problems.append(ConfigProblem(f"{path}.push_interval_s", "must be positive"))
        return problems


@dataclass(frozen=True)
class AlertingConfig:
    """The alert service on the job's driver: rules, lifecycle timing, receivers, silences.

    Grouping: alerts with the same ``group_by`` labels (one broker) make one notification,
    sent ``group_wait_s`` after the group's first alert, updates at most every
    ``group_interval_s``, and a reminder every ``repeat_interval_s`` while still firing.
    """

    enabled: bool = True
    rules_file: str = "conf/alerts.yaml"
    state_dir: str = "var/alerting"
    tick_s: float = 1.0
    signal_ttl_s: float = 60.0
    """A series given by ``submit`` (partial updates) and not reported again for this long is
    gone. The job publishes full snapshots: its series go at once, and a stale source's values
    are left out of them by the job (``signal_stale``)."""
    group_by: list[str] = field(default_factory=lambda: ["broker_id"])
    group_wait_s: float = 1.0
    """The first page's wait when a cause could still explain its alerts: a cause seen within
    it is on the first page; one seen later updates the same incident at once."""
    root_group_wait_s: float = 0.5
    """The first page's wait when all its alerts are root causes (no inhibit rule targets
    them): no cause can come later."""
    group_interval_s: float = 10.0
    repeat_interval_s: float = 14400.0
    resolved_retention_s: float = 86400.0
    maintenance_window_s: float = 900.0
    """How long a broker that logged a controlled shutdown is in maintenance."""
    external_url: str = ""
    receivers: list[ReceiverConfig] = field(default_factory=list)
    silences: list[SilenceConfig] = field(default_factory=list)
    exporter: ExporterConfig = field(default_factory=ExporterConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        positive = ("tick_s", "signal_ttl_s", "group_interval_s", "repeat_interval_s")
        for name in positive:
            if getattr(self, name) <= 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be positive"))
        for name in (
            "group_wait_s",
            "root_group_wait_s",
            "resolved_retention_s",
            "maintenance_window_s",
        ):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must not be negative"))
        for name in ("rules_file", "state_dir"):
            if not getattr(self, name).strip():
                problems.append(ConfigProblem(f"{path}.{name}", "is required"))
        names = [r.name for r in self.receivers]
        for i, name in enumerate(names):
            if name and names.index(name) != i:
                problems.append(ConfigProblem(f"{path}.receivers[{i}].name", f"{name!r} repeated"))
        for i, label in enumerate(self.group_by):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", label):
                problems.append(ConfigProblem(f"{path}.group_by[{i}]", "not a label name"))
        return problems


@dataclass(frozen=True)
class EnvelopeFieldsConfig:
    """Where a JSON log envelope keeps each part, as dotted paths tried in order.

    The defaults read the project's own shipper (``kafka-health/log/v1``), Filebeat
    (``message``, ``host.name``, ``log.file.path``, custom ``fields.*``), Fluent Bit (``log``,
    its ``Path_Key``), Vector's file source (``message``, ``host``, ``file``) and rsyslog
    ``omkafka`` JSON templates (``msg``, ``hostname``, ``filename``).
    """

    message: list[str] = field(default_factory=lambda: ["message", "log", "msg"])
    broker_id: list[str] = field(
        default_factory=lambda: ["broker_id", "fields.broker_id", "kafka.broker_id"]
    )
    host: list[str] = field(default_factory=lambda: ["host.name", "host", "hostname"])
    file: list[str] = field(
        default_factory=lambda: ["path", "log.file.path", "file", "filename", "file.path"]
    )
    kind: list[str] = field(default_factory=lambda: ["kind", "fields.kind", "fields.log_kind"])

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        for f in dataclasses.fields(self):
            paths = getattr(self, f.name)
            if f.name == "message" and not paths:
                problems.append(ConfigProblem(f"{path}.{f.name}", "needs at least one path"))
            for i, p in enumerate(paths):
                if not re.fullmatch(r"[A-Za-z0-9_@-]+(\.[A-Za-z0-9_@-]+)*", p):
                    problems.append(
                        ConfigProblem(f"{path}.{f.name}[{i}]", f"{p!r} is not a dotted path")
                    )
        return problems


@dataclass(frozen=True)
class DeadLetterConfig:
    """Which records the streaming job sets aside, with their source offsets."""

    include_malformed: bool = True
    include_unknown_format: bool = True
    max_value_bytes: int = 65_536

    def check(self, path: str) -> list[ConfigProblem]:
        if not 0 <= self.max_value_bytes <= 10_485_760:
            return [ConfigProblem(f"{path}.max_value_bytes", "must be 0 to 10485760")]
        return []


@dataclass(frozen=True)
class ParsingConfig:
    """How broker and GC log records are decoded and parsed into events."""

    fields: EnvelopeFieldsConfig = field(default_factory=EnvelopeFieldsConfig)
    # What a record key holds: a broker id, a host name, either (auto: digits are an id) or nothing.
    record_key: Literal["auto", "broker_id", "host", "none"] = "auto"
    max_entry_bytes: int = 1_048_576
    max_entry_lines: int = 1000
    # How far into a multi-line entry the patterns that read past the first line look.
    scan_chars: int = 16_384
    # Time zone of log timestamps without an offset (log4j's default layout has none).
    log_timezone: str = "UTC"
    dead_letter: DeadLetterConfig = field(default_factory=DeadLetterConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not 1024 <= self.max_entry_bytes <= 67_108_864:
            problems.append(ConfigProblem(f"{path}.max_entry_bytes", "must be 1024 to 67108864"))
        if not 1 <= self.max_entry_lines <= 100_000:
            problems.append(ConfigProblem(f"{path}.max_entry_lines", "must be 1 to 100000"))
        if not 256 <= self.scan_chars <= 1_048_576:
            problems.append(ConfigProblem(f"{path}.scan_chars", "must be 256 to 1048576"))
        return problems


@dataclass(frozen=True)
class MonitorConfig:
    """The whole configuration."""

    cluster_name: str = "local"
    kafka: KafkaConfig = field(default_factory=KafkaConfig)
    transport: TransportConfig = field(default_factory=TransportConfig)
    topics: TopicsConfig = field(default_factory=TopicsConfig)
    canary: CanaryConfig = field(default_factory=CanaryConfig)
    cluster_state: ClusterStateConfig = field(default_factory=ClusterStateConfig)
    spark: SparkConfig = field(default_factory=SparkConfig)
    job: JobConfig = field(default_factory=JobConfig)
    devcluster: DevClusterConfig = field(default_factory=DevClusterConfig)
    shipper: ShipperConfig = field(default_factory=ShipperConfig)
    alerting: AlertingConfig = field(default_factory=AlertingConfig)
    parsing: ParsingConfig = field(default_factory=ParsingConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", self.cluster_name):
            return [ConfigProblem(_join(path, "cluster_name"), "only letters, digits, _ . -")]
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


def parse_section(tp: type[T], raw: Any, path: str = "") -> T:
    """Validate parsed YAML of a separate file (e.g. the alert rules) into dataclass ``tp``."""
    problems: list[ConfigProblem] = []
    section = _build(tp, raw, path, problems)
    if problems:
        raise ConfigError(problems)
    assert isinstance(section, tp)
    return section


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
