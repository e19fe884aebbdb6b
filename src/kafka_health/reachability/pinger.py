"""The job's pings of every broker: a part (start, stop) of the job's driver.

One :class:`BrokerPings` pings the monitored cluster's brokers, another (with a separate
transport) the transport's, each into its own roster.

Two threads: one lists the brokers from the cluster's metadata (``DescribeCluster`` through
kafka-python's admin client, each request bounded by the ping deadline) every
``metadata_interval_s``; the other, every ``interval_s``, pings each broker the board names
(:meth:`Roster.targets`: listed, or remembered while still a member) on a pool of threads, at
most one ping in flight per broker, and hands each outcome to the board as it comes. A broker
that hangs costs one pool thread for ``deadline_s``, never the others' pings.

When a broker of the monitored cluster that answered its last ping refuses its next one (its
port just closed), a task on the same pool asks the metadata from another broker why
(:mod:`~kafka_health.reachability.shutdown_evidence`: a controlled shutdown or a crash), each
look bounded by the ping deadline, and hands the verdict to the roster (its
``shutdown_evidence``, when it has one) and to ``on_evidence`` (the job publishes at once).
A third thread (:mod:`~kafka_health.reachability.watch`) holds an idle connection to each
answering broker: when the broker closes it, its port is checked at once, so that refusal
comes within milliseconds of the port closing, not up to a ping interval later.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from kafka_health.kafka_config import KafkaConfig
from kafka_health.reachability.config import ReachabilityConfig
from kafka_health.reachability.ping import (
    ANSWERED,
    Address,
    Ping,
    Reply,
    address,
    as_reply,
    probe,
)
from kafka_health.reachability.shutdown_evidence import (
    RECHECK_S,
    UNKNOWN,
    ClusterView,
    Evidence,
    Judgement,
    classify,
    settle,
    view_of,
)
from kafka_health.reachability.watch import ConnectionWatch

log = logging.getLogger(__name__)

Lister = Callable[[], dict[int, Address]]
LIST_ATTEMPTS = 4
"""DescribeCluster requests of one listing before it fails (each to another broker)."""
Pinger = Callable[[str, int], Reply | tuple[str, str]]
"""One ping of ``host, port``: a :class:`Reply` (what the handshake said of the certificate,
too), or just ``(outcome, detail)``."""
PORT_CHECK_S = 0.3
"""How long the port of a broker that closed the watch's connection is checked for a refusal."""
AVOID_BACKOFFS = 4
AVOID_BACKOFF_S = 0.4
"""About how long a refusing broker is kept out of the metadata look's requests."""
RETRY_PAUSE_S = 0.05
"""Between a metadata look's failed request and the next."""
Look = Callable[[], ClusterView]
"""One look at the metadata (brokers, fencing, partitions); raises when none answers."""


