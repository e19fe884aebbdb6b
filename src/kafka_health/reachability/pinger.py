"""The job's pings of every broker: a part (start, stop) of the job's driver.

One :class:`BrokerPings` pings the monitored cluster's brokers, another (with a separate
transport) the transport's, each into its own roster.

Two threads: one lists the brokers from the cluster's metadata (``DescribeCluster`` through
kafka-python's admin client, each request bounded by the ping deadline) every
``metadata_interval_s``; the other, every ``interval_s``, pings each broker the board names
(:meth:`Roster.targets`: listed, or remembered while still a member) on a pool of threads, at
most one ping in flight per broker, and hands each outcome to the board as it comes. A broker
that hangs costs one pool thread for ``deadline_s``, never the others' pings.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from kafka_health.config import MonitorConfig
from kafka_health.kafka_config import KafkaConfig
from kafka_health.reachability.ping import ANSWERED, Address, Ping, address, ping

log = logging.getLogger(__name__)

Lister = Callable[[], dict[int, Address]]
LIST_ATTEMPTS = 4
"""DescribeCluster requests of one listing before it fails (each to another broker)."""
Pinger = Callable[[str, int], tuple[str, str]]


class Roster(Protocol):
    """Where the brokers come from and the outcomes go (the job's ``SignalBoard``)."""

    def listed(self, brokers: dict[int, Address], now: float) -> None: ...

    def answered(self, pings: list[Ping]) -> None: ...

    def ping_targets(self) -> dict[int, Address]: ...


class BrokerPings:
    """Pings every broker of ``roster`` until stopped (see the module docstring): the
    brokers of ``cluster`` (the monitored one by default), listed from its metadata."""

    def __init__(
        self,
        config: MonitorConfig,
        roster: Roster,
        lister: Lister | None = None,
        pinger: Pinger | None = None,
        clock: Callable[[], float] = time.time,
        cluster: KafkaConfig | None = None,
    ) -> None:
        settings = config.reachability
        kafka = cluster or config.kafka
        self._settings = settings
        self._roster = roster
        self._clock = clock
        self._ping = pinger or broker_pinger(kafka, settings.deadline_s)
        self._lister = lister or AdminLister(kafka, settings.deadline_s, self._ping)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._pool: ThreadPoolExecutor | None = None
        self._in_flight: set[int] = set()
        self._lock = threading.Lock()
        self._listing_error: str | None = None

    def start(self) -> None:
        if self._threads:
            return
        self._pool = ThreadPoolExecutor(self._settings.max_parallel, "kafka-health-ping")
        for name, target in (("list", self._list_loop), ("ping", self._ping_loop)):
            thread = threading.Thread(target=target, name=f"kafka-health-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=self._settings.deadline_s + 5)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        close = getattr(self._lister, "close", None)
        if close is not None:
            close()

    # ------------------------------------------------------------------ listing

    def _list_loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            self.list_once()
            left = self._settings.metadata_interval_s - (time.monotonic() - started)
            if self._stop.wait(max(left, 0.1)):
                return

    def list_once(self) -> None:
        """One listing of the brokers into the roster; a failure is logged once per error."""
        try:
            brokers = self._lister()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            if error != self._listing_error:
                log.warning("cannot list the brokers from the metadata: %s", error)
            self._listing_error = error
            return
        if self._listing_error is not None:
            log.info("brokers listed again from the metadata: %s", sorted(brokers))
            self._listing_error = None
        self._roster.listed(brokers, self._clock())

    # ------------------------------------------------------------------ pings

    def _ping_loop(self) -> None:
        interval = self._settings.interval_s
        next_round = time.monotonic()
        while not self._stop.is_set():
            self.ping_round()
            next_round += interval
            now = time.monotonic()
            if next_round < now:  # a round ran late: start again from now, not in a burst
                next_round = now
            if self._stop.wait(next_round - now):
                return

    def ping_round(self) -> list[Future[Ping]]:
        """Ping every target not still in flight; the futures of the pings sent."""
        assert self._pool is not None, "start() first"
        sent: list[Future[Ping]] = []
        for broker_id, (host, port) in self._roster.ping_targets().items():
            with self._lock:
                if broker_id in self._in_flight:
                    continue
                self._in_flight.add(broker_id)
            try:
                future = self._pool.submit(self._one, broker_id, host, port)
            except RuntimeError:  # the pool shut down: stopping
                return sent
            sent.append(future)
        return sent

    def _one(self, broker_id: int, host: str, port: int) -> Ping:
        started = self._clock()
        try:
            outcome, detail = self._ping(host, port)
        finally:
            with self._lock:
                self._in_flight.discard(broker_id)
        result = Ping(broker_id, started, self._clock(), outcome, detail)
        self._roster.answered([result])
        return result


class AdminLister:
    """The brokers (fenced ones too) of ``kafka`` and their addresses from
    ``DescribeCluster``, each request bounded by ``deadline_s``.

    With brokers down, kafka-python picks one at random, for its bootstrap and for each
    request: a new client bootstraps from the servers that answer a ping, and a request a
    dead broker refused is asked again (that broker is then backed off, so another is
    asked). Seen, with 2 of 3 brokers down: 5 of 6 new clients failed their first listing,
    with the retries alone 1 of 18 its bootstrap, and the job's listing for minutes."""

    def __init__(self, kafka: KafkaConfig, deadline_s: float, pinger: Pinger | None = None) -> None:
        self._kafka = kafka
        self._deadline_s = deadline_s
        self._ping = pinger or broker_pinger(kafka, deadline_s)
        self._admin: Any = None

    def __call__(self) -> dict[int, Address]:
        if self._admin is None:
            self._admin = self._client()
        for attempt in range(LIST_ATTEMPTS):
            try:
                described = self._admin.describe_cluster()
                break
            except Exception:
                if attempt == LIST_ATTEMPTS - 1:
                    self.close()  # a new client next time: this one may hold a dead connection
                    raise
        return {
            int(b["broker_id"]): (str(b["host"]), int(b["port"]))
            for b in described["brokers"]
            if b.get("host") and b.get("port") is not None
        }

    def bootstrap_servers(self) -> list[str]:
        """The configured servers that answer a ping (all of them if none does)."""
        servers = list(self._kafka.bootstrap_servers)
        answering = [s for s in servers if self._ping(*address(s))[0] == ANSWERED]
        return answering or servers

    def _client(self) -> Any:
        from kafka import KafkaAdminClient

        from kafka_health.canary.service import admin_options

        kafka = dataclasses.replace(self._kafka, bootstrap_servers=self.bootstrap_servers())
        return KafkaAdminClient(
            **admin_options(kafka, "kafka-health-reachability", self._deadline_s)
        )

    def close(self) -> None:
        admin, self._admin = self._admin, None
        if admin is not None:
            try:
                admin.close()
            except Exception:  # closing a client of a dead cluster
                log.debug("closing the reachability admin client failed", exc_info=True)


def broker_pinger(kafka: KafkaConfig, deadline_s: float) -> Pinger:
    """Pings of ``kafka``'s brokers (over TLS when its listeners have it), each bounded by
    ``deadline_s``."""
    context = _tls_context(kafka)

    def pinger(host: str, port: int) -> tuple[str, str]:
        return ping(host, port, deadline_s, context)

    return pinger


def _tls_context(kafka: KafkaConfig) -> Any:
    from kafka_health.kafka_access import client_tls_context

    if kafka.client.security_protocol in ("SSL", "SASL_SSL"):
        return client_tls_context(kafka.client)
    return None
