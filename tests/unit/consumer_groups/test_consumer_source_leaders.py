"""The partitions' leaders kept between rounds (``source.Leaders``): Metadata asked for the
topics read only when they are new, when a leader was missing or found wrong (in the same
round), and every ``LEADERS_EVERY`` rounds; what is observed is what asking every round
would observe."""

from __future__ import annotations

from typing import Any

import pytest
from kafka.errors import KafkaTimeoutError

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.log_offsets import LEADERS_EVERY
from kafka_health.consumer_groups.observation import PartitionOffsets
from kafka_health.consumer_groups.source import AdminGroupsSource
from kafka_health.dev.fake_group_admin import FakeCluster, FakeGroup, FakeGroupAdmin
from kafka_health.kafka_config import KafkaConfig


def world() -> FakeCluster:
    """Group "a" (broker 1) reads t-0 (led by 1) and t-1 (led by 2)."""
    return FakeCluster(
        groups={"a": FakeGroup(1, committed={("t", 0): 10, ("t", 1): 3})},
        leaders={"t": {0: 1, 1: 2}},
        log_end={("t", 0): 30, ("t", 1): 9, ("u", 0): 5},
    )


def setup() -> tuple[AdminGroupsSource, FakeGroupAdmin]:
    admin = FakeGroupAdmin(world())
    return AdminGroupsSource(KafkaConfig(), ConsumerGroupsConfig(), make_admin=lambda: admin), admin


def partitions(src: AdminGroupsSource, at: int) -> list[tuple[str, int, int | None, int | None]]:
    (a,) = src.poll(at).groups
    return [(p.topic, p.partition, p.leader, p.log_end) for p in a.partitions]


def topics_asked(admin: FakeGroupAdmin) -> list[list[str]]:
    """The Metadata requests for topics (not the round's first, for the brokers)."""
    asked = [t for t in admin._manager.metadata_asked if t]
    admin._manager.metadata_asked.clear()
    return asked


def test_leaders_are_asked_in_the_first_round_then_every_n_rounds() -> None:
    src, admin = setup()
    assert partitions(src, 1) == [("t", 0, 1, 30), ("t", 1, 2, 9)]
    assert topics_asked(admin) == [["t"]]
    for at in range(2, LEADERS_EVERY + 1):
        assert partitions(src, at) == [("t", 0, 1, 30), ("t", 1, 2, 9)]
    assert topics_asked(admin) == []
    partitions(src, LEADERS_EVERY + 1)
    assert topics_asked(admin) == [["t"]]


def test_a_moved_leader_is_found_and_read_in_the_same_round() -> None:
    src, admin = setup()
    partitions(src, 1)
    topics_asked(admin)
    admin.cluster.leaders["t"][1] = 3  # broker 2 answers NOT_LEADER_OR_FOLLOWER now
    assert partitions(src, 2) == [("t", 0, 1, 30), ("t", 1, 3, 9)]
    assert topics_asked(admin) == [["t"]]
    assert ("ListOffsetsRequest", 3) in admin._manager.sent
    assert partitions(src, 3) == [("t", 0, 1, 30), ("t", 1, 3, 9)]
    assert topics_asked(admin) == []


def test_a_leader_that_does_not_answer_is_asked_again_only_if_it_moved() -> None:
    src, admin = setup()
    partitions(src, 1)
    topics_asked(admin)
    admin._manager.fail[("ListOffsetsRequest", 2)] = KafkaTimeoutError()
    sent = len(admin._manager.sent)
    assert partitions(src, 2) == [("t", 0, 1, 30), ("t", 1, 2, None)]  # as asking every round
    assert topics_asked(admin) == [["t"]]
    to_2 = [s for s in admin._manager.sent[sent:] if s == ("ListOffsetsRequest", 2)]
    assert len(to_2) == 2, "earliest and latest once: no second wait for a broker that hangs"
    admin.cluster.leaders["t"][1] = 1  # elected elsewhere
    assert partitions(src, 3) == [("t", 0, 1, 30), ("t", 1, 1, 9)]


def test_a_partition_without_a_leader_is_asked_every_round_until_it_has_one() -> None:
    src, admin = setup()
    admin.cluster.leaders["t"][1] = -1
    assert partitions(src, 1) == [("t", 0, 1, 30), ("t", 1, None, None)]
    assert partitions(src, 2) == [("t", 0, 1, 30), ("t", 1, None, None)]
    assert topics_asked(admin) == [["t"], ["t"]]
    admin.cluster.leaders["t"][1] = 2
    assert partitions(src, 3) == [("t", 0, 1, 30), ("t", 1, 2, 9)]
    partitions(src, 4)
    assert topics_asked(admin) == [["t"]]


def test_a_topic_newly_read_is_asked_alone() -> None:
    src, admin = setup()
    partitions(src, 1)
    topics_asked(admin)
    admin.cluster.leaders["u"] = {0: 2}
    admin.cluster.groups["a"].committed[("u", 0)] = 1
    assert partitions(src, 2)[-1] == ("u", 0, 2, 5)
    assert topics_asked(admin) == [["u"]]


