"""The board and the driver's consumer-group poller: rounds folded, series published, and a
poller that stops seeing makes its source stale (MonitorBlind), never healthy."""

from __future__ import annotations

from kafka_health.config import JobConfig
from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import GroupObservation, GroupsRound, PartitionOffsets
from kafka_health.job.board import SignalBoard, consumer_groups_stale_after
from kafka_health.model import SIGNAL_SOURCE, SIGNALS, labels
from kafka_health.reachability.ping import Ping

T0 = 1_767_225_600.0
SETTINGS = ConsumerGroupsConfig(
    objectives=[GroupObjective(match="orders-.*", lag_objective_s=20, severity="critical",
                               labels={"team": "orders"})]
)  # fmt: skip


def a_round(at: float, committed: int, log_end: int, lag_s: float) -> GroupsRound:
    part = PartitionOffsets("orders", 0, committed, 0, log_end, leader=1, lag_s=lag_s,
                            lag_basis="interpolated")  # fmt: skip
    group = GroupObservation("orders-reader", int(at * 1000), "Empty", 0, partitions=(part,))
    return GroupsRound(int(at * 1000), (group,))


def test_a_round_reaches_the_signals_and_a_stopped_poller_makes_the_source_stale() -> None:
    now = [T0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], live=True, consumer_groups=SETTINGS)
    for i in range(6):
        now[0] = T0 + 5 * i
        board.groups_polled(a_round(now[0], 100, 100 + 50 * i, 5.0 * i))
    values = {(s.name, s.labels): s for s in board.signals()}
    ratio = values[("consumergroup_lag_objective_ratio", labels(group="orders-reader"))]
    assert ratio.value == 25.0 / 20
    assert ratio.details["route"] == {"severity": "critical", "labels": {"team": "orders"}}
    assert values[("consumergroup_sum_lag", labels(group="orders-reader"))].value == 250
    assert values[("signal_stale", labels(source="consumer_groups"))].value == 0

    now[0] += consumer_groups_stale_after(SETTINGS) + 1  # no round since
    values = {(s.name, s.labels): s for s in board.signals()}
    assert values[("signal_stale", labels(source="consumer_groups"))].value == 1
    assert not [n for n, _ in values if SIGNAL_SOURCE.get(n) == "consumer_groups"], (
        "a stale source's values are unknown, not published"
    )


def test_a_failed_round_is_no_observation() -> None:
    now = [T0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], live=True, consumer_groups=SETTINGS)
    board.groups_polled(GroupsRound(int(T0 * 1000), error="NoBrokersAvailable"))
    assert "consumer_groups" not in {s.label("source") for s in board.signals()
                                     if s.name == "signal_stale"}  # fmt: skip


def test_without_settings_the_board_watches_no_group() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: T0)
    board.groups_polled(a_round(T0, 1, 2, 1.0))
    assert not [s for s in board.signals() if s.name.startswith("consumergroup_")]


def test_every_consumer_series_is_in_the_catalogue() -> None:
    consumer = [n for n in SIGNAL_SOURCE if SIGNAL_SOURCE[n] == "consumer_groups"]
    assert consumer and all(n in SIGNALS for n in consumer)


def test_a_group_whose_coordinator_the_pings_find_down_is_held_by_that_broker() -> None:
    """The board names the brokers unhealthy from its own series (here: broker 2's pings
    timing out for over 5 s) and hands them to the consumer detector: the group it
    coordinates, not OK, carries broker_id 2 (its page is broker 2's incident)."""
    now = [T0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], live=True, consumer_groups=SETTINGS)
    board.listed({1: ("127.0.0.1", 9091), 2: ("127.0.0.1", 9092)}, T0)

    def polled(at: float, i: int) -> None:
        part = PartitionOffsets("orders", 0, 100, 0, 100 + 50 * i, leader=1, lag_s=2.0 * i,
                                lag_basis="interpolated")  # fmt: skip
        group = GroupObservation("orders-reader", int(at * 1000), "Empty", 0, coordinator=2,
                                 partitions=(part,))  # fmt: skip
        board.groups_polled(GroupsRound(int(at * 1000), (group,)))

    for i in range(6):  # stopped, within its 20 s objective; both brokers answer
        now[0] = T0 + 5 * i
        board.answered([Ping(b, now[0], now[0] + 0.001, "answered") for b in (1, 2)])
        polled(now[0], i)
    status = [s for s in board.signals() if s.name == "consumergroup_status"]
    assert [s.labels for s in status] == [labels(group="orders-reader", verdict="stopped")]

    for t in range(26, 34):  # broker 2 stops answering (hung): timeouts from 26 s on
        now[0] = T0 + t
        board.answered([Ping(1, now[0], now[0] + 0.001, "answered"),
                        Ping(2, now[0], now[0] + 2.0, "timeout")])  # fmt: skip
    polled(now[0], 7)
    status = [s for s in board.signals() if s.name == "consumergroup_status"]
    assert [s.labels for s in status] == [
        labels(group="orders-reader", verdict="stopped", broker_id=2)
    ]
    assert "its coordinator, broker 2" in status[0].details["held_by"]["why"]
