"""The fault suite's judgement of a run, on timelines of pages (no Kafka, no Spark)."""

from __future__ import annotations

from typing import Any

from kafka_health.dev.faults.evaluate import judge, resolved
from kafka_health.dev.faults.receiver import Page
from kafka_health.dev.faults.report import percentile, summarize, table
from kafka_health.dev.faults.runner import RunResult
from kafka_health.dev.faults.scenarios import SCENARIOS, Scenario

KILL = SCENARIOS["broker-kill"]


def alert(name: str, status: str = "firing", broker: str = "3", fp: str = "") -> dict[str, Any]:
    labels = {"alertname": name, **({"broker_id": broker} if broker else {})}
    return {
        "status": status,
        "labels": labels,
        "annotations": {},
        "fingerprint": fp or name + broker,
    }


def page(at: float, key: str, group: str, *alerts: dict[str, Any]) -> Page:
    status = "firing" if any(a["status"] == "firing" for a in alerts) else "resolved"
    return Page(at=at, idempotency_key=key, group_key=group, status=status, alerts=list(alerts))


def test_the_page_is_the_first_expected_alert_about_the_touched_broker() -> None:
    pages = [
        page(10.0, "k1", "g3", alert("CanaryWriteLatencyHigh")),
        page(20.0, "k2", "g3", alert("CanaryWriteLatencyHigh"), alert("BrokerFailed")),
        page(90.0, "k3", "g3", alert("CanaryWriteLatencyHigh", "resolved"),
             alert("BrokerFailed", "resolved")),
    ]  # fmt: skip
    verdict = judge(KILL, pages)
    assert verdict.first_page_at == 20.0
    assert verdict.cause_named_at == 20.0
    assert verdict.unexpected == [] and verdict.duplicates == []
    assert verdict.incidents == 1
    assert resolved(pages)


def test_the_page_carries_when_its_condition_began() -> None:
    started = {**alert("BrokerFailed"), "startsAt": "2026-11-23T10:00:05.500Z"}
    verdict = judge(KILL, [page(1795428030.0, "k1", "g3", started)])
    assert verdict.first_page_alert is not None
    assert verdict.first_page_alert.starts_at == 1795428005.5


def test_a_page_about_an_untouched_broker_is_unexpected() -> None:
    pages = [
        page(5.0, "k1", "g2", alert("CanaryWriteFailure", broker="2")),
        page(6.0, "k2", "g3", alert("BrokerFailed")),
    ]
    verdict = judge(KILL, pages)
    assert [(a.alertname, a.broker_id) for a in verdict.unexpected] == [("CanaryWriteFailure", "2")]
    assert verdict.incidents == 2
    assert not resolved(pages)


def test_an_alert_outside_the_scenario_is_unexpected_but_a_cluster_symptom_is_not() -> None:
    pages = [
        page(
            5.0,
            "k1",
            "c",
            alert("CanaryWriteFailure", broker=""),
            alert("MonitorStalled", broker=""),
        ),
    ]
    verdict = judge(KILL, pages)
    assert [a.alertname for a in verdict.unexpected] == ["MonitorStalled"]
    assert verdict.first_page_at == 5.0


def test_any_page_is_unexpected_when_the_scenario_expects_none() -> None:
    rolling = SCENARIOS["rolling-restart"]
    verdict = judge(rolling, [page(5.0, "k1", "g1", alert("BrokerFailed", broker="1"))])
    assert len(verdict.unexpected) == 1
    assert verdict.first_page_at is None


def test_short_pauses_tolerate_the_full_gc_warning_and_nothing_else() -> None:
    """A real 3 s Full GC is rightly a FullGC warning; a page about the pauses is not."""
    short = SCENARIOS["short-pauses"]
    warned = judge(short, [page(5.0, "k1", "g1", alert("FullGC", broker="3"))])
    assert warned.unexpected == []
    paged = judge(short, [page(5.0, "k1", "g1", alert("BrokerNotAnswering", broker="3"))])
    assert [a.alertname for a in paged.unexpected] == ["BrokerNotAnswering"]


def test_duplicates_by_unchanged_repeat_by_refire_and_by_key() -> None:
    pages = [
        page(5.0, "k1", "g3", alert("BrokerFailed")),
        page(6.0, "k2", "g3", alert("BrokerFailed")),  # same content, new key
        page(9.0, "k3", "g3", alert("BrokerFailed", "resolved")),
        page(12.0, "k4", "g3", alert("BrokerFailed")),  # fires again: a second incident
    ]
    verdict = judge(KILL, pages, repeated_keys=["k1"])
    assert len(verdict.duplicates) == 3, verdict.duplicates
    assert any("accepted again" in d for d in verdict.duplicates)
    assert any("unchanged" in d for d in verdict.duplicates)
    assert any("fired again" in d for d in verdict.duplicates)


