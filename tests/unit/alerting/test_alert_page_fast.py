"""Page fast, then name the cause in the same incident; a stale source is unknown, not
healthy. Timelines on a fake clock, delivered over real HTTP (see alerting_harness)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tests.support.alerting_harness import T0, Harness, sig, with_window_failures

from kafka_health.alerting.webhook import render
from kafka_health.config import Secret
from kafka_health.model import Signal

TIMEOUT = "TimeoutException"


def frozen_broker_3(thaw_at: float, fenced_at: float | None = 10.0) -> object:
    """Broker 3 stops at t=0 (a Full GC pause or SIGSTOP). Probes to it time out after 3 s,
    the job reports the failures from t=4; the controller fences it at ``fenced_at``; when it
    resumes at ``thaw_at`` the JVM logs the pause (seen one second later), and its canary
    partitions recover (the 60 s window keeps the failures for a minute)."""

    def signals(t: float) -> list[Signal]:
        out = [sig("canary_availability_ratio", 1.0, t, broker_id=b) for b in (1, 2)]
        failing = 4 <= t < thaw_at + 60
        out.append(sig("canary_availability_ratio", 0.8 if failing else 1.0, t, broker_id=3))
        if failing:
            out.append(sig("canary_send_failures", 12, t, broker_id=3, error_class=TIMEOUT))
        if fenced_at is not None and fenced_at <= t < fenced_at + 60:
            out.append(sig("broker_failures", 1, t, broker_id=3))
        if thaw_at + 1 <= t < thaw_at + 61:
            out += [
                sig("full_gc_count", 1, t, broker_id=3),
                sig("full_gc_over_session_timeout", 1, t, {"session_timeout_s": 9},
                    broker_id=3),
            ]  # fmt: skip
        return out

    return signals


def test_freeze_pages_at_once_then_the_same_incident_names_the_gc_and_resolves(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    h.run(0, 100, frozen_broker_3(thaw_at=12.0), step=1)  # type: ignore[arg-type]
    h.run(105, 1100, frozen_broker_3(thaw_at=12.0), step=5)  # type: ignore[arg-type]

    [(key, notes)] = h.incidents().items()
    assert key == '{broker_id="3"}', "one incident, for the broker the fault touched"
    reasons = [n.reason for n in notes]
    assert reasons == ["first", "cause", "cause", "resolved", "resolved", "resolved"], reasons
    first, fenced, gc, *_ = notes
    resolved = notes[-1]

    # 1. The symptom, within the budget, with what may cause it.
    assert first.created_at - T0 == 5.0, "seen at 4, group_wait_s 1"
    [symptom] = first.alerts
    assert symptom.labels["alertname"] == "CanaryWriteFailure"
    assert "hung or paused" in symptom.annotations["candidates"]
    assert f"(probe errors: {TIMEOUT})" in symptom.annotations["candidates"]
    # 2. The controller's fencing: the same incident, at once, naming it.
    assert fenced.created_at - T0 == 10.0
    by_rule = {a.labels["alertname"]: a for a in fenced.alerts}
    assert by_rule["CanaryWriteFailure"].annotations["cause"] == (
        "The controller saw broker 3 fail"
    )
    # 3. The GC line, written when the JVM resumed at 12: the same incident names the GC.
    assert gc.created_at - T0 == 13.0, "not after a group_interval"
    by_rule = {a.labels["alertname"]: a for a in gc.alerts}
    assert set(by_rule) == {"FullGCPauseOverSessionTimeout", "BrokerFailed", "CanaryWriteFailure"}
    assert (
        by_rule["FullGCPauseOverSessionTimeout"]
        .annotations["cause"]
        .startswith("Full GC on broker 3 paused it longer than its session timeout")
    )
    for symptom_rule in ("BrokerFailed", "CanaryWriteFailure"):
        assert by_rule[symptom_rule].annotations["cause"].startswith("Full GC pause on broker 3")
    # 4. Each alert resolves in the same incident (keep_firing_for: BrokerFailed 10 s, canary
    # 20 s, the GC 900 s); the last resolution closes it.
    assert resolved.status == "resolved"
    told = {a.labels["alertname"] for n in notes[3:] for a in n.alerts if a.status == "resolved"}
    assert told == set(by_rule)
    # The same incident in each format: groupKey, dedup_key, the Slack tag.
    receiver = h.service.retry.receivers["pager"]
    pagerduty = dataclasses.replace(receiver, format="pagerduty", routing_key=Secret(env="K"))
    events = [json.loads(render(n, pagerduty, "K")) for n in notes]
    assert len({e["dedup_key"] for e in events}) == 1
    assert [e["event_action"] for e in events] == ["trigger"] * 5 + ["resolve"]
    assert "possible causes: the broker is hung or paused" in events[0]["payload"]["summary"]
    assert "cause: Full GC on broker 3" in events[2]["payload"]["summary"]
    assert len({json.loads(render(n, receiver))["groupKey"] for n in notes}) == 1
    assert len({n.idempotency_key for n in notes}) == 6, "each update is a new notification"


def test_a_gc_seen_within_the_group_wait_is_on_the_first_page(tmp_path: Path) -> None:
    """A short pause: the GC line arrives before the group wait ends; one page names it."""
    h = Harness(tmp_path)
    h.run(0, 60, frozen_broker_3(thaw_at=4.0, fenced_at=None), step=1)  # type: ignore[arg-type]
    [page] = h.pages()
    assert page.created_at - T0 == 5.0, "the GC, a root cause, waits only root_group_wait_s"
    by_rule = {a.labels["alertname"]: a for a in page.alerts}
    assert set(by_rule) == {"FullGCPauseOverSessionTimeout"}, "the symptom is muted"
    assert (
        "Canary writes fail on broker 3"
        in by_rule["FullGCPauseOverSessionTimeout"].annotations["explains"]
    )
    assert h.updates() == []


def test_a_stale_canary_pages_blindness_and_holds_its_alerts(tmp_path: Path) -> None:
    """The canary stops at t=60 while broker 2's canary alert fires: the job leaves the canary's
    values out and reports the source stale. The alert service pages MonitorBlind naming the
    source, and broker 2's alert neither resolves (unknown is not healthy) nor re-pages; when
    the canary returns healthy, it resolves."""
    h = Harness(tmp_path)

    def publish(t: float, signals: list[Signal]) -> None:
        h.clock.now = T0 + t
        h.service.publish(with_window_failures(signals))  # a full snapshot, as the job publishes
        h.service.step()
        h.service.deliver()

    def canary(t: float, ratio_2: float) -> list[Signal]:
        return [
            sig("canary_availability_ratio", 1.0, t, broker_id=1),
            sig("canary_availability_ratio", ratio_2, t, broker_id=2),
            sig("signal_stale", 0, t, source="canary"),
        ]

    for t in range(0, 60, 2):
        publish(t, canary(t, 0.5))
    assert h.paged_rules() == ["CanaryWriteFailure"]
    for t in range(60, 300, 2):  # stale: no canary values, only the staleness
        publish(t, [sig("signal_stale", 1, t, {"age_s": t - 58, "stale_after_s": 23},
                        source="canary")])  # fmt: skip
    assert h.firing("CanaryWriteFailure"), "held: its values are unknown, not healthy"
    blind = [n for n in h.pages() if n.alerts[0].labels["alertname"] == "MonitorBlind"]
    assert len(blind) == 1 and blind[0].created_at - T0 == 62.0, "group_wait 2 s, 2 s ticks"
    summary = blind[0].alerts[0].annotations["summary"]
    assert summary.startswith("kafka-health sees no new canary data"), summary
    assert h.resolutions() == []
    for t in range(300, 400, 2):
        publish(t, canary(t, 1.0))
    assert not h.firing("CanaryWriteFailure") and not h.firing("MonitorBlind")
    assert {a.labels["alertname"] for n in h.resolutions() for a in n.alerts} == {
        "CanaryWriteFailure",
        "MonitorBlind",
    }
    assert h.paged_rules() == ["CanaryWriteFailure", "MonitorBlind"], "no second page"


def test_a_cause_whose_value_changes_is_not_a_new_update(tmp_path: Path) -> None:
    """UnderMinIsr explains broker 1's NotEnoughReplicas failures; its summary carries the
    partition count, which keeps changing: the incident is updated once, when it is named."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        return [
            sig("canary_availability_ratio", 0.5, t, broker_id=1),
            sig("canary_send_failures", 30, t, broker_id=1, error_class="NotEnoughReplicas"),
            sig("under_min_isr_partitions", 2 + int(t) % 5, t, broker_id=1),
        ]

    h.run(0, 120, signals, step=1)
    assert [n.reason for n in h.sent] == ["first", "cause"]


