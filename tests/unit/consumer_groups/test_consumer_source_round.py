"""A whole round of :class:`AdminGroupsSource` on a fake admin client that answers with
kafka-python's own response objects: which requests go where, and what a failure costs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaTimeoutError
from kafka.future import Future
from kafka.protocol.admin import DescribeGroupsResponse, ListGroupsResponse
from kafka.protocol.consumer import ListOffsetsResponse, OffsetFetchResponse

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.kip848 import ConsumerGroupDescribeResponse
from kafka_health.consumer_groups.observation import GroupObservation
from kafka_health.consumer_groups.source import AdminGroupsSource
from kafka_health.kafka_config import KafkaConfig

# Broker 1 coordinates "a" (classic, a member on t-0) and "k" (consumer protocol, t-1);
# broker 2 coordinates "b" (classic, empty) and "spark-kafka-source-x" (not watched).
LISTED = {
    1: [("a", "consumer", "Stable", "classic"), ("k", "consumer", "Stable", "consumer")],
    2: [
        ("b", "consumer", "Empty", "classic"),
        ("spark-kafka-source-x", "consumer", "Empty", "classic"),
    ],
}
COMMITTED = {"a": {("t", 0): 10}, "b": {("t", 0): 4, ("t", 1): 2}, "k": {("t", 1): 7}}
LEADERS = {("t", 0): 1, ("t", 1): 2}
START = {("t", 0): 0, ("t", 1): 1}
END = {("t", 0): 30, ("t", 1): 9}


class FakeManager:
    """Sends answered at once (done futures), so a round's coroutine never waits."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int | None]] = []
        self.fail: dict[tuple[str, int], Exception] = {}
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
        name = type(request).__name__
        self.sent.append((name, node_id))
        assert node_id is not None
        if (name, node_id) in self.fail:
            return Future().failure(self.fail[(name, node_id)])
        return Future().success(getattr(self, name)(request, node_id))

    def ListGroupsRequest(self, request: Any, node: int) -> Any:
        R = ListGroupsResponse
        groups = [
            R.ListedGroup(group_id=g, protocol_type=pt, group_state=st, group_type=gt)
            for g, pt, st, gt in LISTED[node]
        ]
        return R(version=5, throttle_time_ms=0, error_code=0, groups=groups)

    def DescribeGroupsRequest(self, request: Any, node: int) -> Any:
        G = DescribeGroupsResponse.DescribedGroup
        out = []
        for g in request.groups:
            state = {"a": "Stable", "b": "Empty"}[g]
            members = (
                []
                if g == "b"
                else [
                    G.DescribedGroupMember(
                        member_id="m",
                        client_id="c",
                        client_host="/h",
                        member_metadata=b"",
                        member_assignment=b"",
                    )
                ]
            )
            out.append(
                G(
                    error_code=0,
                    group_id=g,
                    group_state=state,
                    protocol_type="consumer",
                    protocol_data="range",
                    members=members,
                )
            )
        return DescribeGroupsResponse(version=5, throttle_time_ms=0, groups=out)

    def ConsumerGroupDescribeRequest(self, request: Any, node: int) -> Any:
        G = ConsumerGroupDescribeResponse.DescribedGroup
        out = [
            G(
                error_code=0,
                group_id=g,
                group_state="Reconciling",
                group_epoch=5,
                assignment_epoch=5,
                assignor_name="uniform",
                members=[],
            )
            for g in request.group_ids
        ]
        return ConsumerGroupDescribeResponse(version=1, throttle_time_ms=0, groups=out)

    def OffsetFetchRequest(self, request: Any, node: int) -> Any:
        R = OffsetFetchResponse
        Grp = R.OffsetFetchResponseGroup
        T = Grp.OffsetFetchResponseTopics
        P = T.OffsetFetchResponsePartitions
        out = []
        for g in request.groups:
            parts = [
                P(partition_index=p, committed_offset=o, error_code=0)
                for (_, p), o in COMMITTED[g.group_id].items()
            ]
            out.append(
                Grp(group_id=g.group_id, topics=[T(name="t", partitions=parts)], error_code=0)
            )
        return R(version=8, throttle_time_ms=0, groups=out)

    def ListOffsetsRequest(self, request: Any, node: int) -> Any:
        R = ListOffsetsResponse
        T = R.ListOffsetsTopicResponse
        P = T.ListOffsetsPartitionResponse
        topics = []
        for topic in request.topics:
            parts = []
            for p in topic.partitions:
                key = (topic.name, p.partition_index)
                offset = (START if p.timestamp == -2 else END)[key]
                parts.append(
                    P(partition_index=p.partition_index, error_code=0, timestamp=-1, offset=offset)
                )
            topics.append(T(name=topic.name, partitions=parts))
        return R(version=4, throttle_time_ms=0, topics=topics)


class FakeAdmin:
    _list_partition_offsets_request = staticmethod(KafkaAdminClient._list_partition_offsets_request)

    def __init__(self) -> None:
        self._manager = FakeManager()
        self.closed = 0

    async def _get_cluster_metadata(self, topics: list[str]) -> dict[str, Any]:
        brokers = [{"node_id": 1}, {"node_id": 2}]
        parts = [
            {"partition_index": p, "leader_id": LEADERS[(t, p)], "error_code": 0}
            for t, p in LEADERS
        ]
        return {
            "brokers": brokers,
            "topics": [{"name": "t", "partitions": parts}] if topics else [],
        }

    def close(self, timeout_s: float | None = None) -> None:
        self.closed += 1


