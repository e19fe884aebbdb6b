"""await_leaders: a new canary partition is probed only once its leader takes it."""

from __future__ import annotations

from typing import Any

import pytest
from kafka.errors import (
    LeaderNotAvailableError,
    TopicAuthorizationFailedError,
    UnknownTopicOrPartitionError,
)

from kafka_health.canary.topic import await_leaders


class Leaders:
    """An admin client whose ListOffsets fail with ``errors`` in turn, then answer."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.asked: list[dict[Any, Any]] = []

    def list_partition_offsets(self, specs: dict[Any, Any]) -> dict[Any, Any]:
        self.asked.append(specs)
        if self.errors:
            raise self.errors.pop(0)
        return {tp: (0, -1) for tp in specs}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_waits_while_a_leader_does_not_know_its_partition_yet() -> None:
    admin = Leaders(UnknownTopicOrPartitionError(), LeaderNotAvailableError())
    clock = Clock()
    await_leaders(admin, "canary", [0, 1, 2], clock=clock, sleep=clock.sleep)
    assert len(admin.asked) == 3
    assert sorted((tp.topic, tp.partition) for tp in admin.asked[-1]) == [
        ("canary", 0), ("canary", 1), ("canary", 2),
    ]  # fmt: skip
    assert clock.now == pytest.approx(0.4)


def test_gives_up_at_the_deadline_with_the_last_error() -> None:
    admin = Leaders(*[UnknownTopicOrPartitionError()] * 100)
    clock = Clock()
    with pytest.raises(UnknownTopicOrPartitionError):
        await_leaders(admin, "canary", [0], timeout_s=2.0, clock=clock, sleep=clock.sleep)
    assert 2.0 <= clock.now < 2.5


def test_an_error_retrying_cannot_mend_is_raised_at_once() -> None:
    admin = Leaders(TopicAuthorizationFailedError())
    clock = Clock()
    with pytest.raises(TopicAuthorizationFailedError):
        await_leaders(admin, "canary", [0], clock=clock, sleep=clock.sleep)
    assert clock.now == 0.0
