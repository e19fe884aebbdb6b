"""The job's collector thresholds hold while it runs and are put back after."""

from __future__ import annotations

import gc

import pytest

from kafka_health.job.python_gc import YOUNG_THRESHOLD, collector_for_the_job


def test_the_young_threshold_is_raised_while_the_job_runs_and_restored_after() -> None:
    before = gc.get_threshold()
    with collector_for_the_job():
        assert gc.get_threshold() == (max(YOUNG_THRESHOLD, before[0]), *before[1:])
    assert gc.get_threshold() == before


def test_the_thresholds_are_restored_when_the_run_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), collector_for_the_job():
        raise RuntimeError("query failed")
    assert gc.get_threshold() == before


def test_cyclic_garbage_is_still_collected_under_the_raised_threshold() -> None:
    collected: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collected.append(info["collected"])

    class Node:
        def __init__(self) -> None:
            self.me = self

    gc.collect()
    gc.callbacks.append(note)
    try:
        with collector_for_the_job():
            for _ in range(YOUNG_THRESHOLD * 2):
                Node()
    finally:
        gc.callbacks.remove(note)
    assert sum(collected) >= YOUNG_THRESHOLD, "the cycles left behind were collected"


def test_as_a_decorator_each_call_sets_and_restores_the_thresholds() -> None:
    before = gc.get_threshold()

    @collector_for_the_job()
    def run() -> tuple[int, int, int]:
        return gc.get_threshold()

    assert run()[0] == max(YOUNG_THRESHOLD, before[0]) and gc.get_threshold() == before
    assert run()[0] == max(YOUNG_THRESHOLD, before[0]) and gc.get_threshold() == before
