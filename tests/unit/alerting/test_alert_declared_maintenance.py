"""Declared maintenance (``kafka-health maintenance``, issue 56): the broker's expected alerts are
muted at once, for that broker only, while its window lasts; a broker still down when the window
ends pages; the file is bounded, and a malformed one never stops the service."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.support.alerting_harness import T0, Harness, Signals, sig
from tests.unit.alerting.test_alert_maintenance import UNEXPECTED

from kafka_health.alerting import declared_maintenance
from kafka_health.alerting.declared_maintenance import (
    KEEP_ENDED_S,
    MAX_DURATION_S,
    DeclaredMaintenance,
    DeclaredWindow,
)
from kafka_health.model import LOGS_READ_SIGNAL, Signal


def store_of(h: Harness) -> DeclaredMaintenance:
    """The file the command writes, as the command writes it (another process's view)."""
    return DeclaredMaintenance(h.state_dir / "maintenance.json")


def declare(h: Harness, broker: int, at: float, for_s: float) -> None:
    store_of(h).start(broker, for_s, "deploy", "ci", T0 + at)


def unanswered(broker: int, since: float, until: float = 1e9) -> Signals:
    """Broker ``broker`` refuses the job's pings from ``since`` until ``until``."""

    def signals(t: float) -> list[Signal]:
        if since <= t < until:
            return [sig("broker_unanswered_seconds", t - since, t, broker_id=broker,
                        reason="refused")]  # fmt: skip
        return [sig("broker_unanswered_seconds", 0, t, broker_id=broker, reason="answered")]

    return signals


def both(*sources: Signals) -> Signals:
    return lambda t: [s for source in sources for s in source(t)]


def paged_brokers(h: Harness) -> list[str]:
    return [a.labels["broker_id"] for n in h.pages() for a in n.alerts if a.status == "firing"]


# --------------------------------------------------------------------------------------------
# The mute decision, on the fake clock


def test_a_declared_window_mutes_broker_not_answering_at_once_for_its_broker_only(
    tmp_path: Path,
) -> None:
    """Brokers 2 and 3 stop answering at t=10; only 2 was declared. The job has read the
    logs only up to t=1 (a stalled log path): broker 3's page waits maintenance_wait_s for a
    shutdown line that never comes, then goes; broker 2's alert is muted from the tick it
    fires, with no wait (declared is authoritative), and never pages."""
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=600)
    logs_stalled: Signals = lambda t: [sig(LOGS_READ_SIGNAL, T0 + 1.0, t)]  # noqa: E731
    signals = both(unanswered(2, since=10), unanswered(3, since=10), logs_stalled)
    reasons: list[list[str]] = []
    t = 0.0
    while t <= 60:
        h.tick(t, signals(t))
        reasons += [list(a.muted_by) for a in h.alerts("BrokerNotAnswering")
                    if a.broker_id == "2" and a.active]  # fmt: skip
        t += 0.5
    assert h.firing("BrokerNotAnswering")
    assert reasons and all(r == ["declared maintenance of broker 2"] for r in reasons), reasons
    assert paged_brokers(h) == ["3"]


@pytest.mark.parametrize("how", ["expiry", "end"])
def test_a_broker_still_down_when_the_window_ends_pages(tmp_path: Path, how: str) -> None:
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=60 if how == "expiry" else 600)
    down = unanswered(2, since=10)
    h.run(0, 58, down, step=1)
    assert h.firing("BrokerNotAnswering") and h.sent == []
    if how == "end":
        assert store_of(h).end(2, T0 + 59)
    h.run(60, 70, down, step=1)
    assert paged_brokers(h) == ["2"]
    assert h.pages()[0].created_at - T0 <= 62, "at the window's end, after the group wait"


def test_a_broker_back_inside_the_window_never_pages(tmp_path: Path) -> None:
    """The restart is over at t=40; the window ends at 45, while BrokerNotAnswering is still
    firing (keep_firing_for): judged at the last time its condition held, it stays quiet."""
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=45)
    # As the job publishes them: its whole set (the refused series is gone once answered).
    h.run(0, 120, unanswered(2, since=10, until=40), step=1, snapshot=True)
    assert h.alerts("BrokerNotAnswering"), "it did fire, muted"
    assert h.sent == []


