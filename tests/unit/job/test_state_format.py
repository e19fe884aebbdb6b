"""State files from other releases: an older one is read (upgrade in place), a newer one is a
clear refusal naming the release that wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support.alerting_harness import RULES_FILE

from kafka_health.alerting.rule_config import load_rules
from kafka_health.alerting.service import ALERT_STATE_FORMAT, AlertService
from kafka_health.config import AlertingConfig
from kafka_health.errors import StateFormatError
from kafka_health.job.state_file import STATE_FORMAT, read_state, write_state


def test_the_detector_state_says_its_format_and_reads_the_one_before(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    write_state(path, {"board": {"batch_ids": {"monitor": 7}}})
    saved = json.loads(path.read_text())
    assert saved["format"] == STATE_FORMAT and saved["written_by"]
    path.write_text(json.dumps({"board": {"batch_ids": {"monitor": 3}}}))  # format 1: none
    assert read_state(path) == {"board": {"batch_ids": {"monitor": 3}}}


def test_a_newer_detector_state_is_refused_with_its_release(tmp_path: Path) -> None:
    path = tmp_path / "monitor" / "detectors" / "state.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"format": STATE_FORMAT + 1, "written_by": "9.0.0", "board": {}}))
    with pytest.raises(StateFormatError, match=r"written by kafka-health 9\.0\.0") as found:
        read_state(path)
    assert str(tmp_path / "monitor") in str(found.value), "names the folder to delete"


def test_a_newer_alert_state_is_refused_an_older_one_is_read(tmp_path: Path) -> None:
    rules = load_rules(RULES_FILE)
    config = AlertingConfig(state_dir=str(tmp_path), receivers=[])
    (tmp_path / "state.json").write_text(json.dumps({"alerts": [], "signals": {}}))
    AlertService(config, rules).open()  # format 1
    newer = {"format": ALERT_STATE_FORMAT + 1, "written_by": "9.0.0", "alerts": []}
    (tmp_path / "state.json").write_text(json.dumps(newer))
    with pytest.raises(
        StateFormatError, match=r"alert state format \d+, written by kafka-health 9"
    ):
        AlertService(config, rules).open()


def test_the_state_is_written_as_the_json_module_writes_it(tmp_path: Path) -> None:
    """orjson (for speed) writes what ``json`` did: a detector's NamedTuples as lists, int
    keys as strings, and ``read_state`` reads it back."""
    from typing import NamedTuple

    class Kept(NamedTuple):
        send_ms: int
        latency_s: float | None
        broker: str

    document = {"board": {"kept": [Kept(1, 0.25, "2"), Kept(2, None, "3")], "by": {7: [1.5]}}}
    path = tmp_path / "state.json"
    write_state(path, document)
    expected = json.dumps({**document, "format": STATE_FORMAT}, separators=(",", ":"))
    saved = json.loads(path.read_text())
    assert {k: v for k, v in saved.items() if k != "written_by"} == json.loads(expected)
    read = read_state(path)
    assert read is not None
    assert read["board"] == {"kept": [[1, 0.25, "2"], [2, None, "3"]], "by": {"7": [1.5]}}
