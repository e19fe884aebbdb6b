"""One round of consumer-group evidence from the admin API (kafka-python 3.0.12).

A round, every request bounded by ``request_timeout_s`` and sent in parallel within a step,
all on the admin client's own I/O thread (its connections, with the cluster's TLS and SASL):

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
   many groups in one request; before v8, one request a group.
4. The partitions' leaders, then ListOffsets earliest and latest per leader. The leaders are
   kept between rounds (:class:`Leaders`): Metadata is asked only for topics not known yet,
   topics with a partition without a leader, and every :data:`LEADERS_EVERY` rounds all of
   them. That observes the same leaders as asking every round: a broker answers ListOffsets
   only for the partitions it leads (``NOT_LEADER_OR_FOLLOWER`` otherwise), so a partition
   answered was led by the broker it was asked of; a partition whose answer failed (an error,
   or no answer) has its topic's Metadata asked again in the same round, and is asked again of
   its new leader when it moved. A ListOffsets request is sent again the next round, its
   encoding kept, while its leader's partitions stay the same (made again when they change,
   or when it failed).

A group whose describe or offsets fail is an observation with ``error``; a partition whose
leader did not answer has no ``log_start``/``log_end``. Only a round where no broker could be
listed fails as a whole (:meth:`AdminGroupsSource.poll` raises).
"""

from __future__ import annotations

import functools
import logging
import struct
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kafka_health.clock import SYSTEM_CLOCK, Clock
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import GroupObservation, GroupsRound, PartitionOffsets
from kafka_health.failures import classify
from kafka_health.kafka_clients import Lazy, admin_options
from kafka_health.kafka_config import KafkaConfig

log = logging.getLogger(__name__)

BATCH_GROUPS = 500
"""Groups per DescribeGroups, ConsumerGroupDescribe and OffsetFetch request."""
BATCH_PARTITIONS = 5000
"""Partitions per ListOffsets request."""
IN_FLIGHT = 3
"""Requests of a round in flight to one broker at once (kafka-python allows five a connection,
and its admin client sends its own metadata requests on the same connections)."""
STATES = {
    s.lower(): s
    for s in (
        "Stable", "PreparingRebalance", "CompletingRebalance", "Empty", "Dead", "Assigning",
        "Reconciling", "NotReady", "Unknown",
    )
}  # fmt: skip
OFFSETS_READ = ("classic", "consumer", "streams")
"""Group types whose committed offsets OffsetFetch returns (share groups keep theirs apart)."""
TP = tuple[str, int]
Kept = tuple[int, int, tuple[TP, ...]]
"""A ListOffsets request kept between rounds: its leader, spec (earliest, latest), partitions."""
LEADERS_EVERY = 12
"""Rounds between two Metadata requests for every topic read (a minute at 5 s); between them
only the topics whose leaders are unknown or were found wrong are asked (:class:`Leaders`)."""


