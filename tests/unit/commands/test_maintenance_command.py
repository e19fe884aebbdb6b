"""``kafka-health maintenance start|list|end`` (issue 56): usable by a deploy's automation:
exit codes, ``--json``, and errors that name the flag."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from kafka_health.alerting.declared_maintenance import DeclaredMaintenance
from kafka_health.cli import main


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "monitor.yaml"
    path.write_text(yaml.safe_dump({"alerting": {"state_dir": str(tmp_path / "state")}}))
    return path


def cli(config: Path, *args: str) -> int:
    return main(["maintenance", "--config", str(config), *args])


def listed(
    config: Path, capsys: pytest.CaptureFixture[str], *flags: str
) -> list[dict[str, object]]:
    capsys.readouterr()
    assert cli(config, "list", "--json", *flags) == 0
    result: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return result


def test_start_list_end(config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = time.time()
    assert cli(config, "start", "--broker", "3", "--for", "10m", "--comment", "deploy 1.4") == 0
    assert "broker 3 in maintenance until" in capsys.readouterr().out
    assert cli(config, "start", "--broker", "1", "--for", "1h30m", "--author", "ci") == 0
    (one, three) = listed(config, capsys)
    assert (one["broker_id"], one["state"], one["created_by"]) == (1, "active", "ci")
    assert (three["broker_id"], three["comment"]) == (3, "deploy 1.4")
    assert 590 <= float(str(three["remaining_s"])) <= 600
    store = DeclaredMaintenance(tmp_path / "state" / "maintenance.json")
    store.reload()
    assert store.brokers(before + 1) == {"1", "3"}, "what the alert service reads"

    assert cli(config, "end", "--broker", "3") == 0
    assert "broker 3: maintenance ended" in capsys.readouterr().out
    assert [w["broker_id"] for w in listed(config, capsys)] == [1]
    assert [(w["broker_id"], w["state"]) for w in listed(config, capsys, "--all")] == [
        (1, "active"),
        (3, "ended"),
    ]
    assert cli(config, "end", "--all") == 0
    assert listed(config, capsys) == []


def test_start_json_prints_the_window(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(config, "start", "--broker", "0", "--for", "90s", "--json") == 0
    window = json.loads(capsys.readouterr().out)
    assert window["broker_id"] == 0 and window["state"] == "active"


def test_end_of_a_broker_not_in_maintenance_exits_1(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(config, "end", "--broker", "7") == 1
    assert "broker 7 is not in maintenance" in capsys.readouterr().err
    assert cli(config, "end", "--all") == 0, "nothing to end is not an error for --all"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["start", "--broker", "-1", "--for", "10m"], "argument --broker"),
        (["start", "--broker", "2147483648", "--for", "10m"], "argument --broker"),
        (["start", "--broker", "b3", "--for", "10m"], "argument --broker"),
        (["start", "--broker", "3", "--for", "25h"], "argument --for"),
        (["start", "--broker", "3", "--for", "0s"], "argument --for"),
        (["start", "--broker", "3", "--for", "ten minutes"], "argument --for"),
        (["start", "--broker", "3"], "--for"),
        (["start", "--for", "10m"], "--broker"),
        (["end"], "--broker"),
        (["end", "--broker", "3", "--all"], "argument --all"),
    ],
)
def test_a_bad_argument_exits_2_naming_the_flag(
    config: Path, capsys: pytest.CaptureFixture[str], args: list[str], flag: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli(config, *args)
    assert exited.value.code == 2
    assert flag in capsys.readouterr().err
    assert not (config.parent / "state" / "maintenance.json").exists()


def test_a_state_dir_that_cannot_be_written_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    config = tmp_path / "monitor.yaml"
    config.write_text(yaml.safe_dump({"alerting": {"state_dir": str(blocker / "state")}}))
    assert cli(config, "start", "--broker", "3", "--for", "10m") == 1
    assert "cannot write" in capsys.readouterr().err
