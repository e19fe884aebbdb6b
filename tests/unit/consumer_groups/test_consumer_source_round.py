"""A whole round of :class:`AdminGroupsSource` on a fake admin client that answers with
kafka-python's own response objects: which requests go where, and what a failure costs."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from kafka.errors import KafkaTimeoutError

from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import GroupObservation
from kafka_health.consumer_groups.source import AdminGroupsSource
from kafka_health.dev.fake_group_admin import FakeCluster, FakeGroup, FakeGroupAdmin
from kafka_health.kafka_config import KafkaConfig


def cluster() -> FakeCluster:
    """Broker 1 coordinates "a" (classic, a member on t-0) and "k" (consumer protocol, t-1,
    listed Stable, described Reconciling); broker 2 coordinates "b" (classic, empty) and
    "spark-kafka-source-x" (not watched)."""
    return FakeCluster(
        groups={
            "a": FakeGroup(1, assignments=[b""], committed={("t", 0): 10}),
            "k": FakeGroup(1, "Reconciling", group_type="consumer", epoch=5,
                           listed_state="Stable", committed={("t", 1): 7}),
            "b": FakeGroup(2, "Empty", committed={("t", 0): 4, ("t", 1): 2}),
            "spark-kafka-source-x": FakeGroup(2, "Empty"),
        },
        leaders={"t": {0: 1, 1: 2}},
        log_start={("t", 0): 0, ("t", 1): 1},
        log_end={("t", 0): 30, ("t", 1): 9},
    )  # fmt: skip


def source(**settings: Any) -> tuple[AdminGroupsSource, FakeGroupAdmin]:
    admin = FakeGroupAdmin(cluster())
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
    from kafka_health.consumer_groups.exchange import IN_FLIGHT, exchange

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
    coro = exchange(send, requests)
    with pytest.raises(StopIteration) as done:
        coro.send(None)
    answers = done.value.value
    assert answers[:20] == [f"r{i}" for i in range(20)]
    assert isinstance(answers[20], KafkaTimeoutError)
    assert most == {0: IN_FLIGHT, 1: IN_FLIGHT} and IN_FLIGHT < 5


def test_a_node_the_client_no_longer_knows_fails_its_requests_not_the_round() -> None:
    """kafka-python raises UnknownBrokerIdError from the send itself for a node its metadata
    no longer lists (seen just after a frozen broker was fenced: the whole round failed);
    that node's requests answer with it, the others' as usual."""
    from kafka.errors import UnknownBrokerIdError

    from kafka_health.consumer_groups.exchange import exchange

    class Answer:
        def __init__(self, value: Any) -> None:
            self.value = value

        def __await__(self) -> Any:
            return self.value
            yield  # a generator: awaitable

    def send(request: Any, node_id: int) -> Answer:
        if node_id == 3:
            raise UnknownBrokerIdError(3)
        return Answer(request)

    requests = [(i % 3 + 1, f"r{i}") for i in range(12)]
    coro = exchange(send, requests)
    with pytest.raises(StopIteration) as done:
        coro.send(None)
    answers = done.value.value
    for (node, request), answer in zip(requests, answers, strict=True):
        if node == 3:
            assert isinstance(answer, UnknownBrokerIdError)
        else:
            assert answer == request


def test_a_metadata_request_a_dead_broker_refuses_goes_to_the_next() -> None:
    """With two of three brokers dead, the least loaded broker of a new client is often a
    dead one: the request goes on to the next (kafka-python backs off from the one that
    failed), and the round fails only when ASK_ATTEMPTS brokers fail it."""
    from kafka.errors import KafkaConnectionError

    from kafka_health.consumer_groups.exchange import ASK_ATTEMPTS, ask

    def run(coro: Any) -> Any:
        with pytest.raises(StopIteration) as done:
            coro.send(None)
        return done.value.value

    class Answer:
        def __init__(self, fails: bool) -> None:
            self.fails = fails

        def __await__(self) -> Any:
            if self.fails:
                raise KafkaConnectionError("111 ECONNREFUSED")
            return "metadata"
            yield  # a generator: awaitable

    sent: list[int] = []

    def refusing(first: int) -> Any:
        def send(request: Any) -> Answer:
            sent.append(len(sent))
            return Answer(len(sent) <= first)

        return send

    assert run(ask(refusing(ASK_ATTEMPTS - 1), "request")) == "metadata"
    assert len(sent) == ASK_ATTEMPTS
    sent.clear()
    with pytest.raises(KafkaConnectionError):
        run(ask(refusing(ASK_ATTEMPTS), "request"))
    assert len(sent) == ASK_ATTEMPTS


def test_answers_encoded_and_decoded_as_on_the_wire_read_the_same() -> None:
    admin = FakeGroupAdmin(cluster(), wire=True)
    src = AdminGroupsSource(KafkaConfig(), ConsumerGroupsConfig(), make_admin=lambda: admin)
    plain, _ = source()
    assert src.poll(1000).groups == plain.poll(1000).groups
    assert admin._manager.decode_s > 0 and admin._manager.build_s > 0


def test_only_the_exchanges_run_on_the_admin_clients_thread() -> None:
    """The admin client's ``run`` (its I/O thread) is handed the exchanges and nothing else:
    the answers are read, and the observations made, on the caller's thread."""
    from kafka_health.consumer_groups.exchange import ask, exchange

    src, admin = source()
    manager = admin._manager
    ran: list[Any] = []
    run = manager.run

    def recorded(fn: Any, *args: Any) -> Any:
        ran.append(fn)
        return run(fn, *args)

    manager.run = recorded  # type: ignore[method-assign]
    assert len(src.poll(1000).groups) == 3
    assert ran and set(ran) <= {ask, exchange}


