"""The lag table: samples kept, thinned and forgotten; time lag by interpolation, exact."""

from __future__ import annotations

import itertools

import pytest

from kafka_health.consumer_groups.lag import LagTable
from kafka_health.consumer_groups.observation import LAG_BASES, PartitionOffsets


def offsets(committed: int | None, log_end: int | None, log_start: int = 0) -> PartitionOffsets:
    return PartitionOffsets("t", 0, committed, log_start, log_end)


def steady(table: LagTable, rate: float, start: float, end: float, step: float) -> None:
    """Samples of a partition written at ``rate`` records/s from offset 0 at ``start``."""
    now = start
    while now <= end + 1e-9:
        table.record("t", 0, round(rate * (now - start)), now)
        now += step


def test_interpolates_between_the_two_samples_around_the_next_unread_record() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    table.record("t", 0, 200, 1010.0)
    table.record("t", 0, 300, 1020.0)
    # Record 149 made the log end 150: halfway from 100 (1000 s) to 200 (1010 s) -> 1005 s.
    got = table.estimate(offsets(149, 300), now=1020.0)
    assert (got.lag_s, got.basis) == (15.0, "interpolated")
    # Record 199 made it 200, at exactly 1010 s.
    got = table.estimate(offsets(199, 300), now=1030.0)
    assert (got.lag_s, got.basis) == (20.0, "interpolated")


def test_the_current_log_end_is_the_newest_sample() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    # Not recorded: log end 200 at 1010 s. Record 179 (end 180) at 1000 + 0.8 * 10 s.
    got = table.estimate(offsets(179, 200), now=1010.0)
    assert got.lag_s == pytest.approx(2.0)
    assert got.basis == "interpolated"


def test_caught_up_is_zero() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    assert table.estimate(offsets(100, 100), 1005.0).lag_s == 0.0
    assert table.estimate(offsets(100, 100), 1005.0).basis == "caught_up"


def test_unknown_without_a_commit_or_log_end() -> None:
    table = LagTable()
    assert table.estimate(offsets(None, 100), 1.0).basis == "unknown"
    assert table.estimate(offsets(5, None), 1.0).lag_s is None


def test_before_the_oldest_sample_is_a_lower_bound_or_the_record_timestamp() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    table.record("t", 0, 200, 1010.0)
    got = table.estimate(offsets(40, 200), now=1030.0)
    assert (got.lag_s, got.basis) == (30.0, "extrapolated")
    got = table.estimate(offsets(40, 200), now=1030.0, record_time=900.0)
    assert (got.lag_s, got.basis) == (130.0, "timestamp")
    assert {"extrapolated", "timestamp", "interpolated", "caught_up"} <= set(LAG_BASES)


def test_a_stopped_producer_keeps_the_time_of_the_first_flat_sample() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    table.record("t", 0, 200, 1010.0)
    for now in range(1020, 1100, 10):
        table.record("t", 0, 200, float(now))
    # The flat run keeps only its first and last samples.
    assert table.samples("t", 0) == [(100, 1000.0), (200, 1010.0), (200, 1090.0)]
    got = table.estimate(offsets(199, 200), now=1090.0)
    assert (got.lag_s, got.basis) == (80.0, "interpolated")


def test_below_the_log_start_counts_from_the_first_readable_record() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    table.record("t", 0, 200, 1010.0)
    # Records 50..149 were deleted unread; the next readable one is 150 (end 151).
    p = offsets(50, 200, log_start=150)
    assert p.deleted_unread == 100
    got = table.estimate(p, now=1020.0)
    assert got.lag_s == pytest.approx(20.0 - 5.1)
    assert got.basis == "interpolated"
    # Everything unread was deleted: nothing to read now.
    gone = offsets(50, 200, log_start=200)
    assert gone.deleted_unread == 150
    assert table.estimate(gone, 1020.0).basis == "caught_up"


def test_a_truncated_partition_starts_over() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    table.record("t", 0, 20, 1010.0)
    assert table.samples("t", 0) == [(20, 1010.0)]


def test_a_clock_going_back_drops_the_sample() -> None:
    table = LagTable()
    table.record("t", 0, 100, 1000.0)
    table.record("t", 0, 150, 999.0)
    assert table.samples("t", 0) == [(100, 1000.0)]


def test_bounded_samples_span_the_horizon_with_recent_ones_dense() -> None:
    table = LagTable(max_samples=64, horizon_s=3600.0)
    steady(table, rate=10.0, start=0.0, end=7200.0, step=5.0)
    ages = [7200.0 - t for _, t in table.samples("t", 0)]
    assert len(ages) <= 64
    assert ages[0] >= 3600.0  # the newest sample past the horizon, one only
    assert 3000.0 <= ages[1] < 3600.0  # the rest span most of it
    assert ages[-5:] == pytest.approx([20.0, 15.0, 10.0, 5.0, 0.0])  # recent: every round
    # A gap stays within a quarter of its age (plus a round): the relative error is bounded.
    for older, newer in itertools.pairwise(ages[1:]):
        assert older - newer <= 0.25 * older + 5.0


def test_a_producer_stop_survives_thinning() -> None:
    table = LagTable(max_samples=16, horizon_s=3600.0)
    steady(table, rate=10.0, start=0.0, end=100.0, step=5.0)  # end 1000 at 100 s
    for now in range(105, 400, 5):
        table.record("t", 0, 1000, float(now))
        table.record("t", 1, 0, float(now))  # another partition: no effect on this one
    assert (1000, 100.0) in table.samples("t", 0)
    got = table.estimate(offsets(999, 1000), now=400.0)
    assert got.lag_s == pytest.approx(300.0)


def test_steady_writes_give_the_exact_lag_at_any_age() -> None:
    table = LagTable(max_samples=64, horizon_s=3600.0)
    steady(table, rate=10.0, start=0.0, end=7200.0, step=5.0)
    for age in (3.0, 60.0, 600.0, 3000.0):
        written_at = 7200.0 - age  # record n is written at n / rate; it makes the end n + 1
        committed = round(10.0 * written_at) - 1
        got = table.estimate(offsets(committed, 72000), now=7200.0)
        assert got.lag_s == pytest.approx(age)
        assert got.basis == "interpolated"


def test_partitions_are_capped_and_the_unseen_forgotten() -> None:
    table = LagTable(max_partitions=2, forget_after_s=60.0)
    table.record_all([("a", 0, 1), ("a", 1, 1), ("b", 0, 1)], now=0.0)
    assert len(table) == 2
    assert table.overflow == 1
    table.record_all([("a", 0, 5)], now=30.0)
    assert len(table) == 2
    table.record_all([("a", 0, 9)], now=61.0)
    assert table.samples("a", 1) == []
    assert table.samples("a", 0) == [(1, 0.0), (5, 30.0), (9, 61.0)]


def test_with_lag_is_replace_with_the_time_lag() -> None:
    import dataclasses

    from kafka_health.consumer_groups.observation import PartitionOffsets

    for p in (PartitionOffsets("t", 1, 5, 0, 9, 2), PartitionOffsets.fast("t", 1, 5, 0, 9, 2)):
        got = p.with_lag(1.5, "interpolated")
        assert got == dataclasses.replace(p, lag_s=1.5, lag_basis="interpolated")
        assert (got.lag, p.lag_s) == (4, None)
