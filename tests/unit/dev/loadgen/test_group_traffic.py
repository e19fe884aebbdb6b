"""``bench load --groups``: the plan's checks and the command's refusal of a bad one (the
traffic itself runs on a real broker: tests/integration/test_bench_load.py)."""

from __future__ import annotations

import pytest

from kafka_health.cli import main
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.dev.loadgen.group_traffic import (
    GROUP_PREFIX,
    MAX_PARTITIONS,
    GroupTrafficPlan,
    group_name,
)


def test_a_plan_names_what_it_cannot_do() -> None:
    assert GroupTrafficPlan(10, 10).problem() == ""
    assert GroupTrafficPlan(10, 10).partitions == 100
    assert "--groups" in GroupTrafficPlan(0).problem()
    assert "--group-lag-s" in GroupTrafficPlan(1, 1, -1).problem()
    assert f"{MAX_PARTITIONS:,}" in GroupTrafficPlan(MAX_PARTITIONS, 2).problem()


def test_the_groups_are_watched_by_the_job_s_default_config() -> None:
    assert group_name(7).startswith(GROUP_PREFIX)
    assert ConsumerGroupsConfig().watched(group_name(7))


def test_the_command_refuses_a_bad_plan_before_touching_kafka(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["bench", "load", "--groups", "5000", "--partitions-per-group", "3",
                 "--seconds", "1"])  # fmt: skip
    assert code == 2
    assert "at most" in capsys.readouterr().err