def test_a_window_declared_for_another_broker_or_ended_mutes_nothing(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    declare(h, 1, at=0, for_s=600)
    declare(h, 2, at=0, for_s=5)  # over before broker 2 stops
    h.run(0, 30, unanswered(2, since=10), step=1)
    assert paged_brokers(h) == ["2"]


@pytest.mark.parametrize(
    ("case", "extra", "pages", "why"), UNEXPECTED, ids=[u[0] for u in UNEXPECTED]
)
def test_it_mutes_what_a_controlled_shutdown_mutes_and_nothing_else(
    case: str, extra: Signals, pages: str | None, why: str, tmp_path: Path
) -> None:
    """The cases of a controlled shutdown's maintenance of broker 2, with broker 2 declared
    instead: the same alerts page (unexpected ones), the same stay quiet."""
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=600)
    h.run(0, 120, extra)
    assert h.paged_rules() == ([pages] if pages else []), why


def test_a_restart_inside_a_declared_window_pages_nobody(tmp_path: Path) -> None:
    """A restart of broker 2 that loses its shutdown line (KRaft: the hook races Log4j's):
    refused pings, its own canary failing, the controller reporting it failed."""
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=600)

    def restart(t: float) -> list[Signal]:
        away = 10 <= t < 70
        out = unanswered(2, since=10, until=70)(t)
        out.append(sig("canary_availability_ratio", 0.1 if away else 1.0, t, broker_id=2))
        if away:
            out.append(sig("broker_failures", 1, t, broker_id=2))
        return out

    h.run(0, 900, restart)
    assert {"BrokerNotAnswering", "CanaryWriteFailure"} <= {
        a.rule for a in h.service.engine.alerts.values()
    }
    assert h.sent == []


# --------------------------------------------------------------------------------------------
# The file: reloaded, bounded, a malformed one never stops the service


def entry(broker: Any = 2, starts: Any = T0 - 10, ends: Any = T0 + 600) -> dict[str, Any]:
    return {"broker_id": broker, "starts_at": starts, "ends_at": ends, "comment": "c"}


MALFORMED: list[tuple[str, Any]] = [
    ("not an object", [2, T0, T0 + 60]),
    ("no ends_at", {"broker_id": 2, "starts_at": T0}),
    ("negative broker", entry(broker=-1)),
    ("broker beyond int32", entry(broker=2**31)),
    ("broker not a number", entry(broker="two")),
    ("broker a boolean", entry(broker=True)),
    ("time not a number", entry(starts="yesterday")),
    ("time not finite", entry(ends=float("inf"))),
    ("ends before it starts", entry(ends=T0 - 20)),
    ("longer than a day", entry(ends=T0 - 10 + MAX_DURATION_S + 1)),
]


@pytest.mark.parametrize(("case", "bad"), MALFORMED, ids=[c for c, _ in MALFORMED])
def test_a_malformed_entry_is_skipped_named_and_the_others_still_mute(
    case: str, bad: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "maintenance.json"
    path.write_text(json.dumps({"maintenance": [bad, entry(broker=2)]}))
    with caplog.at_level(logging.WARNING, "kafka_health.alerting.declared_maintenance"):
        h = Harness(tmp_path)
    assert "maintenance #0" in caplog.text and "skipped, malformed" in caplog.text, case
    assert h.service.declared.skipped == 1
    h.run(0, 30, both(unanswered(2, since=10), unanswered(3, since=10)), step=1)
    assert paged_brokers(h) == ["3"], "the good entry still mutes broker 2"


@pytest.mark.parametrize(
    ("case", "write"),
    [
        ("not JSON", lambda p: p.write_text("{broker 2 for 10m")),
        ("wrong shape", lambda p: p.write_text(json.dumps({"maintenance": {"2": 600}}))),
        ("a directory", lambda p: p.mkdir()),
        ("emptied", lambda p: p.write_text("")),
    ],
)
def test_a_file_broken_while_the_service_runs_never_stops_it(
    case: str, write: Callable[[Path], None], tmp_path: Path
) -> None:
    """Declared, then the file is broken by hand mid-incident: the service goes on evaluating
    (the declaration is gone with the file, so the broker still down pages)."""
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=600)
    h.run(0, 20, unanswered(2, since=10), step=1)
    assert h.sent == [] and h.firing("BrokerNotAnswering")
    path = tmp_path / "maintenance.json"
    path.unlink()
    write(path)
    h.run(21, 30, unanswered(2, since=10), step=1)
    assert paged_brokers(h) == ["2"], case
    assert h.service.heartbeat == T0 + 30


