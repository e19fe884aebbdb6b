"""``kafka-health replay`` on broker logs holding a consumer-group rebalance storm, a rebalance
that outlasts ``rebalance_max_s`` and an offsets partition whose load never finishes: the
live rules' pages at the times the lines say, and the groups the load held up."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cli import main

pytestmark = pytest.mark.spark

FIXTURE = Path(__file__).parents[1] / "fixtures" / "replay" / "rebalance-storm"


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_a_rebalance_storm_replays_into_the_live_rules_pages(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "monitor.yaml"
    config.write_text("parsing:\n  log_timezone: UTC\n")
    report = tmp_path / "report.html"
    code = main(["replay", "--config", str(config), "--report", str(report), str(FIXTURE)])
    out, err = capsys.readouterr()
    assert code == 0, err[-3000:]
    lines = [json.loads(line) for line in out.splitlines()]
    notifications, end = lines[:-1], lines[-1]
    fired: dict[tuple[str, str], float] = {}
    for n in notifications:
        for a in n["alerts"]:
            if a["status"] == "firing":
                who = a["labels"].get("group") or a["labels"].get("broker_id", "")
                fired.setdefault((a["alertname"], who), n["at"])
    assert set(fired) == {
        ("ConsumerGroupRebalancing", "orders-consumer"),
        ("ConsumerGroupRebalancing", "billing-audit"),
        ("CoordinatorLoadStuck", "3"),
    }, fired

    # the storm: its 7th new generation in 10 minutes (generation 8) is over the limit of 6
    seventh = at("2021-04-16 17:57:03.002")
    storm = fired[("ConsumerGroupRebalancing", "orders-consumer")]
    assert seventh <= storm <= seventh + 10, storm - seventh
    # billing-audit: PreparingRebalance from 17:50:30, over rebalance_max_s (120 s) at 17:52:30
    too_long = at("2021-04-16 17:52:30.004")
    slow = fired[("ConsumerGroupRebalancing", "billing-audit")]
    assert too_long < slow <= too_long + 15, slow - too_long  # two rounds and a step
    # broker 3's load of __consumer_offsets-7 never finishes: stuck at 300 s
    load_began = at("2021-04-16 17:58:00.203")
    stuck = fired[("CoordinatorLoadStuck", "3")]
    assert load_began + 300 <= stuck <= load_began + 300 + 10, stuck - load_began

    assert [a["alertname"] for a in end["open_at_end"]] == ["CoordinatorLoadStuck"]
    loads = end["coordinator_loads"]
    assert [(x["broker_id"], x["partition"], x["ended_at"]) for x in loads] == [
        ("3", "__consumer_offsets-7", None)
    ], loads
    assert loads[0]["held"] == [{"group": "inventory-sync", "state": "Stable", "members": None}]
    page = report.read_text()
    assert "Offsets loads that held groups up" in page and "inventory-sync (Stable)" in page
    assert "orders-consumer" in page and "consumer group rebalance" in page
