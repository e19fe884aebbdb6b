"""A fake admin client for :class:`~kafka_health.consumer_groups.source.AdminGroupsSource`:
every request answered at once with kafka-python's own response objects, built from a
:class:`FakeCluster` (its groups, their coordinators, members, assignments and commits; its
partitions' leaders and log offsets). Shared by the source's tests and the scale benchmark
(``benchmarks/consumer_groups_scale.py``), so neither builds admin answers of its own.

The source reaches into kafka-python's admin client (``_manager.run``, ``_manager.send``,
``_manager.broker_version_data``): :class:`FakeGroupAdmin` has exactly those. Its manager records
what was sent (``sent``), fails the sends it is told to (``fail``: (request name, broker) ->
exception) and, with ``wire``, encodes each answer and decodes it again as kafka-python's I/O thread
would; ``build_s`` and ``decode_s`` are the thread's CPU seconds spent building the answers and
decoding them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka.future import Future
from kafka.protocol.admin import DescribeGroupsResponse, ListGroupsResponse
from kafka.protocol.consumer import ListOffsetsResponse, OffsetFetchResponse
from kafka.protocol.metadata import MetadataResponse

from kafka_health.consumer_groups.kip848 import ConsumerGroupDescribeResponse

Key = tuple[str, int]
EARLIEST = -2
"""ListOffsets' timestamp asking for the log start offset (-1: the log end)."""
NOT_LEADER = 6
"""``NOT_LEADER_OR_FOLLOWER``: a broker asked for the offsets of a partition it does not lead."""
cpu = time.thread_time


@dataclass
class FakeGroup:
    """One group as its coordinator answers for it.

    ``group_type`` ``classic`` is described by DescribeGroups, ``consumer`` (KIP-848) by
    ConsumerGroupDescribe (its ``epoch`` the group epoch). ``assignments`` holds one member's
    assignment (``ConsumerProtocolAssignment`` bytes) a member; ``listed_state``, when set, is
    the state the listing shows (else ``state``); ``committed`` its offsets, by partition."""

    coordinator: int
    state: str = "Stable"
    group_type: str = "classic"
    protocol_type: str = "consumer"
    assignments: list[bytes] = field(default_factory=list)
    epoch: int = 0
    listed_state: str | None = None
    committed: dict[Key, int] = field(default_factory=dict)


@dataclass
class FakeCluster:
    """What the fake answers from: ``groups`` by id, ``leaders`` (topic -> partition ->
    leader), the log start (0 where not given) and log end offsets. A subclass may compute
    the offsets instead (:meth:`start_offset`, :meth:`end_offset`)."""

    groups: dict[str, FakeGroup] = field(default_factory=dict)
    leaders: dict[str, dict[int, int]] = field(default_factory=dict)
    log_start: dict[Key, int] = field(default_factory=dict)
    log_end: dict[Key, int] = field(default_factory=dict)
    brokers: Sequence[int] = (1, 2)

    def start_offset(self, key: Key) -> int:
        return self.log_start.get(key, 0)

    def end_offset(self, key: Key) -> int:
        return self.log_end[key]


