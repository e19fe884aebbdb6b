"""BrokerNotAnswering with the metadata's evidence at the first refused ping
(``broker_shutdown_evidence``): a crash pages at once, a controlled shutdown opens a window of
``alerting.restart_budget_s`` that ends when the broker answers again. Timelines on a fake
clock with the shipped rules, published as the job publishes (full snapshots)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.model import LOGS_READ_SIGNAL, Signal

Signals = Callable[[float], list[Signal]]


def broker_2(
    refused_from: float,
    evidence: str | None = None,
    evidence_at: float = 0.0,
    answers_from: float = math.inf,
    refused_again: float = math.inf,
) -> Signals:
    """Brokers 1 and 3 answer; broker 2 answers until ``refused_from`` (its last answer half
    a ping interval before), refuses until ``answers_from``, and the job reports the
    metadata's verdict on it from ``evidence_at`` while it stays down. From ``refused_again``
    it refuses again, with no verdict (``unknown``: a broker hosting nothing)."""

    def signals(t: float) -> list[Signal]:
        out = [sig("broker_unanswered_seconds", 0, t, broker_id=b, reason="answered")
               for b in (1, 3)]  # fmt: skip
        down_since = refused_again if t >= refused_again else refused_from
        down = refused_from <= t < answers_from or t >= refused_again
        if not down:
            out.append(sig("broker_unanswered_seconds", 0, t, broker_id=2, reason="answered"))
            return out
        last_answer = down_since - 0.5
        out.append(sig("broker_unanswered_seconds", t - last_answer, t,
                       {"since": T0 + last_answer}, broker_id=2, reason="refused"))  # fmt: skip
        if t >= refused_again:
            verdict: str | None = "unknown" if t >= refused_again + 0.6 else None
            decided = refused_again + 0.6
        else:
            verdict = evidence if t >= evidence_at else None
            decided = evidence_at
        if verdict is not None:
            details = {"decided_at": T0 + decided, "refused_at": T0 + down_since,
                       "reason": "test", "looks": 1}  # fmt: skip
            out.append(sig("broker_shutdown_evidence", 1, t, details, broker_id=2,
                           evidence=verdict))  # fmt: skip
        return out

    return signals


def first_page_at(h: Harness) -> float | None:
    pages = [n for n in h.pages() if any(
        a.labels["alertname"] == "BrokerNotAnswering" for a in n.alerts)]  # fmt: skip
    return pages[0].created_at - T0 if pages else None


def test_a_refusal_with_crash_evidence_pages_within_a_tick_and_the_group_wait(
    tmp_path: Path,
) -> None:
    """SIGKILL at ~9.8: the first refused ping at 10.0, the second look's verdict (crash) at
    10.55, published at once; the alert fires at the next tick (11.0) and pages after the
    1 s group wait: 2 s after the refusal, not the 5 s rule's 15.5 + 1."""
    h = Harness(tmp_path)
    h.run(0, 30, broker_2(refused_from=10.0, evidence="crash", evidence_at=10.55), step=0.5,
          snapshot=True)  # fmt: skip
    assert first_page_at(h) == 12.0
    [page] = [n for n in h.pages() if n.group_key == '{broker_id="2"}']
    [alert] = [a for a in page.alerts if a.labels["alertname"] == "BrokerNotAnswering"]
    assert alert.status == "firing"


def test_without_evidence_a_refusal_still_waits_the_5_s(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, 30, broker_2(refused_from=10.0, evidence="unknown", evidence_at=10.55), step=0.5,
          snapshot=True)  # fmt: skip
    assert first_page_at(h) == 16.0, "unanswered > 5 s at 15.5 (last answer 9.5), + group wait"


