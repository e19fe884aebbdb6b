"""A start-up check of a Kafka listener's credentials: a wrong password or a certificate the
client does not trust is a clear error naming the listener, within seconds, not a client
that retries forever.

A cluster that does not answer at all is not an error here: the monitor must start (and
page) while the cluster it watches is down.
"""

from __future__ import annotations

import logging
import ssl
import threading

from kafka_health.config import KafkaConfig, MonitorConfig
from kafka_health.kafka_clients import python_client_options

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
    """Connect once as ``role`` would; raise :class:`KafkaAccessError` when the credentials
    or the TLS handshake are refused; log and return when nothing answers in time."""
    if kafka.client.security_protocol == "PLAINTEXT" or not kafka.bootstrap_servers:
        return
    if kafka.client.security_protocol in ("SSL", "SASL_SSL"):
        _check_tls(kafka, role, timeout_s)
    if kafka.client.security_protocol.startswith("SASL"):
        _check_sasl(kafka, role, timeout_s)
        return
    failure: list[BaseException] = []

    def attempt() -> None:
        from kafka import KafkaAdminClient

        options = python_client_options(kafka)
        options["request_timeout_ms"] = int(timeout_s * 1000)
        options["api_version_auto_timeout_ms"] = int(timeout_s * 1000)
        try:
            admin = KafkaAdminClient(**options)
            try:
                admin.list_topics()
            finally:
                admin.close()
        except BaseException as exc:  # the verdict is the caller's
            failure.append(exc)

    thread = threading.Thread(target=attempt, name="kafka-access-check", daemon=True)
    thread.start()
    thread.join(timeout_s + 2)
    if thread.is_alive():
        log.warning("%s: %s did not answer within %.0f s; starting anyway", role,
                    describe(kafka), timeout_s)  # fmt: skip
        return
    if not failure:
        return
    exc = failure[0]
    if _refused(exc):
        raise KafkaAccessError(f"{role}: {describe(kafka)} refused the credentials: {exc}") from exc
    if _tls(exc):
        raise KafkaAccessError(
            f"{role}: the TLS handshake with {describe(kafka)} failed: {exc}"
        ) from exc
    log.warning("%s: %s could not be reached (%s); starting anyway", role, describe(kafka), exc)


def _check_tls(kafka: KafkaConfig, role: str, timeout_s: float) -> None:
    """A TLS handshake with the first bootstrap server, as the clients would do it: a
    certificate the client does not trust fails here with its reason (the Kafka clients only
    log it and retry)."""
    import socket

    client = kafka.client
    host, _, port = kafka.bootstrap_servers[0].rpartition(":")
    host = host.strip("[]")
    context = ssl.create_default_context(cafile=client.ssl_cafile)
    context.check_hostname = client.ssl_check_hostname
    if client.ssl_certfile and client.ssl_keyfile:
        password = client.ssl_key_password.resolve() if client.ssl_key_password else None
        context.load_cert_chain(client.ssl_certfile, client.ssl_keyfile, password)
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
    context = None
    if client.security_protocol == "SASL_SSL":
        context = ssl.create_default_context(cafile=client.ssl_cafile)
        context.check_hostname = client.ssl_check_hostname
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


def _chain(exc: BaseException) -> list[BaseException]:
    found, seen = [], set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _refused(exc: BaseException) -> bool:
    from kafka import errors

    return any(
        isinstance(e, errors.SaslAuthenticationFailedError | errors.IllegalSaslStateError)
        or "Authentication failed" in str(e)
        for e in _chain(exc)
    )


def _tls(exc: BaseException) -> bool:
    return any(isinstance(e, ssl.SSLError) or "CERTIFICATE_VERIFY_FAILED" in str(e)
               for e in _chain(exc))  # fmt: skip


def refused_access(config: MonitorConfig, role: str) -> str | None:
    """Why the monitored cluster or the transport refuses ``role``'s credentials or TLS
    handshake (a clear error at start, naming the listener), or None."""
    clusters = [config.kafka]
    if config.separate_transport:
        clusters.append(config.transport_kafka())
    try:
        for kafka in clusters:
            check_access(kafka, role)
    except KafkaAccessError as exc:
        return str(exc)
    return None
