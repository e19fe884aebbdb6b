"""One round of consumer-group evidence from the admin API (kafka-python 3.0.12).

A round, every request bounded by ``request_timeout_s`` and sent in parallel within a step.
Only the exchanges run on the admin client's own I/O thread (its connections, with the
cluster's TLS and SASL; :mod:`.exchange`): each step's requests are made, and its answers read,
on the caller's thread (the poller's), so the round's CPU never holds the client's event loop.

1. Metadata (no topics): the brokers.
2. ListGroups on every broker (v5 on 4.x: each group's type ``classic``/``consumer``/``share``/
   ``streams`` and state; v4: state). The broker that lists a group is its coordinator, so
   no FindCoordinator is needed. A broker whose listing fails: the groups it listed last
   round are kept, as observations with ``error`` (unseen, not gone).
3. Watched (``ConsumerGroupsConfig.watched``) and at most ``max_groups`` of them (by id; the
   rest counted in ``over_cap``), then, per coordinator and in chunks of ``BATCH_GROUPS``:
   DescribeGroups for classic groups (no generation in its answer: ``generation`` None);
   ConsumerGroupDescribe (API key 69, :mod:`.kip848`) for consumer-protocol groups, which
   DescribeGroups does not describe on 4.1 (it answers ``Dead``/``GROUP_ID_NOT_FOUND``);
   ``generation`` is the group epoch. Share and streams groups keep the listing's state (their
   describe APIs are not spoken: ``members`` 0). OffsetFetch v8 (KIP-709, Kafka 3.0+) asks for
   many groups in one request; before v8, one request a group (:mod:`.answers`).
4. The partitions' leaders, then ListOffsets earliest and latest per leader, the leaders and
   the requests kept between rounds (:mod:`.log_offsets`).
5. The observations (:mod:`.build`), with each partition's time lag when the poller hands its
   lag table in (:meth:`AdminGroupsSource.poll_lagged`: the log ends are the round's last
   reads, sampled then).

A group whose describe or offsets fail is an observation with ``error``; a partition whose
leader did not answer has no ``log_start``/``log_end``. Only a round where no broker could be
listed fails as a whole (:meth:`AdminGroupsSource.poll` raises).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from kafka_health.clock import SYSTEM_CLOCK, Clock
from kafka_health.consumer_groups.answers import (
    TP,
    Described,
    Listed,
    describe_requests,
    read_described,
    read_listings,
    why,
)
from kafka_health.consumer_groups.build import observation
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.exchange import ask, exchange
from kafka_health.consumer_groups.lag import Lags
from kafka_health.consumer_groups.log_offsets import Kept, Leaders, OffsetsReader
from kafka_health.consumer_groups.observation import GroupsRound
from kafka_health.kafka_clients import Lazy, admin_options
from kafka_health.kafka_config import KafkaConfig

log = logging.getLogger(__name__)

__all__ = ["AdminGroupsSource", "GroupsSource", "why"]


class GroupsSource(Protocol):
    """Where a round comes from (the admin API, or a fake in tests)."""

    def poll(self, at_ms: int) -> GroupsRound:
        """One round of every watched group (``lag_s`` not yet set); raises when the cluster
        could not be asked at all."""
        ...

    def close(self) -> None: ...


class AdminGroupsSource:
    """:class:`GroupsSource` over a kafka-python admin client of its own (made on first use,
    made again after a round failed)."""

    def __init__(
        self,
        kafka: KafkaConfig,
        settings: ConsumerGroupsConfig,
        client_id: str = "kafka-health-consumer-groups",
        clock: Clock = SYSTEM_CLOCK,
        make_admin: Callable[[], Any] | None = None,
    ) -> None:
        """``make_admin``: the admin client's factory (default: kafka-python's, on ``kafka``
        with each request bounded by ``settings.request_timeout_s``)."""
        self.settings = settings
        self._last_listed: dict[str, Listed] = {}
        self.leaders = Leaders()
        self._requests: dict[Kept, Any] = {}

        def make() -> Any:
            from kafka import KafkaAdminClient

            return KafkaAdminClient(**admin_options(kafka, client_id, settings.request_timeout_s))

        self._admin: Lazy[Any] = Lazy(
            "consumer-groups admin", make_admin or make, clock, settings.interval_s
        )

    def poll(self, at_ms: int) -> GroupsRound:
        return self.poll_lagged(at_ms, None)

    def poll_lagged(self, at_ms: int, lags: Lags | None) -> GroupsRound:
        """:meth:`poll`, each partition's ``lag_s`` set from ``lags`` (handed the round's log
        end offsets once read)."""
        admin = self._admin()
        if admin is None:
            raise ConnectionError("no admin client for the consumer groups yet")
        try:
            asked = _Round(admin, self.settings, self.leaders, self._requests)
            round_ = asked.run(at_ms, self, lags)
            self._requests = asked.offsets.requests_used
            return round_
        except Exception:
            self._admin.close(1.0)
            self.leaders = Leaders()  # a new client: learn them again
            self._requests = {}
            raise

    def close(self) -> None:
        self._admin.close(5.0)


class _Round:
    """One round: its steps' requests exchanged on the admin client's I/O thread, everything
    else on the caller's."""

    def __init__(
        self,
        admin: Any,
        settings: ConsumerGroupsConfig,
        leaders: Leaders,
        requests: dict[Kept, Any],
    ) -> None:
        """``requests``: the last round's ListOffsets requests by leader, spec and
        partitions (sent again as they are)."""
        self.admin = admin
        self.settings = settings
        manager = admin._manager
        self._run, self._send = manager.run, manager.send
        self.offsets = OffsetsReader(leaders, requests, self.exchange, self.metadata)

    def exchange(self, requests: list[tuple[int, Any]]) -> list[Any]:
        """Each ``(node, request)``'s answer, or its exception, in order."""
        if not requests:
            return []
        answers: list[Any] = self._run(exchange, self._send, requests)
        return answers

    def metadata(self, topics: list[str]) -> Any:
        """A Metadata answer for ``topics`` (``[]``: the brokers only), its objects read as
        they are (kafka-python's ``_get_cluster_metadata`` makes a dict of every field of it,
        three times the decode's cost at 100,000 partitions)."""
        from kafka.protocol.metadata import MetadataRequest

        topic = MetadataRequest.MetadataRequestTopic
        request = MetadataRequest(
            topics=[topic(name=t) for t in topics],
            allow_auto_topic_creation=False,
            include_cluster_authorized_operations=False,
            include_topic_authorized_operations=False,
        )
        return self._run(ask, self._send, request)

    def run(self, at_ms: int, source: AdminGroupsSource, lags: Lags | None) -> GroupsRound:
        meta = self.metadata([])
        brokers = sorted(int(b.node_id) for b in meta.brokers)
        listed, unlisted = self.list_groups(brokers)
        if not listed and len(unlisted) == len(brokers):
            raise ConnectionError(f"no broker listed its groups: {next(iter(unlisted.values()))}")
        for group, old in source._last_listed.items():  # its coordinator did not answer
            if old.coordinator in unlisted and group not in listed:
                listed[group] = old
        source._last_listed = dict(listed)  # kept while their coordinator does not answer
        watched = sorted(g for g in listed if self.settings.watched(g))
        over_cap = max(0, len(watched) - self.settings.max_groups)
        chosen = [listed[g] for g in watched[: self.settings.max_groups]]
        described = {x.group: Described(state=x.state) for x in chosen}
        for x in chosen:
            if x.coordinator in unlisted:
                described[x.group].fail(f"ListGroups failed: {unlisted[x.coordinator]}")
        self.describe([x for x in chosen if x.coordinator not in unlisted], described)
        read: set[TP] = set()
        for d in described.values():
            read.update(d.assigned)
            read.update(d.committed)
        offsets = self.offsets.read(read)
        view = None if lags is None else lags(offsets.ends)
        groups = tuple(observation(x, described[x.group], offsets, at_ms, view) for x in chosen)
        return GroupsRound(at_ms=at_ms, groups=groups, over_cap=over_cap)

    def list_groups(self, brokers: list[int]) -> tuple[dict[str, Listed], dict[int, str]]:
        """Every broker's groups; the brokers whose listing failed, with why."""
        from kafka.protocol.admin import ListGroupsRequest

        answers = self.exchange([(b, ListGroupsRequest(min_version=0)) for b in brokers])
        return read_listings(brokers, answers)

    def describe(self, groups: list[Listed], out: dict[str, Described]) -> None:
        """Describe and committed offsets of ``groups``, per coordinator, all in parallel."""
        from kafka.protocol.consumer import OffsetFetchRequest

        version = self.admin._manager.broker_version_data.api_version(OffsetFetchRequest)
        requests = describe_requests(groups, version)
        answers = self.exchange([(r[2], r[3]) for r in requests])
        read_described(requests, answers, out)