class GroupsSource(Protocol):
    """Where a round comes from (the admin API, or a fake in tests)."""

    def poll(self, at_ms: int) -> GroupsRound:
        """One round of every watched group (``lag_s`` not yet set); raises when the cluster
        could not be asked at all."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Listed:
    """A group as ListGroups names it, and the broker that listed it (its coordinator)."""

    group: str
    coordinator: int
    protocol_type: str = "consumer"
    state: str = "Unknown"
    group_type: str = "classic"


@dataclass
class Described:
    """What a coordinator said of a group, or why it said nothing (``error``)."""

    state: str = "Unknown"
    members: int = 0
    generation: int | None = None
    protocol_type: str | None = None
    assigned: set[TP] = field(default_factory=set)
    committed: dict[TP, int] = field(default_factory=dict)
    error: str | None = None

    def fail(self, error: str) -> None:
        self.error = self.error or error


def why(exc: BaseException) -> str:
    """A failure as ``ErrorClass: detail`` (at most 200 characters)."""
    detail = str(exc).removeprefix(f"{type(exc).__name__}: ")  # kafka-python's errors add it
    name = classify(exc)
    return (f"{name}: {detail}" if detail and detail != name else name)[:200]


def _code_error(code: int, what: str) -> str | None:
    from kafka.errors import for_code

    return None if not code else f"{classify(for_code(code)())} ({what})"


def _state(text: str | None) -> str:
    return STATES.get((text or "").lower(), "Unknown") if text else "Unknown"


def _chunks(items: Sequence[str], size: int = BATCH_GROUPS) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


async def _exchange(send: Callable[..., Any], requests: list[tuple[int, Any]]) -> list[Any]:
    """Each ``(node, request)``'s answer, or its exception, in order. At most ``IN_FLIGHT``
    a node at once (kafka-python fails a send past its connection's five in flight, it does
    not queue it); the nodes' requests travel together."""
    out: list[Any] = [None] * len(requests)
    waiting: dict[int, deque[int]] = defaultdict(deque)
    for i, (node, _) in enumerate(requests):
        waiting[node].append(i)
    flying: deque[tuple[int, int, Any]] = deque()

    def start(node: int) -> None:
        i = waiting[node].popleft()
        flying.append((i, node, send(requests[i][1], node_id=node)))

    for node, queue in waiting.items():
        for _ in range(min(IN_FLIGHT, len(queue))):
            start(node)
    while flying:
        i, node, future = flying.popleft()
        try:
            out[i] = await future
        except Exception as exc:
            out[i] = exc
        if waiting[node]:
            start(node)
    return out


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
        admin = self._admin()
        if admin is None:
            raise ConnectionError("no admin client for the consumer groups yet")
        try:
            asked = _Round(admin, self.settings, self.leaders, self._requests)
            round_: GroupsRound = admin._manager.run(asked.run, at_ms, self)
            self._requests = asked.requests_used
            return round_
        except Exception:
            self._admin.close(1.0)
            self.leaders = Leaders()  # a new client: learn them again
            self._requests = {}
            raise

    def close(self) -> None:
        self._admin.close(5.0)


