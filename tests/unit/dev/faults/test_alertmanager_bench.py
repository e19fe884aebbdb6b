"""``bench faults --via-alertmanager`` without Kafka: the Alertmanager config the bench runs
(the README's example, receivers swapped; checked with the real amtool), the monitor's second
receiver, the judgement of the page behind Alertmanager and its columns in the report."""

from __future__ import annotations

import json
import re
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml
from tests.support.system_tools import run, tool

from kafka_health.commands.bench import ALERTMANAGER_EXAMPLE
from kafka_health.config import MonitorConfig, ReceiverConfig
from kafka_health.dev.faults.alertmanager import (
    EXAMPLE,
    RECEIVER_NAME,
    bench_config,
    load,
    route_timing,
    with_alertmanager,
)
from kafka_health.dev.faults.receiver import Page, RecordingReceiver
from kafka_health.dev.faults.report import summarize, table
from kafka_health.dev.faults.runner import (
    RunResult,
    ViaAlertmanager,
    healthy_reason,
    judge_via_alertmanager,
    one_line,
)
from kafka_health.dev.faults.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[4]
KILL = SCENARIOS["broker-kill"]
HOOK = "http://127.0.0.1:40001/pager"


def test_the_bench_runs_the_readmes_example_route() -> None:
    """The README shows the example file's route; the bench runs that file by default."""
    assert EXAMPLE == ALERTMANAGER_EXAMPLE == REPO / "conf" / "alertmanager.example.yml"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Direct receivers or your Alertmanager", 1)[1].split("\n### ")[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1
    example = load(EXAMPLE)
    assert yaml.safe_load(blocks[0]) == {"route": example["route"]}
    assert route_timing(example) == {
        "group_by": ["cluster", "broker_id", "group"],
        "group_wait": "1s",
        "group_interval": "10s",
        "repeat_interval": "4h",
    }


def test_the_bench_config_keeps_the_route_and_swaps_every_receiver(tmp_path: Path) -> None:
    example = {
        "global": {"resolve_timeout": "5m"},
        "templates": ["/etc/alertmanager/*.tmpl"],
        "route": {
            "receiver": "pager",
            "group_by": ["cluster"],
            "group_wait": "2s",
            "routes": [{"receiver": "chat", "matchers": ['severity="warning"']}],
        },
        "receivers": [
            {"name": "pager", "pagerduty_configs": [{"routing_key": "secret"}]},
            {"name": "chat", "slack_configs": [{"api_url": "https://hooks.example/x"}]},
        ],
        "inhibit_rules": [{"source_matchers": ['a="1"'], "target_matchers": ['b="2"']}],
    }
    original = json.loads(json.dumps(example))
    config = bench_config(example, HOOK)
    assert example == original  # not changed in place
    assert config["route"] == example["route"]
    assert config["inhibit_rules"] == example["inhibit_rules"]
    assert config["global"] == example["global"]
    assert "templates" not in config
    hook = [{"url": HOOK, "send_resolved": True}]
    assert config["receivers"] == [
        {"name": "pager", "webhook_configs": hook},
        {"name": "chat", "webhook_configs": hook},
    ]
    assert route_timing(config) == {
        "group_by": ["cluster"],
        "group_wait": "2s",
        "group_interval": "5m",  # Alertmanager's defaults where the route says nothing
        "repeat_interval": "4h",
    }


def test_amtool_accepts_the_example_and_the_bench_config(tmp_path: Path) -> None:
    rendered = tmp_path / "alertmanager.yml"
    rendered.write_text(yaml.safe_dump(bench_config(load(EXAMPLE), HOOK)), encoding="utf-8")
    for config in (EXAMPLE, rendered):
        result = run(tool("amtool"), "check-config", str(config))
        assert result.returncode == 0, result.stdout + result.stderr