def test_an_update_that_names_the_cause_is_not_a_duplicate() -> None:
    gc = SCENARIOS["gc-pause"]
    pages = [
        page(5.0, "k1", "g3", alert("CanaryWriteFailure")),
        page(18.0, "k2", "g3", alert("CanaryWriteFailure"), alert("FullGCPauseOverSessionTimeout")),
    ]
    verdict = judge(gc, pages)
    assert verdict.duplicates == []
    assert (verdict.first_page_at, verdict.cause_named_at) == (5.0, 18.0)


def test_allowing_lost_writes_only_when_loss_happened() -> None:
    acks1 = SCENARIOS["acks1-loss"]
    pages = [page(70.0, "k1", "c", alert("CanaryWritesLost", broker=""))]
    assert judge(acks1, pages, allow=("CanaryWritesLost",)).unexpected == []
    restricted = Scenario(
        acks1.name, acks1.description, acks1.targets, acks1.expected, acks1.inject,
        allowed=("BrokerFailed",),
    )  # fmt: skip
    assert len(judge(restricted, pages).unexpected) == 1


def test_percentiles_are_nearest_rank() -> None:
    assert percentile([], 0.5) is None
    assert percentile([3.0], 0.95) == 3.0
    assert percentile([1.0, 2.0, 3.0], 0.5) == 2.0
    assert percentile([float(x) for x in range(1, 21)], 0.95) == 19.0


def test_summary_counts_missed_unexpected_and_duplicates() -> None:
    runs = [
        RunResult("broker-kill", "kraft", latency_s=10.0, resolved_after_s=20.0),
        RunResult("broker-kill", "kraft", latency_s=30.0, duplicates=1,
                  unexpected_pages=[{"alertname": "X"}]),
        RunResult("broker-kill", "kraft", missed=True),
    ]  # fmt: skip
    s = summarize(runs)["broker-kill"]
    assert (s["runs"], s["p50_s"], s["max_s"]) == (3, 10.0, 30.0)
    assert (s["missed"], s["unexpected"], s["duplicates"], s["unresolved"]) == (1, 1, 1, 2)
    assert table({"broker-kill": s}).splitlines()[1].startswith("broker-kill  3")


def test_every_scenario_names_what_it_expects() -> None:
    wanted = {
        "broker-kill", "broker-freeze", "gc-pause", "two-brokers-down", "cluster-down",
        "acks1-loss", "rolling-restart", "receiver-outage", "monitor-kill", "monitor-kills",
        "transport-down", "transport-freeze", "short-pauses", "slow-restart",
        "broker-decommission", "consumer-stop", "consumer-slow", "coordinator-kill",
        "retention-loss", "disk-full", "controller-kill",
    }  # fmt: skip
    assert set(SCENARIOS) == wanted
    assert list(SCENARIOS)[-2:] == ["rolling-restart", "broker-decommission"]
    silent = ("rolling-restart", "slow-restart", "broker-decommission", "short-pauses")
    for scenario in SCENARIOS.values():
        assert scenario.describe_expected()
        assert scenario.expects_page == (scenario.name not in silent)


def test_a_blind_monitor_is_the_page_of_a_transport_fault_and_a_broker_page_is_not() -> None:
    """transport-down: the monitored cluster is healthy, so the page is the monitor's own
    (no broker label); anything about a broker is unexpected."""
    down = SCENARIOS["transport-down"]
    assert down.layouts == ("transport",)
    pages = [
        page(9.5, "k1", "gq", alert("MonitorStalled", broker="")),
        page(12.0, "k2", "g3", alert("CanaryWriteFailure")),
    ]
    verdict = judge(down, pages)
    assert verdict.first_page_at == 9.5
    assert [a.alertname for a in verdict.unexpected] == ["CanaryWriteFailure"]
    assert "about the monitor or cluster" in down.describe_expected()


def test_the_same_alerts_updated_with_their_cause_are_not_a_duplicate() -> None:
    """Seen in the fault suite: broker 1's CanaryWriteFailure, paged before the controller's
    report, is updated in place to name it; the alerts are the same, the cause is new."""
    named = alert("CanaryWriteFailure", broker="1")
    named["annotations"] = {"cause": "The controller saw broker 3 fail"}
    pages = [
        page(13.9, "k1", "g1", alert("CanaryWriteFailure", broker="1")),
        page(20.9, "k2", "g1", named),
        page(30.0, "k3", "g1", named),  # nothing new: a duplicate
    ]
    verdict = judge(KILL, pages)
    assert verdict.duplicates == ["group g1 notified again unchanged (firing)"]
