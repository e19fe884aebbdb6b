"""The one place that turns the config's Kafka client settings into client options.

Every Kafka client the project creates gets its connection and security settings from here:
kafka-python producers, consumers and admin clients through :func:`python_client_options`,
Spark's Kafka source and sink through :func:`spark_kafka_options`. Both come from the same
:class:`~kafka_health.kafka_config.KafkaConfig`, so they cannot drift apart. The options of
each kind of client the monitor makes (results and snapshot producers, admin clients) and
:class:`Lazy`, a client made on first use and again after a failure, live here too: the
canary, the cluster-state prober and the reachability pinger share them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from kafka_health.clock import Clock
from kafka_health.kafka_config import KafkaClientConfig, KafkaConfig

log = logging.getLogger(__name__)

T = TypeVar("T")

_JAAS_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}


def python_client_options(kafka: KafkaConfig) -> dict[str, Any]:
    """Keyword arguments for kafka-python's KafkaProducer, KafkaConsumer and KafkaAdminClient."""
    client = kafka.client
    options: dict[str, Any] = {
        "bootstrap_servers": list(kafka.bootstrap_servers),
        "security_protocol": client.security_protocol,
        "request_timeout_ms": int(client.request_timeout_s * 1000),
    }
    if client.sasl_mechanism is not None:
        assert client.sasl_password is not None
        options.update(
            sasl_mechanism=client.sasl_mechanism,
            sasl_plain_username=client.sasl_username,
            sasl_plain_password=client.sasl_password.resolve(),
        )
    if _uses_ssl(client):
        options["ssl_check_hostname"] = client.ssl_check_hostname
        if client.ssl_cafile:
            options["ssl_cafile"] = client.ssl_cafile
        if client.ssl_certfile:
            options["ssl_certfile"] = client.ssl_certfile
            options["ssl_keyfile"] = client.ssl_keyfile
        if client.ssl_key_password is not None:
            options["ssl_password"] = client.ssl_key_password.resolve()
    return options


def spark_kafka_options(kafka: KafkaConfig) -> dict[str, str]:
    """``kafka.*`` options for Spark's Kafka source and sink (the Java client's property names).

    PEM files are passed as the Java client's PEM truststore/keystore types, so one set of files
    serves both clients.
    """
    client = kafka.client
    options = {
        "kafka.bootstrap.servers": ",".join(kafka.bootstrap_servers),
        "kafka.security.protocol": client.security_protocol,
        "kafka.request.timeout.ms": str(int(client.request_timeout_s * 1000)),
        # Spark's offset lookups block for this long per retry when the cluster is down; the
        # same bound as requests makes an outage visible (ClusterUnreachable) within minutes.
        "kafka.default.api.timeout.ms": str(int(client.request_timeout_s * 1000)),
    }
    if client.sasl_mechanism is not None:
        assert client.sasl_password is not None and client.sasl_username is not None
        module = _JAAS_MODULES[client.sasl_mechanism]
        options["kafka.sasl.mechanism"] = client.sasl_mechanism
        options["kafka.sasl.jaas.config"] = (
            f'{module} required username="{_jaas_escape(client.sasl_username)}" '
            f'password="{_jaas_escape(client.sasl_password.resolve())}";'
        )
    if _uses_ssl(client):
        options["kafka.ssl.endpoint.identification.algorithm"] = (
            "https" if client.ssl_check_hostname else ""
        )
        if client.ssl_cafile:
            options["kafka.ssl.truststore.type"] = "PEM"
            options["kafka.ssl.truststore.location"] = client.ssl_cafile
        if client.ssl_certfile and client.ssl_keyfile:
            options["kafka.ssl.keystore.type"] = "PEM"
            options["kafka.ssl.keystore.certificate.chain"] = _read(client.ssl_certfile)
            options["kafka.ssl.keystore.key"] = _read(client.ssl_keyfile)
        if client.ssl_key_password is not None:
            options["kafka.ssl.key.password"] = client.ssl_key_password.resolve()
    return options


def _uses_ssl(client: KafkaClientConfig) -> bool:
    return client.security_protocol in ("SSL", "SASL_SSL")


