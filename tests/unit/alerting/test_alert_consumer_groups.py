"""The consumer-group rules of conf/alerts.yaml: a group behind its objective is one page,
routed to its owners (its objective's labels and severity), updated in place as the verdict
changes, resolved when it catches up; a group within its objective does not page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.alerting_harness import Harness, sig

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
        details = {"deleted_unread_total": 1200, "route": route}
        return [sig("consumergroup_status", 1, t, details, group="g", verdict=verdict)]

    h.run(0, 60, timeline)
    assert h.paged_rules() == ["ConsumerGroupRecordsDeletedUnread"]
    alert = h.pages()[0].alerts[0]
    assert alert.labels["severity"] == "critical", "data loss keeps the rule's severity"
    assert alert.labels["team"] == "payments"
    assert "1200 records were deleted" in alert.annotations["summary"]