def source(**settings: Any) -> tuple[AdminGroupsSource, FakeAdmin]:
    admin = FakeAdmin()
    cg = ConsumerGroupsConfig(**settings)
    return AdminGroupsSource(KafkaConfig(), cg, make_admin=lambda: admin), admin


def by_name(groups: tuple[GroupObservation, ...]) -> dict[str, GroupObservation]:
    return {g.group: g for g in groups}


def test_a_round_reads_every_watched_group() -> None:
    src, admin = source()
    result = src.poll(1000)
    groups = by_name(result.groups)
    assert sorted(groups) == ["a", "b", "k"]  # spark-kafka-source-* is excluded by default
    a, b, k = groups["a"], groups["b"], groups["k"]
    assert (a.state, a.members, a.coordinator, a.protocol, a.generation) == (
        "Stable",
        1,
        1,
        "classic",
        None,
    )
    assert (b.state, b.members, b.coordinator) == ("Empty", 0, 2)
    assert (k.state, k.protocol, k.generation, k.coordinator) == ("Reconciling", "consumer", 5, 1)
    assert [(p.partition, p.committed, p.log_start, p.log_end, p.leader) for p in b.partitions] == [
        (0, 4, 0, 30, 1),
        (1, 2, 1, 9, 2),
    ]
    assert a.partitions[0].lag == 20
    sent = Counter(admin._manager.sent)
    # One request of each kind per broker that has something for it; start and end apart.
    assert sent[("DescribeGroupsRequest", 1)] == sent[("DescribeGroupsRequest", 2)] == 1
    assert sent[("ConsumerGroupDescribeRequest", 1)] == 1
    assert sent[("OffsetFetchRequest", 1)] == sent[("OffsetFetchRequest", 2)] == 1
    assert sent[("ListOffsetsRequest", 1)] == sent[("ListOffsetsRequest", 2)] == 2


def test_a_broker_that_cannot_list_keeps_its_groups_unseen_not_gone() -> None:
    src, admin = source()
    src.poll(1000)
    admin._manager.fail[("ListGroupsRequest", 2)] = KafkaTimeoutError("no answer")
    for at in (2000, 3000):
        groups = by_name(src.poll(at).groups)
        assert sorted(groups) == ["a", "b", "k"]
        assert groups["b"].error == "ListGroups failed: Timeout: no answer"
        assert groups["b"].coordinator == 2
        assert groups["a"].error is None


def test_no_broker_listing_fails_the_round() -> None:
    src, admin = source()
    admin._manager.fail[("ListGroupsRequest", 1)] = KafkaTimeoutError()
    admin._manager.fail[("ListGroupsRequest", 2)] = KafkaTimeoutError()
    with pytest.raises(ConnectionError, match="no broker listed its groups"):
        src.poll(1000)
    assert admin.closed == 1  # made again for the next round


def test_a_coordinator_failing_offsets_marks_its_groups_only() -> None:
    src, admin = source()
    admin._manager.fail[("OffsetFetchRequest", 1)] = KafkaTimeoutError("slow")
    groups = by_name(src.poll(1000).groups)
    assert groups["a"].error == "Timeout: slow (offsets)"
    assert groups["k"].error == "Timeout: slow (offsets)"
    assert groups["b"].error is None
    assert groups["a"].state == "Stable"  # its description still stands


def test_a_leader_failing_offsets_leaves_its_partitions_unread() -> None:
    src, admin = source()
    admin._manager.fail[("ListOffsetsRequest", 2)] = KafkaTimeoutError()
    b = by_name(src.poll(1000).groups)["b"]
    assert [(p.partition, p.log_start, p.log_end) for p in b.partitions] == [
        (0, 0, 30),
        (1, None, None),
    ]
    assert b.error is None


def test_groups_over_the_cap_are_counted() -> None:
    src, _ = source(max_groups=2, include=["a", "b", "k"])
    result = src.poll(1000)
    assert [g.group for g in result.groups] == ["a", "b"]
    assert result.over_cap == 1


def test_at_most_three_requests_in_flight_to_a_broker() -> None:
    from kafka_health.consumer_groups.source import IN_FLIGHT, _exchange

    flying: Counter[int] = Counter()
    most: Counter[int] = Counter()

    class Answer:
        def __init__(self, node: int, value: Any) -> None:
            self.node, self.value = node, value

        def __await__(self) -> Any:
            flying[self.node] -= 1
            if self.value == "boom":
                raise KafkaTimeoutError()
            return self.value
            yield  # a generator: awaitable

    def send(request: Any, node_id: int) -> Answer:
        flying[node_id] += 1
        most[node_id] = max(most[node_id], flying[node_id])
        return Answer(node_id, request)

    requests = [(i % 2, f"r{i}") for i in range(20)] + [(1, "boom")]
    coro = _exchange(send, requests)
    with pytest.raises(StopIteration) as done:
        coro.send(None)
    answers = done.value.value
    assert answers[:20] == [f"r{i}" for i in range(20)]
    assert isinstance(answers[20], KafkaTimeoutError)
    assert most == {0: IN_FLIGHT, 1: IN_FLIGHT} and IN_FLIGHT < 5