def test_a_broker_seen_back_does_not_explain_its_next_fault(tmp_path: Path) -> None:
    """Broker 3 failed and came back; 90 s later it hangs again. Its canary failure is a new
    fault and pages after the group wait, not muted as a symptom of the old failure until the
    controller reports the new one (seen in the fault suite: every fault after the first on
    the same broker paged only via BrokerFailed, 3-5 s later)."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        out = [sig("broker_failures", 1 if t < 20 or t >= 113 else 0, t, broker_id=3)]
        if t >= 110:
            failures = sig("canary_send_failures", 4, t, broker_id=3, error_class="Timeout")
            out += [sig("canary_availability_ratio", 0.6, t, broker_id=3), failures]
        else:
            out.append(sig("canary_availability_ratio", 1.0, t, broker_id=3))
        return out

    h.run(0, 112, signals, step=1)
    first = [p for p in h.pages() if p.reason == "first" and p.created_at - T0 > 100]
    assert [[a.labels["alertname"] for a in p.alerts] for p in first] == [["CanaryWriteFailure"]]
    assert first[0].created_at - T0 == 111.0, "seen at 110, group_wait_s 1"


def test_the_evaluation_wakes_when_a_group_wait_ends_not_at_the_next_tick(
    tmp_path: Path,
) -> None:
    """A symptom seen at 4.3 s is due at 5.3 s (group_wait_s 1): the service's next wait
    ends then, not at its next 1 s tick (after 5.3 s when the tick comes at 4.5 s)."""
    h = Harness(tmp_path, tick_s=1.0)
    signals = frozen_broker_3(thaw_at=100.0, fenced_at=None)
    h.tick(0.0, signals(0.0))  # type: ignore[operator]
    assert h.service.next_wait_s() == h.config.tick_s, "nothing waits: the tick"
    h.tick(4.3, signals(4.3))  # type: ignore[operator]
    assert h.pages() == []
    assert abs(h.service.next_wait_s() - 1.0) < 1e-6, "the tick and the group wait coincide"
    h.clock.now = T0 + 4.5
    assert abs(h.service.next_wait_s() - 0.8) < 1e-6, "the group wait ends at 5.3"
    h.tick(5.3, signals(5.3))  # type: ignore[operator]
    [page] = h.pages()
    assert abs(page.created_at - T0 - 5.3) < 1e-6
    assert h.service.next_wait_s() == h.config.tick_s, "paged: nothing waits"


def test_a_group_whose_alerts_are_gone_leaves_no_due_time_behind() -> None:
    """A group waiting at one evaluation and not seen at the next (its alerts gone before
    its first page) must not keep the evaluation waking every 10 ms for a past due time."""
    from kafka_health.alerting.group import GroupTimers
    from kafka_health.alerting.notify_log import NotifyReason

    timers = GroupTimers(group_wait_s=1.0, group_interval_s=10.0)
    timers.begin_evaluation()
    assert not timers.due("pager", '{broker_id="3"}', NotifyReason.FIRST, None, 100.0)
    assert timers.next_due() == 101.0
    timers.begin_evaluation()  # the next evaluation does not see that group
    assert timers.next_due() is None