def test_load_refuses_a_config_without_route_or_receivers(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    for text in ("[1, 2]", "receivers: []", "route: {receiver: x}\nreceivers: [{}]", "a: ["):
        bad.write_text(text, encoding="utf-8")
        try:
            load(bad)
        except ValueError as exc:
            assert str(bad) in str(exc)
        else:
            raise AssertionError(f"accepted: {text!r}")


def test_the_monitor_gets_an_alertmanager_api_receiver_beside_the_direct_one() -> None:
    direct = ReceiverConfig(name="console", url=HOOK, timeout_s=5.0)
    base = MonitorConfig()
    base = MonitorConfig(alerting=type(base.alerting)(receivers=[direct]))
    config = with_alertmanager(base, "http://127.0.0.1:40002")
    direct_after, behind = config.alerting.receivers
    assert direct_after == direct
    assert (behind.name, behind.format, behind.url) == (
        RECEIVER_NAME,
        "alertmanager_api",
        "http://127.0.0.1:40002",
    )
    assert behind.resend_s == ReceiverConfig().resend_s  # as shipped
    assert behind.check("r") == []


def rfc3339(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def am_alert(name: str, status: str, starts: float, broker: str = "3") -> dict[str, Any]:
    """An alert as Alertmanager's webhook carries it."""
    return {
        "status": status,
        "labels": {"alertname": name, "broker_id": broker, "cluster": "c"},
        "annotations": {},
        "startsAt": rfc3339(starts),
        "fingerprint": f"{name}{broker}",
    }


def am_page(at: float, *alerts: dict[str, Any], group: str = '{}:{broker_id="3"}') -> Page:
    status = "firing" if any(a["status"] == "firing" for a in alerts) else "resolved"
    return Page(at=at, idempotency_key="", group_key=group, status=status, alerts=list(alerts))


T0 = 1_800_000_000.0
"""The injection."""


def test_the_page_behind_alertmanager_is_timed_from_the_same_injection() -> None:
    failed = am_alert("BrokerFailed", "firing", T0 + 5.0)
    pages = [
        am_page(T0 + 2.0, am_alert("CanaryWriteLatencyHigh", "firing", T0 + 1.0)),  # not it
        am_page(T0 + 7.5, failed),
        am_page(T0 + 60.0, am_alert("BrokerFailed", "resolved", T0 + 5.0)),
    ]
    via = judge_via_alertmanager(
        KILL, pages, T0, undone_at=T0 + 40.0, bound_at=T0 + 180.0, for_s={"BrokerFailed": 1.0}
    )
    assert (via.first_page_at, via.latency_s, via.alert) == (T0 + 7.5, 7.5, "BrokerFailed")
    assert via.group_wait_and_delivery_s == 1.5  # 7.5 - 5.0 (startsAt) - 1.0 (for)
    assert (via.notifications, via.duplicates, via.resolved_after_s) == (3, 0, 20.0)
    late = judge_via_alertmanager(KILL, pages, T0, T0 + 40.0, bound_at=T0 + 7.0, for_s={})
    assert late.latency_s is None and late.first_page_at is None


def test_a_repeat_interval_reminder_and_a_refiring_are_duplicates_behind_alertmanager() -> None:
    firing = am_alert("BrokerNotAnswering", "firing", T0 + 5.0)
    pages = [
        am_page(T0 + 6.0, firing),
        am_page(T0 + 6.0 + 4 * 3600, firing),  # the same group, unchanged: a reminder
        am_page(T0 + 7.0 + 4 * 3600, am_alert("BrokerNotAnswering", "resolved", T0 + 5.0)),
        am_page(T0 + 8.0 + 4 * 3600, firing),  # firing again after its resolution
    ]
    via = judge_via_alertmanager(KILL, pages, T0, T0 + 10.0, T0 + 180.0, {})
    assert via.duplicates == 2, via.duplicate_details
    assert via.resolved_after_s is None  # its group is firing again


def test_the_report_shows_the_page_behind_alertmanager_beside_the_direct_one() -> None:
    runs = [
        RunResult("broker-kill", "kraft", latency_s=6.0, expected_alert=KILL.describe_expected(),
                  via_alertmanager=ViaAlertmanager(latency_s=7.0, duplicates=1)),
        RunResult("broker-kill", "kraft", latency_s=8.0,
                  via_alertmanager=ViaAlertmanager(latency_s=8.5)),
        RunResult("broker-kill", "kraft", missed=True,
                  via_alertmanager=ViaAlertmanager(missed=True)),
    ]  # fmt: skip
    s = summarize(runs)["broker-kill"]
    assert (s["p50_s"], s["missed"], s["duplicates"]) == (6.0, 1, 0)  # the direct receiver's
    assert (s["am_p50_s"], s["am_p95_s"], s["am_max_s"]) == (7.0, 8.5, 8.5)
    assert (s["am_missed"], s["am_duplicates"], s["am_extra_p50_s"]) == (1, 1, 0.5)
    header, row = table({"broker-kill": s}).splitlines()
    titles = re.split(r"\s{2,}", header)
    assert titles[-7:] == ["AM p50 s", "AM p95 s", "AM max s", "AM missed", "AM dup",
                           "AM incidents max", "AM-direct p50 s"]  # fmt: skip
    assert row.split()[-7:] == ["7.0", "8.5", "8.5", "1", "1", "0", "0.5"]
    assert json.dumps(runs[0].to_json()["via_alertmanager"])  # in the JSON, per run
    direct_only = summarize([RunResult("broker-kill", "kraft", latency_s=6.0)])
    assert "am_p50_s" not in direct_only["broker-kill"]
    assert "AM" not in table(direct_only)
    assert one_line(runs[0]).startswith("page after 6.0 s (via Alertmanager 7.0 s)")
    assert "1 duplicate(s) via Alertmanager" in one_line(runs[0])


def test_the_receiver_takes_every_request_without_a_key_as_a_notification() -> None:
    """Alertmanager's webhook sends no Idempotency-Key: its reminders must not be taken for
    a sender's retries."""
    receiver = RecordingReceiver().start()
    body = json.dumps({"groupKey": "g", "status": "firing", "alerts": []}).encode()
    try:
        for _ in range(2):
            request = urllib.request.Request(receiver.url, data=body, method="POST")
            with urllib.request.urlopen(request, timeout=5) as answer:
                assert answer.status == 200
    finally:
        receiver.stop()
    assert len(receiver.pages) == 2 and receiver.repeats_after_ack == []


def test_the_steady_state_waits_for_the_groups_open_behind_alertmanager() -> None:
    cluster: Any = SimpleNamespace(nodes=[])
    metrics = {
        ("kafka_health_job_last_batch_timestamp", (("query", "monitor"),)): 4e9,
        ("kafka_health_canary_availability_ratio", ()): 1.0,
    }
    quiet: Any = SimpleNamespace(open_groups=lambda: set())
    open_behind: Any = SimpleNamespace(open_groups=lambda: {'{}:{broker_id="3"}'})
    assert healthy_reason(cluster, metrics, quiet) is None
    assert healthy_reason(cluster, metrics, quiet, quiet) is None
    assert healthy_reason(cluster, metrics, quiet, open_behind) == (
        "incidents still open behind Alertmanager: ['{}:{broker_id=\"3\"}']"
    )
