"""The consumer-group rules of conf/alerts.yaml: a group behind its objective is one page,
routed to its owners (its objective's labels and severity), updated in place as the verdict
changes, resolved when it catches up; a group within its objective does not page; a group a
broker holds up is listed in that broker's incident (BrokerHoldsUpConsumerGroups), never a
page of its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
    PartitionOffsets,
)
from kafka_health.detectors.consumer_causes import unhealthy_brokers
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.model import Signal

ROUTE = {"severity": "critical", "labels": {"team": "payments"}}


def ratio(t: float, value: float, verdict: str) -> Signal:
    details: dict[str, Any] = {
        "group": "payments-reader", "verdict": verdict, "max_lag_s": 20.0 * value,
        "objective_s": 20.0, "state": "Empty", "members": 0, "coordinator": 2, "sum_lag": 900,
        "worst_partitions": ["payments/0"], "route": ROUTE,
    }  # fmt: skip
    return sig("consumergroup_lag_objective_ratio", value, t, details, group="payments-reader")


def test_behind_its_objective_pages_once_to_its_owners_and_resolves(tmp_path: Path) -> None:
    h = Harness(tmp_path)

    def timeline(t: float) -> list[Signal]:
        if t < 60:
            return [ratio(t, 0.5, "ok")]  # behind, but within its objective: no page
        if t < 120:
            return [ratio(t, 1.5, "stopped")]
        if t < 180:
            return [ratio(t, 2.5, "stalled")]  # the verdict changes: the same incident
        return [ratio(t, 0.1, "ok")]

    h.run(0, 300, timeline)
    assert h.paged_rules() == ["ConsumerGroupLagging"]
    page = h.pages()[0]
    alert = page.alerts[0]
    assert alert.labels["group"] == "payments-reader"
    assert alert.labels["team"] == "payments", "routed to the group's owners"
    assert alert.labels["severity"] == "critical", "the objective's severity"
    assert "30 s behind" in alert.annotations["summary"]
    assert "stopped" in alert.annotations["summary"]
    assert len(h.resolutions("ConsumerGroupLagging")) == 1


def test_records_deleted_unread_page_with_the_rules_severity(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    route = {"severity": "info", "labels": {"team": "payments"}}

    def timeline(t: float) -> list[Signal]:
        verdict = "behind_retention" if t >= 30 else "ok"
        details = {"deleted_unread_now": 300, "deleted_unread_total": 1200, "route": route}
        return [sig("consumergroup_status", 1, t, details, group="g", verdict=verdict)]

    h.run(0, 60, timeline)
    assert h.paged_rules() == ["ConsumerGroupRecordsDeletedUnread"]
    alert = h.pages()[0].alerts[0]
    assert alert.labels["severity"] == "critical", "data loss keeps the rule's severity"
    assert alert.labels["team"] == "payments"
    # This incident's loss, and the job's count since it started (a group that lost records
    # before and again now: the total is not this incident's).
    assert (
        "300 records were deleted before it read them (1200 since the monitor started)"
        in (alert.annotations["summary"])
    )


# ---------------------------------------------------------------- the cause named, once

PAY = GroupObjective("pay.*", lag_objective_s=30.0, severity="critical", labels={"team": "pay"})
GROUPS = ConsumerGroupsConfig(interval_s=5.0, stall_window_s=20.0, objectives=[PAY])
KILLED_AT, BACK_AT = 100.0, 200.0


def coordinator_kill() -> Callable[[float], list[Signal]]:
    """The fault suite's coordinator-kill, as the job would report it: broker 2 coordinates
    group pay-1 and is SIGKILLed at 100 s (its port refuses, the metadata says crash); the
    group cannot be read, then broker 3 coordinates it and it stays behind (past its 30 s
    objective) while its consumers rejoin; broker 2 is back at 200 s and the group catches
    up. The consumer-group series are the real detector's, with the brokers' health the
    board hands it."""
    det = ConsumerGroups(GROUPS)

    def group_round(t: float) -> GroupObservation:
        at_ms = round((T0 + t) * 1000)
        if t < KILLED_AT:
            p = PartitionOffsets("orders", 0, int(10 * t), 0, int(10 * t) + 5, 1, 0.5)
            return GroupObservation("pay-1", at_ms, "Stable", 1, coordinator=2, partitions=(p,))
        if t <= KILLED_AT + 10:
            return GroupObservation("pay-1", at_ms, "Unknown", 0, coordinator=2,
                                    error="ListGroups failed: KafkaConnectionError")  # fmt: skip
        if t < BACK_AT + 20:  # unmoved, then consuming but still behind
            committed = 950 if t < BACK_AT else int(10 * t) - 400
            lag_s = t - 95.0 if t < BACK_AT else 60.0
            p = PartitionOffsets("orders", 0, committed, 0, int(10 * t), 1, lag_s)
        else:
            p = PartitionOffsets("orders", 0, int(10 * t) - 5, 0, int(10 * t), 1, 0.5)
        return GroupObservation("pay-1", at_ms, "Stable", 1, coordinator=3, partitions=(p,))

    def signals(t: float) -> list[Signal]:
        if t % 5 == 0:
            det.observe(GroupsRound(round((T0 + t) * 1000), (group_round(t),)))
        down = KILLED_AT <= t < BACK_AT
        brokers = [
            sig("broker_unanswered_seconds", t - KILLED_AT if down else 0.0, t,
                broker_id=2, reason="refused" if down else "answered"),
            sig("broker_unanswered_seconds", 0.0, t, broker_id=3, reason="answered"),
        ]  # fmt: skip
        if down:
            brokers.append(sig("broker_shutdown_evidence", 1, t, broker_id=2, evidence="crash"))
        return brokers + det.signals(T0 + t, unhealthy_brokers(brokers))

    return signals


def test_coordinator_kill_is_one_incident_about_the_broker_listing_the_group(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    h.run(0, 320, coordinator_kill(), step=1, snapshot=True)
    assert sorted(set(h.paged_rules())) == ["BrokerHoldsUpConsumerGroups", "BrokerNotAnswering"]
    assert list(h.incidents()) == ['{broker_id="2"}'], "one incident: broker 2's"
    assert not h.alerts("ConsumerGroupLagging"), "the group never paged on its own"
    assert not h.alerts("ConsumerGroupRebalancing")
    held = next(a for n in h.pages() for a in n.alerts
                if a.labels["alertname"] == "BrokerHoldsUpConsumerGroups")  # fmt: skip
    assert held.labels["broker_id"] == "2" and "team" not in held.labels, "the Kafka on-call's"
    assert "pay-1" in held.annotations["summary"]
    assert "team=pay" in held.annotations["description"], "the owners, in the details"
    assert "its coordinator, broker 2" in held.annotations["description"]
    first = h.pages()[0]
    assert [a.labels["alertname"] for a in first.alerts] == ["BrokerNotAnswering"]
    assert h.resolutions("BrokerHoldsUpConsumerGroups"), "resolved once the group caught up"


def test_a_group_behind_with_every_broker_healthy_pages_its_owners(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    det = ConsumerGroups(GROUPS)

    def timeline(t: float) -> list[Signal]:
        lag_s = 0.5 if t < 30 else t - 20
        p = PartitionOffsets("orders", 0, 100, 0, int(100 + 10 * t), 1, lag_s)
        at_ms = round((T0 + t) * 1000)
        group = GroupObservation("pay-1", at_ms, "Stable", 1, coordinator=2, partitions=(p,))
        det.observe(GroupsRound(at_ms, (group,)))
        healthy = [sig("broker_unanswered_seconds", 0.0, t, broker_id=2, reason="answered")]
        return healthy + det.signals(T0 + t, unhealthy_brokers(healthy))

    h.run(0, 90, timeline, snapshot=True)
    assert set(h.paged_rules()) == {"ConsumerGroupLagging"}
    alert = h.pages()[0].alerts[0]
    assert (alert.labels["group"], alert.labels["team"]) == ("pay-1", "pay")
    assert list(h.incidents()) == ['{group="pay-1"}']
