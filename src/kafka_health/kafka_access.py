"""A start-up check of a Kafka listener's credentials: a wrong password or a certificate the
client does not trust is a clear error naming the listener, within seconds, not a client
that retries forever.

A cluster that does not answer at all is not an error here: the monitor must start (and
page) while the cluster it watches is down.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterable

from kafka_health.kafka_config import KafkaClientConfig, KafkaConfig

log = logging.getLogger(__name__)

CHECK_TIMEOUT_S = 10.0


class KafkaAccessError(Exception):
    """The listener refused the client's credentials or its TLS handshake failed."""


def describe(kafka: KafkaConfig) -> str:
    """``the SASL_PLAINTEXT listener 127.0.0.1:9093 as kafka-health (SCRAM-SHA-512)``."""
    client = kafka.client
    who = f" as {client.sasl_username} ({client.sasl_mechanism})" if client.sasl_mechanism else ""
    return f"the {client.security_protocol} listener {','.join(kafka.bootstrap_servers)}{who}"


def check_access(kafka: KafkaConfig, role: str, timeout_s: float = CHECK_TIMEOUT_S) -> None:
    """Check ``role``'s access to a secured listener: a TLS handshake (SSL, SASL_SSL) and a
    SASL login (SASL_*) of their own, since the Kafka clients only log a refusal and retry.
    Raise :class:`KafkaAccessError` when refused; log and return when nothing answers."""
    if kafka.client.security_protocol == "PLAINTEXT" or not kafka.bootstrap_servers:
        return
    if kafka.client.security_protocol in ("SSL", "SASL_SSL"):
        _check_tls(kafka, role, timeout_s)
    if kafka.client.security_protocol.startswith("SASL"):
        _check_sasl(kafka, role, timeout_s)


def client_tls_context(client: KafkaClientConfig) -> ssl.SSLContext:
    """The TLS context the Kafka clients use: the configured CA, hostname check and client
    certificate."""
    context = ssl.create_default_context(cafile=client.ssl_cafile)
    context.check_hostname = client.ssl_check_hostname
    if client.ssl_certfile and client.ssl_keyfile:
        password = client.ssl_key_password.resolve() if client.ssl_key_password else None
        context.load_cert_chain(client.ssl_certfile, client.ssl_keyfile, password)
    return context


def _check_tls(kafka: KafkaConfig, role: str, timeout_s: float) -> None:
    """A TLS handshake with the first bootstrap server, as the clients would do it: a
    certificate the client does not trust fails here with its reason (the Kafka clients only
    log it and retry)."""
    import socket

    host, _, port = kafka.bootstrap_servers[0].rpartition(":")
    host = host.strip("[]")
    context = client_tls_context(kafka.client)
    try:
        with (
            socket.create_connection((host, int(port)), timeout=timeout_s) as raw,
            context.wrap_socket(raw, server_hostname=host),
        ):
            pass
    except ssl.SSLError as exc:
        raise KafkaAccessError(
            f"{role}: the TLS handshake with {describe(kafka)} failed: {exc}"
        ) from exc
    except OSError as exc:  # not answering: the monitor starts anyway
        log.warning("%s: %s could not be reached (%s)", role, describe(kafka), exc)


def _check_sasl(kafka: KafkaConfig, role: str, timeout_s: float) -> None:
    """A SASL login with the first bootstrap server (:mod:`kafka_health.sasl_probe`): the
    broker's refusal is a :class:`KafkaAccessError`; not answering only a warning."""
    from kafka_health.sasl_probe import sasl_login

    client = kafka.client
    assert client.sasl_mechanism is not None and client.sasl_password is not None
    host, _, port = kafka.bootstrap_servers[0].rpartition(":")
    host = host.strip("[]")
    context = client_tls_context(client) if client.security_protocol == "SASL_SSL" else None
    try:
        verdict = sasl_login(
            host, int(port), client.sasl_mechanism, client.sasl_username or "",
            client.sasl_password.resolve(), context, timeout_s,
        )  # fmt: skip
    except OSError as exc:
        log.warning("%s: %s could not be reached (%s); starting anyway", role, describe(kafka),
                    exc)  # fmt: skip
        return
    if verdict.refused:
        raise KafkaAccessError(
            f"{role}: {describe(kafka)} refused the credentials: {verdict.message}"
        )
    if not verdict.ok:
        log.warning("%s: SASL login with %s: %s; starting anyway", role, describe(kafka),
                    verdict.message)  # fmt: skip


def refused_access(clusters: Iterable[KafkaConfig], role: str) -> str | None:
    """Why one of ``clusters`` (the monitored one and the transport:
    ``MonitorConfig.clusters()``) refuses ``role``'s credentials or TLS handshake (a clear
    error at start, naming the listener), or None."""
    try:
        for kafka in clusters:
            check_access(kafka, role)
    except KafkaAccessError as exc:
        return str(exc)
    return None