def test_start_extend_end_and_end_all(tmp_path: Path) -> None:
    store = DeclaredMaintenance(tmp_path / "maintenance.json")
    first = store.start(2, 600, "deploy", "ci", T0)
    again = store.start(2, 1200, "longer", "ci", T0 + 100)
    assert again.starts_at == first.starts_at == T0 and again.ends_at == T0 + 1300
    assert [w.broker_id for w in store.windows()] == [2], "extended, not a second entry"
    store.start(3, 60, "", "ci", T0)
    assert store.brokers(T0 + 30) == {"2", "3"} and store.brokers(T0 + 60) == {"2"}
    assert store.end(3, T0 + 70) == [], "already over"
    assert [w.broker_id for w in store.end(None, T0 + 80)] == [2]
    assert store.brokers(T0 + 80) == set()
    reader = DeclaredMaintenance(tmp_path / "maintenance.json")
    reader.reload()
    assert reader.windows() == store.windows(), "what another process reads"
    with pytest.raises(ValueError, match="duration"):
        store.start(2, MAX_DURATION_S + 1, "", "", T0)
    with pytest.raises(ValueError, match="broker id"):
        store.start(-1, 60, "", "", T0)


def test_an_extension_past_a_day_restarts_the_window(tmp_path: Path) -> None:
    store = DeclaredMaintenance(tmp_path / "maintenance.json")
    store.start(2, MAX_DURATION_S, "", "", T0)
    window = store.start(2, 3600, "", "", T0 + MAX_DURATION_S - 60)
    assert window.ends_at - window.starts_at == 3600
    DeclaredWindow.from_json(window.to_json())  # the service accepts it


def test_ended_entries_are_pruned_and_the_file_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(declared_maintenance, "MAX_ENTRIES", 3)
    path = tmp_path / "maintenance.json"
    store = DeclaredMaintenance(path)
    store.start(1, 60, "", "", T0)
    store.start(2, 60, "", "", T0 + KEEP_ENDED_S + 100)  # broker 1's ended a day ago: pruned
    assert [w.broker_id for w in store.windows()] == [2]
    now = T0 + KEEP_ENDED_S + 200  # broker 2's over, kept (an alert may be judged against it)
    store.start(3, 600, "", "", now)
    store.start(4, 600, "", "", now)
    store.start(5, 600, "", "", now)  # over the cap: the oldest ended one goes
    assert sorted(w.broker_id for w in store.windows()) == [3, 4, 5]
    with pytest.raises(ValueError, match="at most 3"):
        store.start(6, 600, "", "", now)
    path.write_text(json.dumps({"maintenance": [entry(broker=b) for b in range(10)]}))
    reader = DeclaredMaintenance(path)
    reader.reload()
    assert [w.broker_id for w in reader.windows()] == [0, 1, 2], "only the first MAX read"


def test_a_malformed_entry_is_kept_in_the_file_by_a_write(tmp_path: Path) -> None:
    path = tmp_path / "maintenance.json"
    typo = entry(broker="2O")
    path.write_text(json.dumps({"maintenance": [typo]}))
    DeclaredMaintenance(path).start(3, 60, "", "", T0)
    assert json.loads(path.read_text())["maintenance"][1] == typo


# --------------------------------------------------------------------------------------------
# /metrics


def test_metrics_show_each_maintenance_and_its_source(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    declare(h, 2, at=0, for_s=60)
    h.tick(0, [sig("controlled_shutdowns", 1, 0, broker_id=3)])
    reg = h.service.registry
    metric = "kafka_health_broker_maintenance"
    assert reg.get_sample_value(metric, {"broker_id": "2", "source": "declared"}) == 1
    assert reg.get_sample_value(metric, {"broker_id": "3", "source": "controlled_shutdown"}) == 1
    assert reg.get_sample_value(metric, {"broker_id": "2", "source": "controlled_shutdown"}) is None
    h.clock.now = T0 + 61
    assert reg.get_sample_value(metric, {"broker_id": "2", "source": "declared"}) is None