def test_a_deleted_topic_loses_its_leaders() -> None:
    src, admin = setup()
    partitions(src, 1)
    del admin.cluster.leaders["t"]  # NOT_LEADER from the old leaders, then UNKNOWN_TOPIC
    assert partitions(src, 2) == [("t", 0, None, None), ("t", 1, None, None)]
    assert partitions(src, 3) == [("t", 0, None, None), ("t", 1, None, None)]
    assert topics_asked(admin) == [["t"], ["t"], ["t"]]


def test_a_failed_round_learns_the_leaders_again() -> None:
    src, admin = setup()
    partitions(src, 1)
    admin._manager.fail[("ListGroupsRequest", 1)] = KafkaTimeoutError()
    admin._manager.fail[("ListGroupsRequest", 2)] = KafkaTimeoutError()
    with pytest.raises(ConnectionError):
        src.poll(2)
    admin._manager.fail.clear()
    topics_asked(admin)
    partitions(src, 3)
    assert topics_asked(admin) == [["t"]]


def test_observations_are_the_same_as_asking_every_round() -> None:
    kept, _ = setup()
    every, _ = setup()
    for at in range(1, 6):
        every.leaders.rounds = 0  # every round a first one: all topics asked
        assert kept.poll(at).groups == every.poll(at).groups
    assert isinstance(kept.poll(7).groups[0].partitions[0], PartitionOffsets)


# ------------------------------------------------------------- ListOffsets requests kept


def offsets_requests(admin: FakeGroupAdmin) -> list[tuple[int, Any]]:
    """Record the ListOffsets requests sent from now on, with their broker."""
    seen: list[tuple[int, Any]] = []
    send = admin._manager.send

    def recording(request: Any, node_id: int | None = None) -> Any:
        if request.name == "ListOffsetsRequest":
            assert node_id is not None
            seen.append((node_id, request))
        return send(request, node_id)

    admin._manager.send = recording  # type: ignore[method-assign]
    return seen


def test_the_same_partitions_are_asked_with_the_same_requests() -> None:
    src, admin = setup()
    seen = offsets_requests(admin)
    partitions(src, 1)
    first = list(seen)
    seen.clear()
    partitions(src, 2)
    assert [(n, id(r)) for n, r in seen] == [(n, id(r)) for n, r in first]


def test_requests_are_made_again_where_the_partitions_changed() -> None:
    src, admin = setup()
    seen = offsets_requests(admin)
    partitions(src, 1)
    first = dict((n, r) for n, r in seen if r.topics[0].partitions[0].timestamp == -1)
    seen.clear()
    admin.cluster.leaders["t"][2] = 2  # the group reads a partition more, led by 2
    admin.cluster.log_end[("t", 2)] = 4
    admin.cluster.groups["a"].committed[("t", 2)] = 1
    assert partitions(src, 2)[-1] == ("t", 2, 2, 4)
    latest = dict((n, r) for n, r in seen if r.topics[0].partitions[0].timestamp == -1)
    assert latest[1] is first[1], "broker 1's partitions did not change"
    assert latest[2] is not first[2]
    assert sorted(p.partition_index for p in latest[2].topics[0].partitions) == [1, 2]


def test_a_failed_request_is_made_again_next_round() -> None:
    src, admin = setup()
    seen = offsets_requests(admin)
    partitions(src, 1)
    first = {id(r) for n, r in seen if n == 2}
    admin._manager.fail[("ListOffsetsRequest", 2)] = KafkaTimeoutError()
    partitions(src, 2)
    del admin._manager.fail[("ListOffsetsRequest", 2)]
    seen.clear()
    assert partitions(src, 3) == [("t", 0, 1, 30), ("t", 1, 2, 9)]
    assert not first & {id(r) for n, r in seen if n == 2}


@pytest.mark.parametrize("version", [0, 4, 9])
def test_a_kept_request_encodes_as_kafka_pythons_own(version: int) -> None:
    from kafka.protocol.consumer import ListOffsetsRequest

    from kafka_health.consumer_groups.log_offsets import offsets_request

    keys = [("t", 0), ("t", 1), ("u", 3)]
    kept = offsets_request(keys, -1)
    T = ListOffsetsRequest.ListOffsetsTopic
    P = T.ListOffsetsPartition
    own = ListOffsetsRequest(isolation_level=0, min_version=0, topics=[
        T(name="t", partitions=[P(partition_index=0, timestamp=-1),
                                P(partition_index=1, timestamp=-1)]),
        T(name="u", partitions=[P(partition_index=3, timestamp=-1)]),
    ])  # fmt: skip
    for correlation_id in (7, 8):  # sent twice: the header made anew, the body kept
        for request in (kept, own):
            request.API_VERSION = version
            request.with_header(correlation_id=correlation_id, client_id="kafka-health")
        assert bytes(kept.encode(header=True, framed=True)) == bytes(
            own.encode(header=True, framed=True)
        )
        assert bytes(kept.encode(version=version)) == bytes(own.encode(version=version))
