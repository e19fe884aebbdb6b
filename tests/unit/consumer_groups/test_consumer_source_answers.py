"""The source's reading of the brokers' answers, on answers encoded and decoded as on the
wire: ConsumerGroupDescribe (declared here), DescribeGroups, OffsetFetch v8."""

from __future__ import annotations

import uuid

from kafka.protocol.admin import DescribeGroupsResponse
from kafka.protocol.consumer import OffsetFetchResponse
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

from kafka_health.consumer_groups.answers import (
    Described,
    Listed,
    read_description,
    read_offsets,
)
from kafka_health.consumer_groups.build import observation
from kafka_health.consumer_groups.kip848 import (
    ConsumerGroupDescribeRequest,
    ConsumerGroupDescribeResponse,
)
from kafka_health.consumer_groups.log_offsets import LogOffsets


def test_consumer_group_describe_request_bytes() -> None:
    request = ConsumerGroupDescribeRequest(group_ids=["g"], include_authorized_operations=False)
    # Flexible: compact array (1 + 1), compact string "g" (1 + 1), false, no tagged fields.
    assert bytes(request.encode(version=1)) == b"\x02\x02g\x00\x00"
    assert ConsumerGroupDescribeRequest.API_KEY == 69


def test_a_consumer_protocol_group_is_read_with_its_epoch_and_assignment() -> None:
    R = ConsumerGroupDescribeResponse
    G = R.DescribedGroup
    M = G.Member
    A = M.Assignment
    assignment = A(
        topic_partitions=[
            A.TopicPartitions(topic_id=uuid.uuid4(), topic_name="t", partitions=[0, 2])
        ]
    )
    member = M(
        member_id="m1", instance_id=None, rack_id=None, member_epoch=7, client_id="c",
        client_host="/127.0.0.1", subscribed_topic_names=["t"], subscribed_topic_regex=None,
        assignment=assignment, target_assignment=assignment,
    )  # fmt: skip
    groups = [
        G(error_code=0, error_message=None, group_id="g", group_state="Stable", group_epoch=7,
          assignment_epoch=7, assignor_name="uniform", members=[member],
          authorized_operations=-2147483648),
        G(error_code=69, error_message="gone", group_id="h", group_state="", group_epoch=0,
          assignment_epoch=0, assignor_name="", members=[], authorized_operations=0),
    ]  # fmt: skip
    wire = R(version=1, throttle_time_ms=0, groups=groups).encode(version=1)
    out = {"g": Described(), "h": Described()}
    read_description("consumer", R.decode(wire, version=1), out)
    g = out["g"]
    assert (g.state, g.members, g.generation, g.protocol_type) == ("Stable", 1, 7, "consumer")
    assert g.assigned == {("t", 0), ("t", 2)}
    assert out["h"].error == "GroupIdNotFound (consumer)"


def test_a_classic_group_is_read_with_its_members_assignment() -> None:
    CPA = ConsumerProtocolAssignment
    assigned = CPA(
        version=0,
        assigned_partitions=[CPA.TopicPartition(topic="t", partitions=[1])],
        user_data=None,
    ).encode()
    G = DescribeGroupsResponse.DescribedGroup
    member = G.DescribedGroupMember(
        member_id="m", group_instance_id=None, client_id="c", client_host="/h",
        member_metadata=b"", member_assignment=bytes(assigned),
    )  # fmt: skip
    group = G(
        error_code=0, error_message=None, group_id="g", group_state="CompletingRebalance",
        protocol_type="consumer", protocol_data="range", members=[member],
        authorized_operations=set(),
    )  # fmt: skip
    R = DescribeGroupsResponse
    wire = R(version=5, throttle_time_ms=0, groups=[group]).encode(version=5)
    out = {"g": Described()}
    read_description("classic", R.decode(wire, version=5), out)
    g = out["g"]
    assert (g.state, g.members, g.generation, g.assigned) == (
        "CompletingRebalance",
        1,
        None,
        {("t", 1)},
    )


def test_offset_fetch_v8_reads_each_group_and_its_error() -> None:
    R = OffsetFetchResponse
    Grp = R.OffsetFetchResponseGroup
    T = Grp.OffsetFetchResponseTopics
    P = T.OffsetFetchResponsePartitions
    parts = [
        P(
            partition_index=0,
            committed_offset=42,
            committed_leader_epoch=-1,
            metadata="",
            error_code=0,
        ),
        P(
            partition_index=1,
            committed_offset=-1,
            committed_leader_epoch=-1,
            metadata="",
            error_code=0,
        ),
    ]
    groups = [
        Grp(group_id="a", topics=[T(name="t", partitions=parts)], error_code=0),
        Grp(group_id="b", topics=[], error_code=14),  # COORDINATOR_LOAD_IN_PROGRESS
    ]
    wire = R(version=8, throttle_time_ms=0, groups=groups).encode(version=8)
    answer = R.decode(wire, version=8)
    out = {"a": Described(), "b": Described()}
    read_offsets(answer, ["a", "b"], out)
    assert out["a"].committed == {("t", 0): 42}  # -1: nothing committed for partition 1
    assert out["a"].error is None
    assert out["b"].error == "CoordinatorLoadInProgress (OffsetFetch)"


def test_the_observation_joins_committed_assigned_and_log_offsets() -> None:
    d = Described(state="Stable", members=2, assigned={("t", 0), ("t", 1)}, committed={("t", 0): 5})
    x = Listed("g", coordinator=3, protocol_type="consumer", group_type="consumer")
    offsets = LogOffsets(leaders={"t": {0: 1, 1: None}}, starts={"t": {0: 2}}, ends={"t": {0: 9}})
    obs = observation(x, d, offsets, 1000)
    assert obs.coordinator == 3
    assert obs.protocol == "consumer"
    p0, p1 = obs.partitions
    assert (p0.committed, p0.log_start, p0.log_end, p0.leader, p0.lag) == (5, 2, 9, 1, 4)
    assert (p1.committed, p1.log_end, p1.leader, p1.lag) == (None, None, None, None)