def test_a_controlled_shutdown_restarted_within_the_budget_never_pages(tmp_path: Path) -> None:
    """A slow restart: down 60 s (BrokerNotAnswering fires at 15.5, muted by the window the
    evidence opened at 10.1, no log line needed), answering again at 70."""
    h = Harness(tmp_path)
    h.run(0, 200, broker_2(refused_from=10.0, evidence="controlled_shutdown", evidence_at=10.1,
                           answers_from=70.0), step=0.5, snapshot=True)  # fmt: skip
    assert h.alerts("BrokerNotAnswering"), "it fired (muted)"
    assert first_page_at(h) is None
    assert h.service.maintenance.restarts["2"][1] <= T0 + 70.5, "ended when it answered"


def test_a_controlled_shutdown_still_down_after_the_restart_budget_pages(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    assert h.config.restart_budget_s == 120
    h.run(0, 140, broker_2(refused_from=10.0, evidence="controlled_shutdown", evidence_at=10.1),
          step=0.5, snapshot=True)  # fmt: skip
    at = first_page_at(h)
    assert at is not None and 130.1 <= at <= 131.5, at


def test_the_window_ends_when_the_broker_answers_so_its_next_failure_pages(
    tmp_path: Path,
) -> None:
    """Restarted cleanly (down 10-40), then killed at 60 while catching up: no verdict this
    time (unknown): the 5 s rule pages, the first restart's window does not mute it."""
    h = Harness(tmp_path)
    h.run(0, 90, broker_2(refused_from=10.0, evidence="controlled_shutdown", evidence_at=10.1,
                          answers_from=40.0, refused_again=60.0), step=0.5,
          snapshot=True)  # fmt: skip
    at = first_page_at(h)
    assert at == 66.0, at


def test_crash_evidence_pages_without_waiting_for_a_stalled_log_path(tmp_path: Path) -> None:
    """Issue 56: in the single layout the killed broker leads partitions of the log topic and
    the job's reads stall on them (logs read to long before the fault). The crash verdict is
    the evidence the wait was for: the page leaves at the tick and the group wait, as with the
    logs read on time."""
    h = Harness(tmp_path)
    down = broker_2(refused_from=10.0, evidence="crash", evidence_at=10.55)
    h.run(0, 30, lambda t: [*down(t), sig(LOGS_READ_SIGNAL, T0 + 1.0, t)], step=0.5,
          snapshot=True)  # fmt: skip
    assert first_page_at(h) == 12.0


def test_an_unknown_verdict_still_waits_for_the_logs(tmp_path: Path) -> None:
    """The verdict that cannot tell (a broker hosting nothing) leaves the wait in place: a
    shutdown line may still be on its way; the page goes after the 5 s rule and the wait."""
    h = Harness(tmp_path)
    down = broker_2(refused_from=10.0, evidence="unknown", evidence_at=10.55)
    h.run(0, 40, lambda t: [*down(t), sig(LOGS_READ_SIGNAL, T0 + 1.0, t)], step=0.5,
          snapshot=True)  # fmt: skip
    page = first_page_at(h)
    assert page is not None and 18.5 <= page <= 20.0, page  # 15.5 + the 3 s wait + group wait


def test_a_hung_broker_pages_without_waiting_for_the_logs(tmp_path: Path) -> None:
    """A timeout is never a controlled shutdown (its port closes; it does not hang), so a hung
    broker's page does not wait on the log path it may itself be holding up."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        out = [sig(LOGS_READ_SIGNAL, T0 + 1.0, t)]
        out += [sig("broker_unanswered_seconds", 0, t, broker_id=b, reason="answered")
                for b in (1, 3)]  # fmt: skip
        if t < 10.0:
            return [*out, sig("broker_unanswered_seconds", 0, t, broker_id=2, reason="answered")]
        hung = sig("broker_unanswered_seconds", t - 9.5, t, broker_id=2, reason="timeout")
        return [*out, hung]

    h.run(0, 30, signals, step=0.5, snapshot=True)
    assert first_page_at(h) == 16.0, "unanswered > 5 s at 15.0 (last answer 9.5): tick, group wait"
