"""The one place that turns the config's Kafka client settings into client options.

Every Kafka client the project creates gets its connection and security settings from here:
kafka-python producers, consumers and admin clients through :func:`python_client_options`,
Spark's Kafka source and sink through :func:`spark_kafka_options`. Both come from the same
:class:`~kafka_health.config.KafkaConfig`, so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from kafka_health.config import KafkaClientConfig, KafkaConfig

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