class _Round:
    """One round's requests on the admin client's I/O thread."""

    def __init__(
        self,
        admin: Any,
        settings: ConsumerGroupsConfig,
        leaders: Leaders,
        requests: dict[Kept, Any],
    ) -> None:
        """``requests``: the last round's ListOffsets requests by leader, spec and
        partitions (sent again as they are); ``requests_used``: this round's."""
        self.admin = admin
        self.settings = settings
        self.leaders = leaders
        self.requests = requests
        self.requests_used: dict[Kept, Any] = {}
        self.send = admin._manager.send

    async def metadata(self, topics: list[str]) -> Any:
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
        return await self.send(request)

    async def run(self, at_ms: int, source: AdminGroupsSource) -> GroupsRound:
        meta = await self.metadata([])
        brokers = sorted(int(b.node_id) for b in meta.brokers)
        listed, unlisted = await self.list_groups(brokers)
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
        await self.describe([x for x in chosen if x.coordinator not in unlisted], described)
        read: set[TP] = set()
        for d in described.values():
            read.update(d.assigned)
            read.update(d.committed)
        leaders, starts, ends = await self.log_offsets(read)
        groups = tuple(
            _observation(x, described[x.group], leaders, starts, ends, at_ms) for x in chosen
        )
        return GroupsRound(at_ms=at_ms, groups=groups, over_cap=over_cap)

    async def list_groups(self, brokers: list[int]) -> tuple[dict[str, Listed], dict[int, str]]:
        """Every broker's groups; the brokers whose listing failed, with why."""
        from kafka.protocol.admin import ListGroupsRequest

        answers = await _exchange(
            self.send, [(b, ListGroupsRequest(min_version=0)) for b in brokers]
        )
        listed: dict[str, Listed] = {}
        unlisted: dict[int, str] = {}
        for broker, answer in zip(brokers, answers, strict=True):
            error = (
                why(answer)
                if isinstance(answer, Exception)
                else _code_error(answer.error_code, "ListGroups")
            )
            if error is not None:
                unlisted[broker] = error
                continue
            for g in answer.groups:
                listed[g.group_id] = Listed(
                    group=g.group_id,
                    coordinator=broker,
                    protocol_type=g.protocol_type or "",
                    state=_state(getattr(g, "group_state", None)),
                    group_type=(getattr(g, "group_type", None) or "classic").lower(),
                )
        return listed, unlisted

    async def describe(self, groups: list[Listed], out: dict[str, Described]) -> None:
        """Describe and committed offsets of ``groups``, per coordinator, all in parallel."""
        from kafka.protocol.admin import DescribeGroupsRequest
        from kafka.protocol.consumer import OffsetFetchRequest

        from kafka_health.consumer_groups.kip848 import ConsumerGroupDescribeRequest

        by_kind: dict[tuple[int, str], list[str]] = defaultdict(list)
        fetched: dict[int, list[str]] = defaultdict(list)
        for x in groups:
            by_kind[(x.coordinator, x.group_type)].append(x.group)
            if x.group_type in OFFSETS_READ:
                fetched[x.coordinator].append(x.group)
        requests: list[tuple[str, list[str], int, Any]] = []
        for (node, kind), ids in by_kind.items():
            for chunk in _chunks(ids):
                if kind == "classic":
                    req = DescribeGroupsRequest(groups=chunk, include_authorized_operations=False)
                elif kind == "consumer":
                    req = ConsumerGroupDescribeRequest(
                        group_ids=chunk, include_authorized_operations=False
                    )
                else:
                    continue
                requests.append((kind, chunk, node, req))
        batched = self.admin._manager.broker_version_data.api_version(OffsetFetchRequest) >= 8
        _Group = OffsetFetchRequest.OffsetFetchRequestGroup
        for node, ids in fetched.items():
            for chunk in _chunks(ids) if batched else ([g] for g in ids):
                if batched:
                    groups_ = [_Group(group_id=g, topics=None) for g in chunk]
                    req = OffsetFetchRequest(groups=groups_, min_version=8, max_version=8)
                else:
                    req = OffsetFetchRequest(
                        group_id=chunk[0], topics=None, min_version=2, max_version=7
                    )
                requests.append(("offsets", chunk, node, req))
        answers = await _exchange(self.send, [(r[2], r[3]) for r in requests])
        for (kind, chunk, _, _), answer in zip(requests, answers, strict=True):
            if isinstance(answer, Exception):
                for g in chunk:
                    out[g].fail(f"{why(answer)} ({kind})")
            elif kind == "offsets":
                _read_offsets(answer, chunk, out)
            else:
                _read_description(kind, answer, out)

    async def log_offsets(
        self, read: set[TP]
    ) -> tuple[dict[TP, int | None], dict[TP, int], dict[TP, int]]:
        """Leaders, log start and log end offsets of ``read``, ListOffsets per leader."""
        if not read:
            return {}, {}, {}
        cache = self.leaders
        due = cache.due(read)
        if due:
            cache.learn(await self.metadata(due), due)
        known = cache.topics
        leaders = {key: (known.get(key[0]) or {}).get(key[1]) for key in read}
        starts: dict[TP, int] = {}
        ends: dict[TP, int] = {}
        unread = await self.list_offsets(leaders, starts, ends)
        if unread:  # a leader moved, or its broker failed: ask who leads now, in this round
            topics = sorted({t for t, _ in unread})
            try:
                cache.learn(await self.metadata(topics), topics)
            except Exception as exc:
                cache.stale.update(topics)
                log.debug("Metadata failed: %s", why(exc))
                return leaders, starts, ends
            moved: dict[TP, int | None] = {}
            for key in unread:
                now = leaders[key] = cache.of(key)
                if now is not None and now != unread[key]:
                    moved[key] = now
            if moved:
                await self.list_offsets(moved, starts, ends)
        return leaders, starts, ends

    async def list_offsets(
        self, leaders: dict[TP, int | None], starts: dict[TP, int], ends: dict[TP, int]
    ) -> dict[TP, int]:
        """Log start and end offsets of the partitions with a leader, into ``starts`` and
        ``ends``; the partitions not read (an error, or their leader did not answer) with the
        leader they were asked of."""
        from kafka.protocol.consumer import OffsetSpec

        by_leader: dict[int, list[TP]] = defaultdict(list)
        for key, known in leaders.items():
            if known is not None:
                by_leader[known].append(key)
        requests: list[tuple[OffsetSpec, int, Any, Kept]] = []
        made, used = self.requests, self.requests_used
        for leader, keys in by_leader.items():
            for start in range(0, len(keys), BATCH_PARTITIONS):
                chunk = tuple(keys[start : start + BATCH_PARTITIONS])
                for spec in (OffsetSpec.EARLIEST, OffsetSpec.LATEST):
                    asked = (leader, int(spec), chunk)
                    request = made.get(asked)
                    if request is None:
                        request = _offsets_request(chunk, spec)
                    used[asked] = request
                    requests.append((spec, leader, request, asked))
        answers = await _exchange(self.send, [(r[1], r[2]) for r in requests])
        for (spec, _, _, asked), answer in zip(requests, answers, strict=True):
            if isinstance(answer, Exception):
                log.debug("ListOffsets failed: %s", why(answer))
                used.pop(asked, None)  # made again (its version asked again) next round
                continue
            into = starts if spec == OffsetSpec.EARLIEST else ends
            for topic in answer.topics:
                name = topic.name
                for p in topic.partitions:
                    if not p.error_code and p.offset >= 0:
                        into[(name, p.partition_index)] = p.offset
        return {
            key: leader
            for leader, keys in by_leader.items()
            for key in keys
            if key not in ends or key not in starts
        }