class FakeManager:
    """The admin client's manager: a send answered at once (a done future), so a round's
    coroutine never waits."""

    def __init__(self, cluster: FakeCluster, wire: bool = False) -> None:
        self.cluster = cluster
        self.wire = wire
        self.sent: list[tuple[str, int | None]] = []
        self.metadata_asked: list[list[str]] = []
        """The topics of each Metadata request (``[]``: the brokers only)."""
        self.fail: dict[tuple[str, int], Exception] = {}
        self.build_s = 0.0
        self.decode_s = 0.0
        self.broker_version_data = self

    def api_version(self, request: Any) -> int:
        return 8

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        coro = fn(*args)
        try:
            coro.send(None)
        except StopIteration as stop:
            return stop.value
        raise AssertionError("a fake future was not done")

    def send(self, request: Any, node_id: int | None = None) -> Future:
        name = request.name  # the API's (a subclass of the request keeps it)
        self.sent.append((name, node_id))
        if node_id is None:  # the least loaded broker: Metadata only
            assert name == "MetadataRequest", name
            node_id = self.cluster.brokers[0]
        if (name, node_id) in self.fail:
            return Future().failure(self.fail[(name, node_id)])
        started = cpu()
        response = getattr(self, name)(request, node_id)
        if not self.wire:
            self.build_s += cpu() - started
            return Future().success(response)
        data = bytes(response.encode())
        decoding = cpu()
        decoded = type(response).decode(data, version=response.API_VERSION)
        self.build_s += decoding - started
        self.decode_s += cpu() - decoding
        return Future().success(decoded)

    def MetadataRequest(self, request: Any, node: int) -> Any:
        """The brokers and the topics asked for (v8); a topic not in the cluster is answered
        ``UNKNOWN_TOPIC_OR_PARTITION`` (3), a partition without a leader -1
        (``LEADER_NOT_AVAILABLE``, 5)."""
        R = MetadataResponse
        B, T = R.MetadataResponseBroker, R.MetadataResponseTopic
        P = T.MetadataResponsePartition
        leaders = self.cluster.leaders
        self.metadata_asked.append([t.name for t in request.topics or ()])
        brokers = [B(node_id=b, host=f"broker-{b}", port=9092, rack=None)
                   for b in self.cluster.brokers]  # fmt: skip
        topics = [
            T(error_code=0 if t.name in leaders else 3, name=t.name, is_internal=False,
              partitions=[
                P(error_code=0 if leader >= 0 else 5, partition_index=p, leader_id=leader,
                  leader_epoch=0, replica_nodes=[leader], isr_nodes=[leader], offline_replicas=[])
                for p, leader in leaders.get(t.name, {}).items()
            ])
            for t in request.topics or ()
        ]  # fmt: skip
        return R(version=8, throttle_time_ms=0, brokers=brokers, cluster_id="fake",
                 controller_id=self.cluster.brokers[0], topics=topics)  # fmt: skip

    def ListGroupsRequest(self, request: Any, node: int) -> Any:
        R = ListGroupsResponse
        groups = [
            R.ListedGroup(group_id=g, protocol_type=f.protocol_type,
                          group_state=f.listed_state or f.state, group_type=f.group_type)
            for g, f in self.cluster.groups.items() if f.coordinator == node
        ]  # fmt: skip
        return R(version=5, throttle_time_ms=0, error_code=0, groups=groups)

    def DescribeGroupsRequest(self, request: Any, node: int) -> Any:
        G = DescribeGroupsResponse.DescribedGroup
        out = []
        for g in request.groups:
            f = self.cluster.groups[g]
            members = [
                G.DescribedGroupMember(member_id=f"m-{n}", client_id="c", client_host="/h",
                                       member_metadata=b"", member_assignment=assignment)
                for n, assignment in enumerate(f.assignments)
            ]  # fmt: skip
            out.append(G(error_code=0, group_id=g, group_state=f.state,
                         protocol_type=f.protocol_type, protocol_data="range",
                         members=members))  # fmt: skip
        return DescribeGroupsResponse(version=5, throttle_time_ms=0, groups=out)

    def ConsumerGroupDescribeRequest(self, request: Any, node: int) -> Any:
        G = ConsumerGroupDescribeResponse.DescribedGroup
        out = []
        for g in request.group_ids:
            f = self.cluster.groups[g]
            out.append(G(error_code=0, error_message=None, group_id=g, group_state=f.state,
                         group_epoch=f.epoch, assignment_epoch=f.epoch, assignor_name="uniform",
                         members=[], authorized_operations=-2147483648))  # fmt: skip
        return ConsumerGroupDescribeResponse(version=1, throttle_time_ms=0, groups=out)

    def OffsetFetchRequest(self, request: Any, node: int) -> Any:
        R = OffsetFetchResponse
        Grp = R.OffsetFetchResponseGroup
        T = Grp.OffsetFetchResponseTopics
        P = T.OffsetFetchResponsePartitions
        out = []
        for g in request.groups:
            by_topic: dict[str, list[Any]] = {}
            for (topic, partition), offset in self.cluster.groups[g.group_id].committed.items():
                by_topic.setdefault(topic, []).append(
                    P(partition_index=partition, committed_offset=offset, error_code=0)
                )
            topics = [T(name=t, partitions=ps) for t, ps in by_topic.items()]
            out.append(Grp(group_id=g.group_id, topics=topics, error_code=0))
        return R(version=8, throttle_time_ms=0, groups=out)

    def ListOffsetsRequest(self, request: Any, node: int) -> Any:
        """The partitions ``node`` leads answered, the others ``NOT_LEADER_OR_FOLLOWER``."""
        T = ListOffsetsResponse.ListOffsetsTopicResponse
        P = T.ListOffsetsPartitionResponse
        cluster = self.cluster

        def answer(topic: str, p: Any) -> Any:
            key = (topic, p.partition_index)
            if cluster.leaders.get(topic, {}).get(p.partition_index) != node:
                return P(partition_index=p.partition_index, error_code=NOT_LEADER, timestamp=-1,
                         offset=-1)  # fmt: skip
            early = p.timestamp == EARLIEST
            offset = cluster.start_offset(key) if early else cluster.end_offset(key)
            return P(partition_index=p.partition_index, error_code=0, timestamp=-1, offset=offset)

        topics = [
            T(name=t.name, partitions=[answer(t.name, p) for p in t.partitions])
            for t in request.topics
        ]
        return ListOffsetsResponse(version=4, throttle_time_ms=0, topics=topics)


class FakeGroupAdmin:
    """What :class:`AdminGroupsSource` uses of ``KafkaAdminClient``, answering from
    ``cluster``; ``closed`` counts its closes (the source makes a new one after a failure)."""

    def __init__(self, cluster: FakeCluster, wire: bool = False) -> None:
        self.cluster = cluster
        self._manager = FakeManager(cluster, wire)
        self.closed = 0

    def close(self, timeout_s: float | None = None) -> None:
        self.closed += 1
