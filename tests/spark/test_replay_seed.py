"""``kafka-health replay`` on the real log lines of the seeds' second incident: one incident,
the broker's GC named, at the times the logs say."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from kafka_health.cli import main

pytestmark = pytest.mark.spark

SEED = Path(__file__).parents[1] / "fixtures" / "replay" / "seed-002"
CST = timezone(timedelta(hours=8))


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=CST).timestamp()


def test_the_seed_incident_replays_into_one_incident_naming_the_gc(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "monitor.yaml"
    config.write_text("parsing:\n  log_timezone: Asia/Shanghai\n")
    report = tmp_path / "report.html"
    code = main(["replay", "--config", str(config), "--report", str(report), str(SEED)])
    out, err = capsys.readouterr()
    assert code == 0, err[-3000:]
    lines = [json.loads(line) for line in out.splitlines()]
    notifications, end = lines[:-1], lines[-1]
    assert {n["group_key"] for n in notifications} == {'{broker_id="3"}'}, "one incident"
    gc = [
        (n["at"], a) for n in notifications for a in n["alerts"]
        if a["alertname"] == "FullGCPauseOverSessionTimeout" and a["status"] == "firing"
    ]  # fmt: skip
    assert gc, notifications
    first_at, alert = gc[0]
    pause_began = at("2019-05-15 22:25:59.422")
    assert pause_began <= first_at <= pause_began + 15, first_at - pause_began
    assert alert["labels"]["broker_id"] == "3"
    assert "open_at_end" in end
    page = report.read_text()
    assert "Full GC pauses on broker 3" in page and "kafkaServer-gc.log" in page
    assert "session timeout 6 s" in page, "the broker's own session timeout, from its log"