class Leaders:
    """The partitions' leaders as Metadata last said, kept between rounds (see the module
    docstring): :meth:`due` names the topics to ask in a round, :meth:`learn` reads the answer,
    :meth:`of` says a partition's leader (None: none, or not known)."""

    def __init__(self, every: int = LEADERS_EVERY) -> None:
        self.every = every
        self.topics: dict[str, dict[int, int | None]] = {}
        """Each topic's partitions' leaders, as its last Metadata said."""
        self.stale: set[str] = set()
        """Topics to ask again: a partition without a leader, the topic in error or absent."""
        self.rounds = 0

    def due(self, read: set[TP]) -> list[str]:
        """The topics of ``read`` whose Metadata this round needs: all of them in the first
        round and every ``every`` rounds after (the others forgotten then), else those with a
        partition not known or ``stale``."""
        full = self.rounds % self.every == 0
        self.rounds += 1
        names = {t for t, _ in read}
        if full:
            self.topics.clear()
            self.stale.clear()
            return sorted(names)
        topics = self.topics
        unknown = {t for t, p in read if p not in topics.get(t, ())}
        return sorted(unknown | (self.stale & names))

    def learn(self, meta: Any, asked: list[str]) -> None:
        """A Metadata answer for the topics ``asked``: their partitions' leaders."""
        topics, stale = self.topics, self.stale
        stale.difference_update(asked)
        answered = set()
        for topic in meta.topics:
            name = topic.name
            answered.add(name)
            if topic.error_code or not topic.partitions:
                topics.pop(name, None)
                stale.add(name)
                continue
            leaders: dict[int, int | None] = {}
            for p in topic.partitions:
                node = int(p.leader_id)
                if node < 0 or p.error_code:
                    leaders[int(p.partition_index)] = None
                    stale.add(name)
                else:
                    leaders[int(p.partition_index)] = node
            topics[name] = leaders
        for name in asked:
            if name not in answered:
                topics.pop(name, None)
                stale.add(name)

    def of(self, key: TP) -> int | None:
        leaders = self.topics.get(key[0])
        return None if leaders is None else leaders.get(key[1])


_PARTITION_SPECS: dict[tuple[int, int], Any] = {}
"""ListOffsets' partition entries by (partition, spec): a request's are built once (they hold
no topic, and a request's encoding only reads them)."""


@functools.cache
def _list_offsets_class() -> Any:
    """kafka-python's ListOffsetsRequest, its encoding kept (:func:`_offsets_request`)."""
    from kafka.protocol.consumer import ListOffsetsRequest

    class KeptListOffsetsRequest(ListOffsetsRequest, init=False):  # type: ignore[misc,call-arg]
        """A ListOffsetsRequest whose body is encoded once a version: a round asks the same
        partitions of the same leader again, and its fields are never changed once made.
        Only the header (its correlation id) is encoded for each send."""

        def encode(self, version: int | None = None, header: bool = False,
                   framed: bool = False) -> bytes:  # fmt: skip
            if version is not None:
                self.API_VERSION = version
            kept: dict[int, bytes] = self.__dict__.setdefault("kept", {})
            body = kept.get(self.API_VERSION)
            if body is None:
                body = kept[self.API_VERSION] = bytes(super().encode())
            if header:
                flexible = self.flexible_version_q(self.API_VERSION)
                body = bytes(self.encode_header(flexible=flexible)) + body
            return struct.pack(">i", len(body)) + body if framed else body

    return KeptListOffsetsRequest