def _jaas_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class Lazy(Generic[T]):
    """A client made on first use; after a failed attempt, tried again ``retry_s`` later."""

    def __init__(self, name: str, make: Callable[[], T], clock: Clock, retry_s: float) -> None:
        self.name = name
        self._make = make
        self._clock = clock
        self._retry_s = retry_s
        self._value: T | None = None
        self._next_try = float("-inf")
        self._lock = threading.Lock()

    def __call__(self) -> T | None:
        with self._lock:
            if self._value is None and self._clock.monotonic() >= self._next_try:
                try:
                    self._value = self._make()
                except Exception as exc:
                    self._next_try = self._clock.monotonic() + self._retry_s
                    log.warning("cannot create the %s client yet: %s", self.name, exc)
            return self._value

    def close(self, timeout_s: float) -> None:
        with self._lock:
            value, self._value = self._value, None
        if value is not None:
            try:
                value.close(timeout_s)  # type: ignore[attr-defined]
            except Exception:
                log.debug("closing the %s client failed", self.name, exc_info=True)


def new_producer(options: dict[str, Any]) -> Any:
    """A kafka-python producer that never auto-creates topics.

    kafka-python 3.0.12 does not pass ``allow_auto_create_topics`` on to its
    ``ClusterMetadata`` (``KafkaConnectionManager`` builds it with three settings only), so
    its metadata requests let brokers with ``auto.create.topics.enable`` create a missing
    canary topic with one partition. The setting is applied to the metadata object here.
    """
    from kafka import KafkaProducer

    producer = KafkaProducer(**options)
    producer._metadata.config["allow_auto_create_topics"] = False
    return producer


def _client_options(kafka: KafkaConfig, client_id: str, timeout_s: float | None) -> dict[str, Any]:
    """The cluster's client options, ``client_id``, and ``timeout_s`` as the request timeout
    (default: the client's)."""
    options = {**python_client_options(kafka), "client_id": client_id}
    if timeout_s is not None:
        options["request_timeout_ms"] = int(timeout_s * 1000)
    return options


def results_producer_options(
    kafka: KafkaConfig, client_id: str, timeout_s: float | None = None
) -> dict[str, Any]:
    """The results producer: acks=all, one request in flight (in order); failed batches are
    sent again from the on-disk buffer (at least once), so no idempotence is needed.
    ``timeout_s`` bounds each request (default: the client's request timeout)."""
    options = _client_options(kafka, client_id, timeout_s)
    return {
        **options,
        "acks": "all",
        "enable_idempotence": False,
        "max_in_flight_requests_per_connection": 1,
        "linger_ms": 5,
        "delivery_timeout_ms": options["request_timeout_ms"] + 1000,
        # Room for a second metadata request when the first went to a hung broker.
        "max_block_ms": max(5000, 2 * options["request_timeout_ms"] - 1000),
        # kafka-python bootstraps from one random server until this deadline: a hung one
        # would hold the whole attempt, so attempts are short and repeated (RESULTS_RETRY_S).
        "bootstrap_timeout_ms": options["request_timeout_ms"],
        "allow_auto_create_topics": False,
    }


def state_producer_options(
    kafka: KafkaConfig, client_id: str, timeout_s: float | None = None
) -> dict[str, Any]:
    """The snapshot producer: acks=1 so snapshots still go out while topics are under min
    ISR (the moment they matter most); gzip, as 50,000 JSON records compress well.
    ``timeout_s`` bounds each request (default: the client's request timeout)."""
    options = _client_options(kafka, client_id, timeout_s)
    return {
        **options,
        "acks": 1,
        "enable_idempotence": False,
        "linger_ms": 20,
        "batch_size": 256 * 1024,
        "compression_type": "gzip",
        "delivery_timeout_ms": options["request_timeout_ms"] + 1000,
        "max_block_ms": 5000,
        "bootstrap_timeout_ms": 10_000,
        "allow_auto_create_topics": False,
    }


def admin_options(
    kafka: KafkaConfig, client_id: str, request_timeout_s: float | None = None
) -> dict[str, Any]:
    """An admin client; ``request_timeout_s`` bounds each request (default: the client's)."""
    options = {
        **python_client_options(kafka),
        "client_id": client_id,
        "bootstrap_timeout_ms": 10_000,
    }
    if request_timeout_s is not None:
        timeout_ms = int(request_timeout_s * 1000)
        options["request_timeout_ms"] = timeout_ms
        options["bootstrap_timeout_ms"] = max(timeout_ms, 1000)
    return options
