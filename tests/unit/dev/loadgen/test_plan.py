"""The load plan: how many records are due when, storms included."""

from __future__ import annotations

import pytest

from kafka_health.dev.loadgen.producer import LoadPlan, _planned


def test_a_steady_plan_is_rate_times_seconds() -> None:
    plan = LoadPlan(rate=200, seconds=60)
    assert _planned(plan, 0) == 0
    assert _planned(plan, 2.5) == pytest.approx(500)
    assert not any(plan.storming(t) for t in range(60))


def test_a_storm_is_the_last_seconds_of_each_period_at_the_factor() -> None:
    plan = LoadPlan(rate=100, storm_every_s=60, storm_seconds=15, storm_factor=10)
    assert [plan.storming(t) for t in (0, 44.9, 45, 59.9, 60, 105)] == [
        False, False, True, True, False, True,
    ]  # fmt: skip
    assert _planned(plan, 60) == pytest.approx(45 * 100 + 15 * 1000)
    assert _planned(plan, 45.5) == pytest.approx(45 * 100 + 0.5 * 1000)
