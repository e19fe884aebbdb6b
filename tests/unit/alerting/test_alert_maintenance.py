"""Maintenance: a controlled shutdown makes the broker's expected symptoms quiet, not others."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tests.support.alerting_harness import T0, Harness, Signals, partitions, sig

from kafka_health.model import LOGS_READ_SIGNAL, Signal

BROKERS = (1, 2, 3)


def rolling_restart(starts: dict[int, float], down_s: float = 60.0) -> Signals:
    """Each broker b logs a controlled shutdown at starts[b] and is away ``down_s``: its
    partitions on the others are under-replicated, leaders move (a storm on the others), its
    own canary probes fail, the others' acks slow down, its logs pause and, as some versions
    log it, the controller reports it failed."""

    def signals(t: float) -> list[Signal]:
        out: list[Signal] = []
        for b in BROKERS:
            others = [o for o in BROKERS if o != b]
            start = starts[b]
            away = start <= t < start + down_s
            if start <= t < start + 60:
                out.append(sig("controlled_shutdowns", 1, t, broker_id=b))
            out.append(sig("canary_availability_ratio", 0.1 if away else 1.0, t, broker_id=b))
            if not away:  # a running broker writes its server.log
                out.append(sig("log_stream_age_seconds", 1, t, broker_id=b, kind="server"))
            if away:
                out += [
                    sig(
                        "canary_send_failures",
                        30,
                        t,
                        broker_id=b,
                        error_class="NotLeaderOrFollowerException",
                    ),
                    sig("broker_failures", 1, t, broker_id=b),
                    sig("log_stream_age_seconds", t - start, t, broker_id=b, kind="server"),
                ]
                for o in others:
                    out += [
                        sig("under_replicated_partitions", 12, t, partitions((o, b)), broker_id=o),
                        sig("leader_elections_per_minute", 9, t, broker_id=o),
                        sig(
                            "canary_ack_latency_seconds",
                            2.5,
                            t,
                            broker_id=o,
                            partition=0,
                            quantile="0.99",
                        ),
                    ]
        return out

    return signals


def test_rolling_restart_of_three_brokers_pages_nobody(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, 2400, rolling_restart({1: 0.0, 2: 400.0, 3: 800.0}, down_s=150.0))
    fired = {a.rule for a in h.service.engine.alerts.values()}
    assert {"UnderReplicatedPartitions", "LeaderElectionStorm", "CanaryWriteFailure"} <= fired
    assert h.sent == [], [n.alerts for n in h.sent]


def _during_maintenance_of_2(extra: Signals) -> Signals:
    def signals(t: float) -> list[Signal]:
        out = [sig("controlled_shutdowns", 1, t, broker_id=2)] if t < 60 else []
        return out + extra(t)

    return signals


# (case, signals during broker 2's maintenance, the rule that must page or None, why)
UNEXPECTED = [
    ("lost write", lambda t: [sig("canary_lost_writes", 1, t, partition=0, broker_id=3,
     acks="1")], "CanaryWritesLost", "broker 3 acknowledged it, not the one in maintenance"),
    ("own acks=1 lost write", lambda t: [sig("canary_lost_writes", 1, t, partition=0,
     broker_id=2, acks="1")], None,
     "acks=1 writes its leader acknowledged are lost when it hands over (rolling restart)"),
    ("own acks=all lost write", lambda t: [sig("canary_lost_writes", 1, t, partition=0,
     broker_id=2, acks="1"), sig("canary_lost_writes", 1, t, partition=1, broker_id=2,
     acks="all")], "CanaryWritesLost", "a lost acks=all write is never expected"),
    ("min ISR not hosted", lambda t: [sig("under_min_isr_partitions", 1, t, partitions((1, 3)),
     broker_id=1)], "UnderMinIsr", "broker 2 holds no replica of it: unexplained"),
    ("min ISR unknown replicas", lambda t: [sig("under_min_isr_partitions", 1, t, broker_id=1)],
     "UnderMinIsr", "no proof broker 2 hosts it: pages"),
    ("min ISR hosted", lambda t: [sig("under_min_isr_partitions", 1, t, partitions((1, 2)),
     broker_id=1)], None, "broker 2 hosts every listed partition: expected"),
    ("own canary", lambda t: [sig("canary_availability_ratio", 0.1, t, broker_id=2)], None,
     "its own canary failures are expected"),
    ("other broker's canary", lambda t: [sig("canary_availability_ratio", 0.1, t, broker_id=1)],
     "CanaryWriteFailure", "another broker's failures are not"),
    ("processor exception", lambda t: [sig("processor_uncaught_exceptions", 1, t, broker_id=2)],
     "ProcessorUncaughtException", "not a restart symptom"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "extra", "pages", "why"), UNEXPECTED, ids=[u[0] for u in UNEXPECTED]
)
def test_unexpected_symptoms_still_page_during_maintenance(
    case: str, extra: Signals, pages: str | None, why: str, tmp_path: Path
) -> None:
    h = Harness(tmp_path)
    h.run(0, 120, _during_maintenance_of_2(extra))
    assert h.paged_rules() == ([pages] if pages else []), why


def test_symptom_outlasting_the_maintenance_window_pages(tmp_path: Path) -> None:
    h = Harness(tmp_path, maintenance_window_s=300)
    extra = lambda t: [sig("under_replicated_partitions", 5, t, broker_id=1)]  # noqa: E731
    h.run(0, 350, _during_maintenance_of_2(extra))
    assert h.pages() == [], "window: 300 s after the last shutdown signal (t=55)"
    h.run(355, 400, _during_maintenance_of_2(extra))
    assert h.paged_rules() == ["UnderReplicatedPartitions"]


@pytest.mark.parametrize("logged", ["controlled_shutdowns", "shutdown_signals"])
def test_a_termination_signal_alone_opens_the_window(logged: str, tmp_path: Path) -> None:
    """A broker whose own shutdown lines were lost (Kafka 4.x races Log4j's shutdown hook)
    logged only the SIGTERM it got: it is restarting on purpose all the same."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        out = [sig(logged, 1, t, broker_id=2)] if t < 60 else []
        return [*out, sig("under_replicated_partitions", 5, t, broker_id=1)]

    h.run(0, 120, signals)
    assert h.alerts("UnderReplicatedPartitions"), "it did fire, muted"
    assert h.sent == []


def _shutdown_then_fenced(fenced_until: float) -> Signals:
    """Broker 2 logs its controlled shutdown (t 0-55); the KRaft controller fences it when its
    session times out ~12 s later, reported in the job's 1-minute windows up to
    ``fenced_until``."""

    def signals(t: float) -> list[Signal]:
        out = [sig("controlled_shutdowns", 1, t, broker_id=2)] if t < 60 else []
        if t >= 12:
            out.append(sig("broker_failures", 1 if t < fenced_until else 0, t, broker_id=2))
        return out

    return signals


def test_a_symptom_that_ended_inside_a_short_window_stays_quiet(tmp_path: Path) -> None:
    """BrokerFailed keeps firing 600 s (keep_firing_for) after its last report at t=72; with a
    60 s maintenance window it would have paged once the window closed (seen on real parts)."""
    h = Harness(tmp_path, maintenance_window_s=60)
    h.run(0, 900, _shutdown_then_fenced(fenced_until=72))
    assert h.alerts("BrokerFailed"), "it did fire, muted"
    assert h.sent == []


def test_a_symptom_still_holding_after_a_short_window_pages(tmp_path: Path) -> None:
    h = Harness(tmp_path, maintenance_window_s=60)
    h.run(0, 300, _shutdown_then_fenced(fenced_until=300))
    assert h.paged_rules() == ["BrokerFailed"]


@pytest.mark.parametrize("lag", [0.0, 0.5, 1.0])
def test_a_short_group_wait_does_not_page_before_the_shutdown_line(
    lag: float, tmp_path: Path
) -> None:
    """The shutdown line is logged before the broker goes away, so it normally arrives with or
    before the first symptom (both reach the job in the same query); even arriving ``lag`` s
    after it (the shipper's poll, a batch boundary), inside group_wait_s (1 s), the symptom is
    judged as maintenance before its first page."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        out = [sig("canary_availability_ratio", 0.2, t, broker_id=2),
               sig("canary_send_failures", 10, t, broker_id=2,
                   error_class="NotLeaderOrFollowerException")]  # fmt: skip
        if t >= lag:
            out.append(sig("controlled_shutdowns", 1, t, broker_id=2))
        return out

    h.run(0, 120, signals, step=1)
    assert h.firing("CanaryWriteFailure"), "it fired, muted"
    assert h.sent == []


def test_a_shutdown_line_later_than_the_group_wait_is_too_late(tmp_path: Path) -> None:
    """The bound of the above: a symptom seen group_wait_s before any shutdown line pages."""
    h = Harness(tmp_path)
    h.run(0, 10, lambda t: [sig("canary_availability_ratio", 0.2, t, broker_id=2)], step=1)
    assert h.paged_rules() == ["CanaryWriteFailure"]


def _unanswered(broker: int, since: float) -> Callable[[float], list[Signal]]:
    """Broker ``broker`` last answered the job's pings at ``since`` (refused ever after)."""

    def signals(t: float) -> list[Signal]:
        if t < since:
            return [sig("broker_unanswered_seconds", 0, t, broker_id=broker, reason="answered")]
        return [sig("broker_unanswered_seconds", t - since, t, broker_id=broker,
                    reason="refused")]  # fmt: skip

    return signals


def _logs_read(to: Callable[[float], float]) -> Callable[[float], list[Signal]]:
    return lambda t: [sig(LOGS_READ_SIGNAL, T0 + to(t), t)]


def test_a_restart_waits_for_the_logs_that_name_it(tmp_path: Path) -> None:
    """Seen on real parts (ZooKeeper rolling restart): the broker's port refused for 6 s and
    its shutdown line, behind a slow batch, reached the alert service after the first page
    would have left. The job reports the logs read only up to 4 s before the fault, so
    BrokerNotAnswering waits; the line arrives 8 s after the fault and mutes it."""
    h = Harness(tmp_path)
    down = _unanswered(2, since=10.0)
    behind = _logs_read(lambda t: min(t, 6.0) if t < 18 else t)

    def signals(t: float) -> list[Signal]:
        out = down(t) + behind(t)
        if t >= 18:  # the batch with the shutdown line (logged at 10.7) completed
            out.append(sig("controlled_shutdowns", 1, t, broker_id=2))
        return out

    h.run(0, 60, signals, step=0.5)
    assert h.firing("BrokerNotAnswering")
    assert h.sent == []


def test_a_killed_broker_pages_once_the_logs_are_read_past_its_fault(tmp_path: Path) -> None:
    """No shutdown line: once the logs are read past the fault the page leaves, with no delay
    when they are read on time (2 s batches)."""
    h = Harness(tmp_path)
    down = _unanswered(2, since=10.0)
    on_time = _logs_read(lambda t: 2.0 * ((t - 1.0) // 2.0))  # a batch every 2 s, 1 s long
    h.run(0, 30, lambda t: down(t) + on_time(t), step=0.5)
    assert h.paged_rules() == ["BrokerNotAnswering"]
    first = h.pages()[0]
    fired = h.alerts("BrokerNotAnswering")[0]
    assert first.created_at - fired.starts_at <= 1.5, "group wait only: the logs were read in time"


def test_a_stalled_log_path_holds_a_page_at_most_the_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Logs not read at all (the job stalled): the page waits maintenance_wait_s, then goes;
    the hold is logged once (the fault suite reads it: a page that should not wait did not)."""
    h = Harness(tmp_path)
    down = _unanswered(2, since=10.0)
    with caplog.at_level("INFO", logger="kafka_health.alerting.maintenance"):
        h.run(0, 40, lambda t: down(t) + _logs_read(lambda _t: 1.0)(t), step=0.5)
    held = [r.getMessage() for r in caplog.records if "awaiting the broker logs" in r.getMessage()]
    assert len(held) == 1 and held[0].startswith("BrokerNotAnswering of broker 2 held"), held
    assert h.paged_rules() == ["BrokerNotAnswering"]
    fired = h.alerts("BrokerNotAnswering")[0]
    waited = h.pages()[0].created_at - fired.starts_at
    assert 3.0 <= waited <= 4.5, waited  # the wait, then the group wait


def test_without_a_job_nothing_waits(tmp_path: Path) -> None:
    """No ``broker_logs_read_timestamp`` (replay, a service on its own): no wait."""
    h = Harness(tmp_path)
    h.run(0, 30, _unanswered(2, since=10.0), step=0.5)
    fired = h.alerts("BrokerNotAnswering")[0]
    assert h.pages()[0].created_at - fired.starts_at <= 1.5


def test_a_rule_without_a_lookback_does_not_wait(tmp_path: Path) -> None:
    """CanaryWriteFailure (maintenance own_broker, no maintenance_lookback_s) pages after its
    group wait even while the logs are read only up to long before it began: its symptoms come
    from the job's batches, with the logs of about the same time."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        out = [sig(LOGS_READ_SIGNAL, T0 + 1.0, t)]
        if t >= 10:
            out.append(sig("canary_availability_ratio", 0.2, t, broker_id=2))
        return out

    h.run(0, 30, signals, step=0.5)
    assert h.paged_rules() == ["CanaryWriteFailure"]
    fired = h.alerts("CanaryWriteFailure")[0]
    assert h.pages()[0].created_at - fired.starts_at <= 1.5