def test_a_round_with_its_time_lags_is_the_poller_adding_them_after() -> None:
    """The source's observations with ``lag_s`` set as it builds them (``poll_lagged``) are
    those the poller makes from a source that leaves them unset."""
    from kafka_health.consumer_groups.lag import LagTable
    from kafka_health.consumer_groups.poller import GroupsPoller

    class Unlagged:
        def __init__(self, inner: AdminGroupsSource) -> None:
            self.inner = inner

        def poll(self, at_ms: int) -> Any:
            return self.inner.poll(at_ms)

        def close(self) -> None: ...

    class Clock:
        t = 100.0

        def time(self) -> float:
            return self.t

        def monotonic(self) -> float:
            return 0.0

    worlds: list[FakeCluster] = [cluster(), cluster()]
    clocks = [Clock(), Clock()]
    admins = [FakeGroupAdmin(w) for w in worlds]
    sources = [
        AdminGroupsSource(KafkaConfig(), ConsumerGroupsConfig(), make_admin=lambda: admins[0]),
        AdminGroupsSource(KafkaConfig(), ConsumerGroupsConfig(), make_admin=lambda: admins[1]),
    ]
    lagged = GroupsPoller(sources[0], LagTable(), ConsumerGroupsConfig(), clocks[0])
    after = GroupsPoller(Unlagged(sources[1]), LagTable(), ConsumerGroupsConfig(), clocks[1])
    for step in range(6):
        for world, clock in zip(worlds, clocks, strict=True):
            clock.t += 5.0
            world.log_end[("t", 0)] += 7 * step
            world.log_end[("t", 1)] += 3
            world.groups["a"].committed[("t", 0)] = world.log_end[("t", 0)] - 9
            if step % 2:
                world.groups["b"].committed[("t", 1)] = world.log_end[("t", 1)]
        one, two = lagged.poll_once(), after.poll_once()
        assert one.groups == two.groups
    bases = {p.lag_basis for g in one.groups for p in g.partitions}
    assert {"interpolated", "caught_up", "extrapolated"} <= bases