class PingSettings(Protocol):
    """The two sections the pings read (``MonitorConfig`` has them): the pings' own settings
    and the monitored cluster's connection."""

    @property
    def reachability(self) -> ReachabilityConfig: ...

    @property
    def kafka(self) -> KafkaConfig: ...


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
        config: PingSettings,
        roster: Roster,
        lister: Lister | None = None,
        pinger: Pinger | None = None,
        clock: Callable[[], float] = time.time,
        cluster: KafkaConfig | None = None,
        look: Look | None = None,
        on_evidence: Callable[[], None] | None = None,
        evidence: bool | None = None,
        watch: bool | None = None,
    ) -> None:
        """``evidence`` (default: for the monitored cluster, not a separate transport): ask
        the metadata why a broker's port refuses (``look``: an admin client of its own)."""
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
        seek = cluster is None if evidence is None else evidence
        self._look: Look | None = (
            (look or MetadataLook(kafka, settings.deadline_s)) if seek else None
        )
        self._on_evidence = on_evidence
        self._outcomes: dict[int, str] = {}  # broker -> its last ping's outcome
        self.watch: ConnectionWatch | None = None
        """An idle connection per answering broker (with ``evidence``): a closing is checked
        at once, not at the next round."""
        if watch if watch is not None else seek:
            self.watch = ConnectionWatch(roster.ping_targets, self._answering, self._closed)

    def start(self) -> None:
        if self._threads:
            return
        self._pool = ThreadPoolExecutor(self._settings.max_parallel, "kafka-health-ping")
        if self._look is not None:  # its client connected before the first refusal needs it
            self._pool.submit(self._warm_up)
        for name, target in (("list", self._list_loop), ("ping", self._ping_loop)):
            thread = threading.Thread(target=target, name=f"kafka-health-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)
        if self.watch is not None:
            self.watch.start()

    def stop(self) -> None:
        self._stop.set()
        if self.watch is not None:
            self.watch.stop()
        for thread in self._threads:
            thread.join(timeout=self._settings.deadline_s + 5)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        for part in (self._lister, self._look):
            close = getattr(part, "close", None)
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
            reply = as_reply(self._ping(host, port))
        except BaseException:
            with self._lock:
                self._in_flight.discard(broker_id)
            raise
        return self._record(broker_id, started, reply, in_flight=True)

    def _record(
        self, broker_id: int, started: float, reply: Reply, in_flight: bool = False
    ) -> Ping:
        """A ping's (or a port check's) outcome into the roster; the first refusal after an
        answer starts the search for evidence."""
        finished = self._clock()
        outcome = reply.outcome
        with self._lock:  # before the broker's next ping can start: its outcomes in order
            if in_flight:
                self._in_flight.discard(broker_id)
            before = self._outcomes.get(broker_id)
            self._outcomes[broker_id] = outcome
        result = Ping(broker_id, started, finished, outcome, reply.detail, reply.tls_failure,
                      reply.certificate)  # fmt: skip
        self._roster.answered([result])
        if outcome == "refused" and before == ANSWERED:
            self._seek_soon(broker_id, finished)
        return result

    # ------------------------------------------------------------------ closed connections

    def _answering(self, broker_id: int) -> bool:
        with self._lock:
            return self._outcomes.get(broker_id) == ANSWERED

    def _closed(self, broker_id: int, address: Address) -> None:
        """The broker closed the watch's idle connection: check its port now (a task of the
        pool), not at the next round."""
        if self._pool is None:
            return
        try:
            self._pool.submit(self.check_port, broker_id, address)
        except RuntimeError:  # the pool shut down: stopping
            return

    def check_port(self, broker_id: int, address: Address) -> str:
        """Whether the port of a broker that closed our connection refuses now: tried every
        20 ms for :data:`PORT_CHECK_S` (the socket server closes its connections and its
        listening socket in the same moment, not in that order); a refusal is recorded as a
        refused ping. Anything else is left to the pings."""
        ends = time.monotonic() + PORT_CHECK_S
        while True:
            started = self._clock()
            try:
                socket.create_connection(address, timeout=self._settings.deadline_s).close()
            except ConnectionRefusedError as exc:
                self._record(broker_id, started, Reply("refused", str(exc)))
                return "refused"
            except OSError:
                return "other"
            if time.monotonic() >= ends or self._stop.wait(0.02):
                return "listening"

    # ------------------------------------------------------------------ shutdown evidence

    def _seek_soon(self, broker_id: int, refused_at: float) -> None:
        """A broker's first refused ping after an answer: ask the metadata why, on a thread
        of the pool (the ping rounds go on)."""
        if self._look is None or self._pool is None:
            return
        try:
            self._pool.submit(self.seek_evidence, broker_id, refused_at)
        except RuntimeError:  # the pool shut down: stopping
            return

    def _warm_up(self) -> None:
        assert self._look is not None
        try:
            self._look()
        except Exception as exc:
            log.info("the metadata look failed at the start (tried again on a refusal): %s", exc)

    def previous_view(self) -> ClusterView | None:
        """The last listing's view (fencing included), taken while the brokers answered."""
        view = getattr(self._lister, "view", None)
        return view if isinstance(view, ClusterView) else None

    def seek_evidence(self, broker_id: int, refused_at: float) -> Evidence:
        """Look at the metadata (twice, :data:`RECHECK_S` apart, unless the first look shows
        a controlled shutdown); report and return the settled verdict."""
        assert self._look is not None
        previous = self.previous_view()
        if previous is not None and previous.at > refused_at:
            previous = None  # listed after the refusal: not the broker's state before it
        started = time.monotonic()
        first = self._judge(broker_id, previous)
        second, looks = None, 1
        if first.verdict != "controlled_shutdown":
            if self._stop.wait(max(0.0, RECHECK_S - (time.monotonic() - started))):
                second = None
            else:
                second, looks = self._judge(broker_id, previous), 2
        judged = settle(first, second)
        earlier = f"{first.verdict}: {first.reason}" if looks > 1 else ""
        evidence = Evidence(broker_id, judged.verdict, judged.reason, refused_at, self._clock(),
                            looks, earlier)  # fmt: skip
        log.info("broker %d refuses connections: %s (%s; %d look(s), %.3f s after the refusal%s)",
                 broker_id, judged.verdict, judged.reason, looks,
                 evidence.decided_at - refused_at,
                 f"; the first look: {earlier}" if earlier else "")  # fmt: skip
        report = getattr(self._roster, "shutdown_evidence", None)
        if report is not None:
            report(evidence)
        if self._on_evidence is not None:
            self._on_evidence()
        return evidence

    def _judge(self, broker_id: int, previous: ClusterView | None) -> Judgement:
        assert self._look is not None
        avoid = getattr(self._look, "avoid", None)
        if avoid is not None:
            avoid(broker_id)
        try:
            view = self._look()
        except Exception as exc:
            return Judgement(UNKNOWN, f"the metadata did not answer: {type(exc).__name__}: {exc}")
        return classify(broker_id, previous, view)


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
        self.view: ClusterView | None = None
        """The last listing's brokers and fencing (``shutdown_evidence``'s previous view)."""

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
        self.view = view_of(time.time(), described)
        return {
            int(b["broker_id"]): (str(b["host"]), int(b["port"]))
            for b in described["brokers"]
            if b.get("host") and b.get("port") is not None
        }

    def bootstrap_servers(self) -> list[str]:
        """The configured servers that answer a ping (all of them if none does)."""
        servers = list(self._kafka.bootstrap_servers)
        answering = [s for s in servers if as_reply(self._ping(*address(s))).outcome == ANSWERED]
        return answering or servers

    def _client(self) -> Any:
        from kafka import KafkaAdminClient

        from kafka_health.kafka_clients import admin_options

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


class MetadataLook:
    """One look at the metadata (:data:`Look`): ``DescribeCluster`` with the fenced brokers
    and a ``Metadata`` request for every topic's partitions, on an admin client of its own
    (the listing's may be busy), tried again (on another broker: kafka-python backs a refusing
    one off) until ``deadline_s`` has passed."""

    def __init__(self, kafka: KafkaConfig, deadline_s: float, pinger: Pinger | None = None) -> None:
        self._clients = AdminLister(kafka, deadline_s, pinger)
        self._deadline_s = deadline_s
        self._admin: Any = None

    def __call__(self) -> ClusterView:
        deadline = time.monotonic() + self._deadline_s
        while True:
            try:
                if self._admin is None:
                    self._admin = self._clients._client()
                described = self._admin.describe_cluster()
                topics = self._admin.describe_topics()
                return view_of(time.time(), described, topics)
            except Exception:
                if time.monotonic() + RETRY_PAUSE_S >= deadline:
                    self.close()
                    raise
                time.sleep(RETRY_PAUSE_S)

    def avoid(self, broker_id: int) -> None:
        """Ask nothing of ``broker_id`` (its port refuses): kafka-python prefers a node it is
        connected to, and a stopping broker's open connection can still be served, from its
        own metadata, for a few milliseconds after its port closed. Its connection is closed
        and the node backed off (about :data:`AVOID_BACKOFF_S`), on the client's event loop."""
        manager = getattr(self._admin, "_manager", None)
        if manager is None:
            return

        async def shun() -> None:
            manager.close(node_id=broker_id)
            for _ in range(AVOID_BACKOFFS):  # exponential: 50, 100, 200, 400 ms
                manager.update_backoff(broker_id)

        try:
            manager.run(shun)
        except Exception:
            log.debug("could not steer the metadata look off broker %d", broker_id, exc_info=True)

    def close(self) -> None:
        admin, self._admin = self._admin, None
        if admin is not None:
            try:
                admin.close()
            except Exception:
                log.debug("closing the metadata look's admin client failed", exc_info=True)


def broker_pinger(kafka: KafkaConfig, deadline_s: float) -> Pinger:
    """Pings of ``kafka``'s brokers (over TLS when its listeners have it: the reply has the
    broker's certificate, or why the handshake failed), each bounded by ``deadline_s``."""
    context = _tls_context(kafka)

    def pinger(host: str, port: int) -> Reply:
        return probe(host, port, deadline_s, context)

    return pinger


def _tls_context(kafka: KafkaConfig) -> Any:
    from kafka_health.kafka_access import client_tls_context

    if kafka.client.security_protocol in ("SSL", "SASL_SSL"):
        return client_tls_context(kafka.client)
    return None
