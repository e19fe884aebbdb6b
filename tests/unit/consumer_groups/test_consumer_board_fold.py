"""The board folds a consumer-group round outside its lock: a publish while a round is being
folded is not held up by it, and shows the round before until the new one is installed."""

from __future__ import annotations

import threading

import pytest

from kafka_health.config import JobConfig
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.observation import GroupObservation, GroupsRound, PartitionOffsets
from kafka_health.detectors.consumer_groups import Folded
from kafka_health.job.board import SignalBoard

T0 = 1_767_225_600.0


def a_round(at: float, group: str) -> GroupsRound:
    part = PartitionOffsets("orders", 0, 100, 0, 150, leader=1, lag_s=2.0,
                            lag_basis="interpolated")  # fmt: skip
    observed = GroupObservation(group, int(at * 1000), "Stable", 1, partitions=(part,))
    return GroupsRound(int(at * 1000), (observed,))


def groups_shown(board: SignalBoard) -> list[str]:
    return [s.label("group") for s in board.signals() if s.name == "consumergroup_status"]


def test_a_publish_is_not_held_up_by_a_round_being_folded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    board = SignalBoard(JobConfig(), clock=lambda: T0 + 6, live=True,
                        consumer_groups=ConsumerGroupsConfig())  # fmt: skip
    detector = board.consumer_groups
    assert detector is not None
    board.groups_polled(a_round(T0, "first"))
    folding, release = threading.Event(), threading.Event()
    fold = detector.fold

    def slow_fold(round_: GroupsRound) -> Folded:
        folding.set()
        release.wait(5)
        return fold(round_)

    monkeypatch.setattr(detector, "fold", slow_fold)
    poller = threading.Thread(target=board.groups_polled, args=(a_round(T0 + 5, "second"),))
    poller.start()
    try:
        assert folding.wait(10)
        assert not release.is_set()
        assert groups_shown(board) == ["first"], "the round before, while the next is folded"
    finally:
        release.set()
        poller.join(10)
    assert groups_shown(board) == ["first", "second"]
