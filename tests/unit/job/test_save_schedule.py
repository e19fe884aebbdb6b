"""When the detectors' state is written: a timeline of folds, writes and a clock."""

from __future__ import annotations

from kafka_health.job.save_schedule import SaveSchedule


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def written_once(every_s: float = 10.0, max_batches: int = 30) -> tuple[Clock, SaveSchedule]:
    """A schedule whose monitor query had its first batch written."""
    clock = Clock()
    schedule = SaveSchedule(every_s, max_batches=max_batches, clock=clock)
    schedule.folded("monitor")
    schedule.written()
    return clock, schedule


def test_the_first_fold_of_a_process_is_written_at_once_then_every_interval() -> None:
    clock = Clock()
    schedule = SaveSchedule(10.0, clock=clock)
    assert not schedule.due()  # nothing folded
    schedule.folded("monitor")
    assert schedule.due()
    schedule.written()
    for step in range(4):  # 2 s batches: 8 s after the write
        clock.now += 2.0
        schedule.folded("monitor")
        assert not schedule.due(), step
    assert schedule.pending == 4
    clock.now += 2.0
    schedule.folded("monitor")
    assert schedule.due()
    schedule.written()
    assert schedule.pending == 0 and not schedule.due()


def test_nothing_folded_since_the_last_write_is_never_due() -> None:
    clock, schedule = written_once(10.0)
    clock.now += 60.0
    assert not schedule.due()


def test_a_failed_write_is_tried_again_at_the_next_batch() -> None:
    clock, schedule = written_once(10.0)
    clock.now += 10.0
    schedule.folded("monitor")
    assert schedule.due()
    schedule.failed()
    clock.now += 0.5
    schedule.folded("monitor")
    assert schedule.due()  # not another 10 s
    assert schedule.pending == 2
    schedule.written()
    clock.now += 0.5
    schedule.folded("monitor")
    assert not schedule.due()


def test_many_fast_batches_are_written_before_spark_purges_the_first() -> None:
    _clock, schedule = written_once(3600.0, max_batches=30)
    for _ in range(29):
        schedule.folded("monitor")
        assert not schedule.due()
    schedule.folded("monitor")
    assert schedule.due()


def test_each_querys_first_fold_of_a_process_is_written_at_once() -> None:
    clock = Clock()
    schedule = SaveSchedule(10.0, clock=clock)
    schedule.folded("canary")
    schedule.written()
    clock.now += 1.0
    schedule.folded("monitor")
    assert schedule.due()  # the monitor query's first batch, 1 s after the canary's
    schedule.written()
    clock.now += 1.0
    schedule.folded("canary")
    schedule.folded("monitor")
    assert not schedule.due()
