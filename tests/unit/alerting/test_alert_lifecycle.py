"""Lifecycle: flapping pages once, a sick broker is one page, repeats, restarts, no sleeps."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.support.alerting_harness import (
    PAGER,
    T0,
    FakeTransport,
    Harness,
    partitions,
    shipped_rules,
    sig,
    with_window_failures,
)

from kafka_health.alerting.engine import AlertState
from kafka_health.alerting.notify_log import Entry, NotifiedAlert, NotifyReason, needs_update
from kafka_health.alerting.webhook import DeliveryResult
from kafka_health.model import Signal


@pytest.mark.parametrize(
    ("rule", "signal", "period_s", "why"),
    [
        ("UnderMinIsr", "under_min_isr_partitions", 20,
         "for_s 10 < 20 s on: fires in the first; keep_firing_for bridges the 20 s gaps"),
        ("CanaryWriteFailure", "canary_availability_ratio", 15,
         "for_s 0; keep_firing_for 20 s bridges 15 s gaps (availability is over 20 s, so a "
         "flapping broker cannot show longer ones)"),
    ],
)  # fmt: skip
def test_flapping_for_5_minutes_pages_once_and_resolves_once(
    rule: str, signal: str, period_s: int, why: str, tmp_path: Path
) -> None:
    h = Harness(tmp_path)
    bad, good = (0.5, 1.0) if signal == "canary_availability_ratio" else (1, 0)

    def flapping(t: float) -> list[Signal]:
        on = t < 300 and (t // period_s) % 2 == 0
        return [sig(signal, bad if on else good, t, broker_id=1)]

    h.run(0, 600, flapping)
    assert h.paged_rules() == [rule], why
    assert len(h.pages()) == 1
    assert len(h.resolutions(rule)) == 1
    assert not h.firing(rule)


def test_one_sick_broker_is_one_page_with_its_details(tmp_path: Path) -> None:
    """Fifty under-replicated partitions, min ISR and a processor exception on broker 3:
    one notification for broker 3 listing its alerts, none per partition."""
    h = Harness(tmp_path)
    fifty = partitions(*[(3, 1, 2)] * 50)

    def sick(t: float) -> list[Signal]:
        return [
            sig("under_min_isr_partitions", 50, t, fifty, broker_id=3),
            sig("processor_uncaught_exceptions", 1, t, broker_id=3),
            sig("log_cleaner_deaths", 1, t + 2, broker_id=3),
            sig("under_min_isr_partitions", 0, t, broker_id=1),
        ]

    h.run(0, 60, sick)
    [(key, notes)] = h.incidents().items()
    assert key == '{broker_id="3"}'
    assert [n.reason for n in notes] == ["first", "new_alerts"], "UnderMinIsr's for_s is 10 s"
    names = sorted(a.labels["alertname"] for a in notes[-1].alerts)
    assert names == ["LogCleanerDead", "ProcessorUncaughtException", "UnderMinIsr"]
    min_isr = next(a for a in notes[-1].alerts if a.labels["alertname"] == "UnderMinIsr")
    assert '"partition":20' in min_isr.annotations["details"]
    assert len(min_isr.annotations["details"]) <= 2000, "details are bounded in a page"


def test_alerts_arriving_within_group_wait_share_the_page(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.tick(0, [sig("processor_uncaught_exceptions", 1, 0, broker_id=2)])
    h.tick(0.3, [sig("log_cleaner_deaths", 1, 0.3, broker_id=2)])
    assert h.sent == [], "a root cause's first notification waits root_group_wait_s (0.5 s)"
    h.tick(0.5)
    [page] = h.pages()
    assert len(page.alerts) == 2


def test_an_alert_a_cause_could_explain_waits_group_wait_for_it(tmp_path: Path) -> None:
    """BrokerFailed may still be explained by a GC pause seen a moment later: its first page
    waits group_wait_s (3 s here; 1 s by default), not root_group_wait_s (0.5 s)."""
    h = Harness(tmp_path, group_wait_s=3.0)
    h.run(0, 2, lambda t: [sig("broker_failures", 1, t, broker_id=3)], step=1)
    assert h.sent == [], "waiting for a cause"
    h.run(3, 3, lambda t: [sig("broker_failures", 1, t, broker_id=3)])
    assert h.paged_rules() == ["BrokerFailed"]


def test_a_second_broker_is_a_second_page(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(
        0, 30, lambda t: [sig("processor_uncaught_exceptions", 1, t, broker_id=b) for b in (1, 2)]
    )
    assert sorted(p.group_labels["broker_id"] for p in h.pages()) == ["1", "2"]


def test_new_alert_in_a_paged_group_waits_for_group_interval(tmp_path: Path) -> None:
    """A new alert that is not a cause of what was paged waits group_interval_s (10 s)."""
    h = Harness(tmp_path)
    h.run(0, 5, lambda t: [sig("processor_uncaught_exceptions", 1, t, broker_id=2)])
    assert len(h.pages()) == 1  # at t=5
    h.tick(8, [sig("log_cleaner_deaths", 1, 8, broker_id=2)])
    h.tick(14, [sig("log_cleaner_deaths", 1, 14, broker_id=2)])
    assert len(h.pages()) == 1, "group_interval 10 s after the page at 5"
    h.tick(15, [sig("log_cleaner_deaths", 1, 15, broker_id=2)])
    assert [p.reason for p in h.pages()] == ["first", "new_alerts"]


def test_still_firing_alert_is_repeated_after_repeat_interval(tmp_path: Path) -> None:
    h = Harness(tmp_path, repeat_interval_s=600)
    h.run(0, 1300, lambda t: [sig("log_cleaner_deaths", 1, t, broker_id=2)], step=50)
    reasons = [n.reason for n in h.sent]
    assert reasons == ["first", "repeat", "repeat"]
    keys = [n.idempotency_key for n in h.sent]
    assert len(set(keys)) == 3, "a reminder is a new notification, not a replay"


def test_restart_neither_repages_nor_loses_the_resolution(tmp_path: Path) -> None:
    """What is on disk after each step is all a kill -9 leaves; a new service resumes from it."""
    h = Harness(tmp_path)
    h.run(0, 30, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert len(h.pages()) == 1
    h.restart()
    h.run(35, 100, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert len(h.pages()) == 1, "no second trigger after the restart"
    h.restart()
    h.run(105, 200, lambda t: [sig("under_min_isr_partitions", 0, t, broker_id=1)])
    assert len(h.resolutions("UnderMinIsr")) == 1


def test_restart_without_new_signals_does_not_resolve(tmp_path: Path) -> None:
    """A job restarting takes a while to report again: the restored signals hold the alert."""
    h = Harness(tmp_path)
    h.run(0, 60, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    h.restart()
    h.run(65, 150, lambda t: [])
    assert h.firing("UnderMinIsr") and h.resolutions() == []


def test_a_restarted_job_reading_again_what_it_lost_neither_resolves_nor_refires(
    tmp_path: Path,
) -> None:
    """A kill -9 between two saves of the detector state: the restarted job's detectors lack
    the ZooKeeper expiry folded after the last save until its query reads those batches again
    (job/catch_up). Meanwhile it publishes updates, not snapshots: the alert holds, and is the
    same alert (one start) when the expiry is read again. Published as snapshots, the series
    went, the alert resolved after its keep_firing_for and fired again with a new start (the
    GC incident's CI run, 2026-12-02)."""
    rules = shipped_rules()
    short = dataclasses.replace(rules.rules["ZkSessionExpired"], keep_firing_for_s=20.0)
    h = Harness(
        tmp_path, rules=dataclasses.replace(rules, rules={**rules.rules, "ZkSessionExpired": short})
    )

    def expired(t: float) -> list[Signal]:
        return [sig("zk_session_expirations", 1, t, broker_id=3)]

    h.run(0, 30, expired, snapshot=True)
    (told,) = h.alerts("ZkSessionExpired")
    assert told.state == AlertState.FIRING
    h.restart()
    for t in range(35, 70, 5):  # Spark starting, then the first (long) batch
        h.clock.now = T0 + t
        h.service.publish(with_window_failures([]), snapshot=False)
        h.service.step()
        h.service.deliver()
    h.run(70, 100, expired, snapshot=True)  # read again: the snapshot is whole again
    (alert,) = h.alerts("ZkSessionExpired")
    assert alert.state == AlertState.FIRING and alert.starts_at == told.starts_at
    assert h.resolutions() == [] and len(h.pages()) == 1


def test_undelivered_notification_survives_restart_and_is_sent_once(tmp_path: Path) -> None:
    h = Harness(tmp_path, transport="fake")
    assert isinstance(h.transport, FakeTransport)
    h.transport.results = [DeliveryResult(False, True, "server_error", 500)] * 5
    h.run(0, 30, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert h.sent == [] and len(h.transport.attempts) >= 2
    h.restart()
    h.run(35, 120, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert len(h.sent) == 1
    attempted_keys = {n.idempotency_key for n in h.transport.attempts}
    assert attempted_keys == {h.sent[0].idempotency_key}, "every retry is the same notification"


def dropped(h: Harness, reason: str) -> float | None:
    return h.service.registry.get_sample_value(
        "kafka_health_notifications_dropped_total", {"receiver": "pager", "reason": reason}
    )


def test_a_refused_page_is_counted_and_sent_again_not_lost(tmp_path: Path) -> None:
    """A 4xx answer is not retried as it is, but the page is not lost either: the group's
    notification-log entry goes back, and the group is paged again a group interval later."""
    h = Harness(tmp_path, transport="fake")
    assert isinstance(h.transport, FakeTransport)
    h.transport.results = [DeliveryResult(False, False, "client_error", 400, error="HTTP 400")]
    h.run(0, 60, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert len(h.transport.attempts) == 2 and len(h.sent) == 1
    assert h.transport.attempts[0].idempotency_key == h.sent[0].idempotency_key
    failed = h.service.registry.get_sample_value(
        "kafka_health_notifications_failed_total", {"receiver": "pager", "reason": "client_error"}
    )
    assert failed == 1 and dropped(h, "rejected") == 1 and dropped(h, "gave_up") == 0
    first, again = h.transport.attempts
    assert first.idempotency_key == again.idempotency_key, "the same page: one incident"
    assert again.created_at - first.created_at >= h.config.group_interval_s, (
        "asked again after a group interval, not at every evaluation"
    )


def test_a_page_given_up_on_is_sent_again(tmp_path: Path) -> None:
    """Still undelivered after ``give_up_after_s``: dropped, counted, and owed again."""
    pager = dataclasses.replace(PAGER, give_up_after_s=20)
    h = Harness(tmp_path, transport="fake", receivers=[pager])
    assert isinstance(h.transport, FakeTransport)
    h.transport.results = [DeliveryResult(False, True, "server_error", 500, error="HTTP 500")] * 4
    h.run(0, 120, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert dropped(h, "gave_up") == 1 and len(h.sent) == 1


def test_a_refused_resolution_is_sent_again(tmp_path: Path) -> None:
    """The pager closes the incident only when it accepts the resolution."""
    h = Harness(tmp_path, transport="fake")
    assert isinstance(h.transport, FakeTransport)
    h.run(0, 40, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert len(h.pages()) == 1
    h.transport.results = [DeliveryResult(False, False, "client_error", 404, error="HTTP 404")]
    h.run(45, 200, lambda t: [sig("under_min_isr_partitions", 0, t, broker_id=1)])
    assert dropped(h, "rejected") == 1
    assert len(h.resolutions("UnderMinIsr")) == 1 and len(h.pages()) == 1


def test_backoff_honours_retry_after(tmp_path: Path) -> None:
    h = Harness(tmp_path, transport="fake")
    assert isinstance(h.transport, FakeTransport)
    h.transport.results = [DeliveryResult(False, True, "rate_limited", 429, retry_after_s=30)]
    h.run(0, 10, lambda t: [sig("processor_uncaught_exceptions", 1, t, broker_id=1)], step=10)
    assert len(h.transport.attempts) == 1
    h.run(15, 35, lambda t: [], step=5)
    assert len(h.transport.attempts) == 1, "not before Retry-After (30 s after t=10)"
    h.tick(40)
    assert len(h.sent) == 1


def _entry(firing: dict[str, float], at: float = 0.0) -> Entry:
    return Entry({fp: NotifiedAlert(start, {}) for fp, start in firing.items()}, at)


# (case, entry, firing now, resolved now, now, expected, why)
DEDUP = [
    ("nothing", None, {}, set(), 10, None, "no entry and nothing firing"),
    ("first", None, {"a": 1}, set(), 10, NotifyReason.FIRST, "first firing alerts of a group"),
    ("same", _entry({"a": 1}), {"a": 1}, set(), 10, None, "already told"),
    ("new", _entry({"a": 1}), {"a": 1, "b": 2}, set(), 10, NotifyReason.NEW_ALERTS,
     "a new alert in the group"),
    ("restarted", _entry({"a": 1}), {"a": 5}, set(), 10, NotifyReason.NEW_ALERTS,
     "same fingerprint, new start: a new instance"),
    ("resolved", _entry({"a": 1, "b": 2}), {"a": 1}, {"b"}, 10, NotifyReason.RESOLVED,
     "b resolved"),
    ("repeat", _entry({"a": 1}), {"a": 1}, set(), 4 * 3600, NotifyReason.REPEAT,
     "repeat interval elapsed"),
    ("after all resolved", _entry({}), {"a": 9}, set(), 10, NotifyReason.FIRST,
     "a group that was all resolved starts again"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "entry", "firing", "resolved", "now", "expected", "why"),
    DEDUP,
    ids=[d[0] for d in DEDUP],
)
def test_dedup_reason(
    case: str,
    entry: Entry | None,
    firing: dict[str, float],
    resolved: set[str],
    now: float,
    expected: NotifyReason | None,
    why: str,
) -> None:
    assert needs_update(entry, firing, resolved, 4 * 3600, now) == expected, why


def test_a_corrupt_state_file_is_set_aside_not_fatal(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, 30, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    (tmp_path / "state.json").write_text('{"alerts": [')  # as a disk fault might leave it
    h.restart()
    assert (tmp_path / "state.json.corrupt").exists()
    h.run(35, 60, lambda t: [sig("under_min_isr_partitions", 2, t, broker_id=1)])
    assert len(h.pages()) == 1, "the notification log still knows the page was sent"
    assert h.resolutions() == []


@pytest.mark.parametrize("log_written", [True, False], ids=["before-state", "before-log"])
def test_a_kill_after_the_outbox_write_sends_one_page(tmp_path: Path, log_written: bool) -> None:
    """A kill -9 after a step wrote its notification to the outbox, before it saved the
    alerts (and, in ``before-log``, the notification log too): the restarted service has the
    page pending and older state. It must not page the same incident again under another key
    (``before-log`` did: two "first" pages)."""
    h = Harness(tmp_path, transport="fake")
    assert isinstance(h.transport, FakeTransport)
    h.transport.results = [DeliveryResult(False, True, "server_error", 500)] * 3

    def firing(t: float) -> list[Signal]:
        return [sig("under_min_isr_partitions", 2, t, broker_id=1)]

    h.run(0, 5, lambda t: [sig("under_min_isr_partitions", 0, t, broker_id=1)])
    # What a kill leaves on disk: these writes never happen.
    h.service._save = lambda now: None  # type: ignore[method-assign]
    if not log_written:
        assert h.service.nflog is not None
        h.service.nflog.save = lambda: None  # type: ignore[method-assign]
    h.run(10, 30, firing)  # UnderMinIsr's for_s is 10 s: pending, then the page
    assert h.service.outbox is not None
    assert len(h.service.outbox.pending()) == 1 and h.sent == []
    h.restart()
    h.run(35, 120, firing)
    keys = {n.idempotency_key for n in h.transport.attempts}
    assert len(h.sent) == 1 and len(keys) == 1, "one page, retried under one key"
