"""Replay on event time, without Spark: the seed's second incident as events."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from tests.support.alerting_harness import RULES_FILE

from kafka_health.alerting.rule_config import load_rules
from kafka_health.config import MonitorConfig
from kafka_health.detectors.inputs import LogEvent
from kafka_health.detectors.session_timeouts import SESSION_TIMEOUT_EVENT
from kafka_health.replay.engine import replay_events

CST = timezone(timedelta(hours=8))


def ms(text: str) -> int:
    """A time as the seed's logs print it (China Standard Time)."""
    return int(datetime.fromisoformat(text).replace(tzinfo=CST).timestamp() * 1000)


def seed_incident() -> list[LogEvent]:
    """Broker 3 of the seed: a 6 s ZooKeeper session, Full GCs of 10.4 and 10.2 s a minute
    apart, leaders moving after each."""
    return [
        LogEvent(SESSION_TIMEOUT_EVENT, "3", ms("2019-05-15 22:20:14.399"),
                 session_timeout_ms=6000),
        LogEvent("full_gc", "3", ms("2019-05-15 22:25:59.422"), pause_s=10.3987109),
        LogEvent("leader_change", "3", ms("2019-05-15 22:26:10.100"), topic="zto_scan_rec",
                 partition=11, leader=5, leader_epoch=78),
        LogEvent("full_gc", "3", ms("2019-05-15 22:26:49.312"), pause_s=10.2331784),
        LogEvent("leader_change", "3", ms("2019-05-15 22:27:00.200"), topic="zto_big_marks_mq",
                 partition=46, leader=4, leader_epoch=1),
        # Then half an hour of young collections: the log stream's clock moves on.
        *[LogEvent("young_gc", "3", ms("2019-05-15 22:28:00.000") + k * 30_000, pause_s=0.05)
          for k in range(60)],
    ]  # fmt: skip


def test_the_seed_incident_replays_into_one_incident_naming_the_gc() -> None:
    replay = replay_events(seed_incident(), MonitorConfig(), load_rules(RULES_FILE))
    assert replay.events == 65
    firing = [a for n in replay.notifications for a in n.alerts if a["status"] == "firing"]
    assert {a["alertname"] for a in firing} >= {"FullGCPauseOverSessionTimeout"}
    groups = {n.group_key for n in replay.notifications}
    assert groups == {'{broker_id="3"}'}, "one incident, the broker's"
    first = replay.notifications[0]
    gc_at = ms("2019-05-15 22:25:59.422") / 1000
    assert gc_at <= first.at <= gc_at + 10, "paged when the log says, not at the wall clock"
    gc = next(a for a in firing if a["alertname"] == "FullGCPauseOverSessionTimeout")
    assert "6" in gc["summary"] or "session" in gc["summary"]
    resolved = [a for n in replay.notifications for a in n.alerts if a["status"] == "resolved"]
    assert {a["alertname"] for a in resolved} == {a["alertname"] for a in firing}, (
        "resolved once the later logs moved the window on"
    )
    assert replay.open_at_end == []


def test_what_still_fires_when_the_input_ends_is_reported_open() -> None:
    events = [e for e in seed_incident() if e.type != "young_gc"]
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE), tail_s=600)
    paged = [a["alertname"] for a in replay.open_at_end if not a["muted_by"]]
    assert paged == ["FullGCPauseOverSessionTimeout"], replay.open_at_end
    assert not any(a["status"] == "resolved" for n in replay.notifications for a in n.alerts)


def test_the_same_events_in_another_order_replay_the_same() -> None:
    rules = load_rules(RULES_FILE)
    a = replay_events(seed_incident(), MonitorConfig(), rules)
    b = replay_events(list(reversed(seed_incident())), MonitorConfig(), rules)
    assert [(n.at, n.idempotency_key) for n in a.notifications] == [
        (n.at, n.idempotency_key) for n in b.notifications
    ]


def test_the_report_is_one_self_contained_page_with_the_timeline_pages_and_chain(
    tmp_path: Path,
) -> None:
    from kafka_health.replay.inputs import SourcedEvent
    from kafka_health.replay.report import causal_chain, write_report

    events = seed_incident()
    sourced = [SourcedEvent(e, "broker-3/kafkaServer-gc.log", i + 1, f"line {i + 1}")
               for i, e in enumerate(events)]  # fmt: skip
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    page = tmp_path / "report.html"
    write_report(page, replay, sourced, MonitorConfig())
    text = page.read_text()
    assert "<script" in text and "Plotly.newPlot" in text
    assert 'src="http' not in text, "no script from the network"
    assert "FullGCPauseOverSessionTimeout" in text and "session timeout 6 s" in text
    steps = [s["step"] for s in causal_chain(sourced)]
    assert steps == ["Full GC pauses on broker 3", "partition leaders move"]
    assert causal_chain(sourced)[0]["evidence"][0] == "broker-3/kafkaServer-gc.log:2: line 2"


def test_a_threshold_change_is_judged_on_the_same_events(tmp_path: Path) -> None:
    """--compare-rules: the shipped rules page the seed's GC; rules where a Full GC pages only
    over 20 s would not have."""
    import yaml

    from kafka_health.commands.replay import compare

    raw = yaml.safe_load(RULES_FILE.read_text())
    raw["rules"]["FullGCPauseOverSessionTimeout"]["any_of"] = [
        {"signal": "full_gc_pause_seconds_max", "aggregate": "max", "op": ">", "threshold": 20}
    ]
    laxer = tmp_path / "laxer.yaml"
    laxer.write_text(yaml.safe_dump(raw))
    events = seed_incident()
    shipped = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    other = replay_events(events, MonitorConfig(), load_rules(laxer))
    found = compare(shipped.notifications, other.notifications)
    assert found["only_rules"] == ['FullGCPauseOverSessionTimeout {broker_id="3"}']
    assert found["rules"][0]["alert"] == "FullGCPauseOverSessionTimeout"


def test_two_failures_of_a_broker_two_minutes_apart_in_quiet_logs_are_two_incidents() -> None:
    """A bench run's logs (2026-11-25): broker 3 killed twice, 110 s apart, the controller's
    fencing line each time and nothing else in between. With no prober in a replay, a failure
    holds for the log window; the window must move with the logs' clock, not wait for the
    next line (which was the next failure: the two replayed as one episode)."""
    start = ms("2026-11-24 23:00:00.000")
    events = [
        LogEvent("broker_failure", "2", start + k * 110_000, subject_broker_id=3) for k in range(2)
    ]
    replay = replay_events(events, MonitorConfig(), load_rules(RULES_FILE))
    starts = sorted({
        a["starts_at"] for n in replay.notifications for a in n.alerts
        if a["alertname"] == "BrokerFailed" and a["status"] == "firing"
    })  # fmt: skip
    assert len(starts) == 2, starts
    assert all(0 <= at - start / 1000 - k * 110 <= 2 for k, at in enumerate(starts)), starts
