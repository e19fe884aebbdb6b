"""Where the Kafka clusters are and how clients connect: the ``kafka``, ``transport`` and
``topics`` sections."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal

from kafka_health.configuration.secrets import Secret
from kafka_health.errors import ConfigProblem

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