def _offsets_request(keys: Iterable[TP], spec: Any) -> Any:
    """A ListOffsets request for ``spec`` (earliest or latest) of ``keys``, read uncommitted,
    as kafka-python's admin builds it, without its per-partition objects; its encoding kept
    (:class:`_Round` sends it again while its leader's partitions stay the same)."""
    from kafka.protocol.consumer import ListOffsetsRequest

    topic_type = ListOffsetsRequest.ListOffsetsTopic
    partition_type = topic_type.ListOffsetsPartition
    by_topic: dict[str, list[Any]] = defaultdict(list)
    made = _PARTITION_SPECS
    for topic, partition in keys:
        entry = made.get((partition, spec))
        if entry is None:
            entry = made[(partition, spec)] = partition_type(partition_index=partition,
                                                             timestamp=spec)  # fmt: skip
        by_topic[topic].append(entry)
    topics = [topic_type(name=name, partitions=parts) for name, parts in by_topic.items()]
    return _list_offsets_class()(isolation_level=0, topics=topics, min_version=0)


def _read_description(kind: str, answer: Any, out: dict[str, Described]) -> None:
    """A DescribeGroups or ConsumerGroupDescribe answer into ``out``."""
    for g in answer.groups:
        d = out.get(g.group_id)
        if d is None:
            continue
        error = _code_error(g.error_code, kind)
        if error is not None:
            d.fail(error)
            continue
        d.state = _state(g.group_state)
        d.members = len(g.members)
        if kind == "consumer":
            d.generation = int(g.group_epoch)
            d.protocol_type = "consumer"
            for m in g.members:
                for tp in m.assignment.topic_partitions:
                    d.assigned.update((tp.topic_name, int(p)) for p in tp.partitions)
        else:
            d.protocol_type = g.protocol_type
            if g.protocol_type == "consumer":
                d.assigned.update(_classic_assignment(g.members))


MAX_ASSIGNMENTS_MEMO = 100_000
_ASSIGNMENTS: dict[bytes, tuple[TP, ...]] = {}
"""Decoded member assignments by their bytes: a stable group's are the same every round."""


def _classic_assignment(members: Iterable[Any]) -> Iterator[TP]:
    for m in members:
        if m.member_assignment:
            yield from _decoded_assignment(bytes(m.member_assignment))


def _decoded_assignment(raw: bytes) -> tuple[TP, ...]:
    known = _ASSIGNMENTS.get(raw)
    if known is not None:
        return known
    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

    try:
        decoded = ConsumerProtocolAssignment.decode(raw)
        out = tuple((tp.topic, tp.partition) for tp in decoded.partitions())
    except Exception:
        out = ()  # not the consumer protocol's layout: no partitions to read
    if len(_ASSIGNMENTS) >= MAX_ASSIGNMENTS_MEMO:
        _ASSIGNMENTS.clear()
    _ASSIGNMENTS[raw] = out
    return out


def _read_offsets(answer: Any, chunk: list[str], out: dict[str, Described]) -> None:
    """An OffsetFetch answer (v8: many groups; before: the one group of ``chunk``)."""
    if answer.API_VERSION >= 8:
        pairs = [(g.group_id, g) for g in answer.groups]
    else:
        pairs = [(chunk[0], answer)]
    for group, g in pairs:
        d = out.get(group)
        if d is None:
            continue
        error = _code_error(getattr(g, "error_code", 0), "OffsetFetch")
        if error is not None:
            d.fail(error)
            continue
        committed = d.committed
        for topic in g.topics:
            name = topic.name
            for p in topic.partitions:
                if p.error_code:
                    d.fail(_code_error(p.error_code, "OffsetFetch") or "")
                elif p.committed_offset >= 0:
                    committed[(name, p.partition_index)] = p.committed_offset


def _observation(
    x: Listed,
    d: Described,
    leaders: dict[TP, int | None],
    starts: dict[TP, int],
    ends: dict[TP, int],
    at_ms: int,
) -> GroupObservation:
    """The observation of one group from what the round gathered."""
    committed = d.committed
    keys = sorted(committed.keys() | d.assigned if d.assigned else committed)
    make = PartitionOffsets.fast
    partitions = tuple(
        make(key[0], key[1], committed.get(key), starts.get(key), ends.get(key), leaders.get(key))
        for key in keys
    )
    return GroupObservation(
        group=x.group,
        at_ms=at_ms,
        state=d.state,
        members=d.members,
        protocol=x.group_type,
        protocol_type=d.protocol_type if d.protocol_type is not None else x.protocol_type,
        generation=d.generation,
        coordinator=x.coordinator,
        partitions=partitions,
        error=d.error,
    )
