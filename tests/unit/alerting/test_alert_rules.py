"""Each default rule fires and resolves on the signals that should trigger it, and not on
near-misses: every threshold is tested on both sides (and ``for`` where a rule has one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.alerting.rule_config import load_rules
from kafka_health.model import Signal

Signals = Callable[[float], list[Signal]]


def always(*make: Callable[[float], Signal]) -> Signals:
    return lambda t: [m(t) for m in make]


def sliding_gc_counts(gc_times: list[float]) -> Signals:
    """full_gc_count of broker 3 in 60 s windows sliding every 10 s, as the job reports it."""

    def signals(t: float) -> list[Signal]:
        if t % 10:
            return []
        count = sum(1 for g in gc_times if t - 60 < g <= t)
        return [sig("full_gc_count", count, t, broker_id=3)] if count else []

    return signals


@dataclass(frozen=True)
class Case:
    name: str
    rule: str
    fire: Signals
    near: Signals
    clear: Signals
    labels: dict[str, str] = field(default_factory=dict)
    why: str = ""


def per_broker(name: str, value: float, broker: int = 1, **extra: object) -> Signals:
    return always(lambda t: sig(name, value, t, None, broker_id=broker, **extra))


def availability(ratio: float, failures: int) -> Signals:
    """Broker 1's availability and its failed probes in the window, as the job reports them."""
    return always(
        lambda t: sig("canary_availability_ratio", ratio, t, None, broker_id=1),
        lambda t: sig(
            "canary_send_failures", failures, t, None, broker_id=1, error_class="Timeout"
        ),
    )


CASES = [
    Case(
        "1 canary availability below 0.92", "CanaryWriteFailure",
        per_broker("canary_availability_ratio", 0.91),
        per_broker("canary_availability_ratio", 0.93),
        per_broker("canary_availability_ratio", 1.0),
        {"broker_id": "1"}, "threshold 0.92: 0.91 fails, 0.93 is a near-miss",
    ),
    Case(
        "1b a fresh window's one failure", "CanaryWriteFailure",
        availability(0.5, failures=2),
        availability(0.5, failures=1),
        per_broker("canary_availability_ratio", 1.0),
        {"broker_id": "1"}, "two failed probes page however few the sends; one does not",
    ),
    Case(
        "2 canary probes silent over 30 s", "CanaryWriteFailure",
        per_broker("canary_partition_silent_seconds", 31, partition=0),
        per_broker("canary_partition_silent_seconds", 29, partition=0),
        per_broker("canary_partition_silent_seconds", 1, partition=0),
        {"broker_id": "1"}, "silent probes count as failures",
    ),
    Case(
        "3 cluster-wide availability", "CanaryWriteFailure",
        always(lambda t: sig("canary_availability_ratio", 0.9, t)),
        always(lambda t: sig("canary_availability_ratio", 0.99, t)),
        always(lambda t: sig("canary_availability_ratio", 1.0, t)),
        {}, "the series without broker_id is the cluster",
    ),
    Case(
        "4 p99 ack latency over 1 s", "CanaryWriteLatencyHigh",
        per_broker("canary_ack_latency_seconds", 1.2, 2, partition=0, quantile="0.99"),
        always(
            lambda t: sig("canary_ack_latency_seconds", 0.9, t, broker_id=2, partition=0,
                          quantile="0.99"),
            lambda t: sig("canary_ack_latency_seconds", 5.0, t, broker_id=2, partition=0,
                          quantile="0.5"),
        ),
        per_broker("canary_ack_latency_seconds", 0.01, 2, partition=0, quantile="0.99"),
        {"broker_id": "2"}, "only the p99 counts: a slow median under the p99 threshold is not it",
    ),
    Case(
        "5 a lost acknowledged write", "CanaryWritesLost",
        always(lambda t: sig("canary_lost_writes", 1, t, {"lost": [37]}, partition=0, broker_id=1)),
        always(lambda t: sig("canary_lost_writes", 0, t, partition=0, broker_id=1)),
        always(lambda t: sig("canary_lost_writes", 0, t, partition=0, broker_id=1)),
        {"broker_id": "1"}, "any lost write is critical; by the broker that acknowledged it",
    ),
    Case(
        "6 under min ISR", "UnderMinIsr",
        per_broker("under_min_isr_partitions", 1),
        always(
            lambda t: sig("under_min_isr_partitions", 0, t, broker_id=1),
            lambda t: sig("under_min_isr_partitions", 3, t),
        ),
        per_broker("under_min_isr_partitions", 0),
        {"broker_id": "1"}, "the cluster-wide total repeats the per-broker series: not paged twice",
    ),
    Case(
        "7 under-replicated for 2 minutes", "UnderReplicatedPartitions",
        per_broker("under_replicated_partitions", 4, 2),
        per_broker("under_replicated_partitions", 0, 2),
        per_broker("under_replicated_partitions", 0, 2),
        {"broker_id": "2"}, "threshold 0",
    ),
    Case(
        "8 elections over 10 per minute", "LeaderElectionStorm",
        always(
            lambda t: sig("leader_elections_per_minute", 6, t, broker_id=1),
            lambda t: sig("leader_elections_per_minute", 6, t, broker_id=2),
        ),
        always(
            lambda t: sig("leader_elections_per_minute", 5, t, broker_id=1),
            lambda t: sig("leader_elections_per_minute", 5, t, broker_id=2),
            lambda t: sig("leader_elections_per_minute", 50, t),
        ),
        per_broker("leader_elections_per_minute", 0),
        {}, "summed over brokers: 12 > 10 fires, 10 does not; the cluster series is not added",
    ),
    Case(
        "9 a Full GC", "FullGC",
        per_broker("full_gc_count", 1, 3), per_broker("full_gc_count", 0, 3),
        per_broker("full_gc_count", 0, 3), {"broker_id": "3"}, "any Full GC",
    ),
    Case(
        "10 a Full GC pause over the session timeout", "FullGCPauseOverSessionTimeout",
        per_broker("full_gc_over_session_timeout", 1, 3),
        always(
            lambda t: sig("full_gc_over_session_timeout", 0, t, broker_id=3),
            lambda t: sig("full_gc_count", 1, t, broker_id=3),
        ),
        per_broker("full_gc_over_session_timeout", 0, 3),
        {"broker_id": "3"}, "a Full GC shorter than the session timeout is not this",
    ),
    Case(
        "11 3 Full GCs in 10 minutes", "FrequentFullGC",
        sliding_gc_counts([5, 65, 125]), sliding_gc_counts([5, 125]),
        per_broker("full_gc_count", 0, 3),
        {"broker_id": "3"}, "each GC is in 6 sliding windows and counts once: 3 fire, 2 do not",
    ),
    Case(
        "12 a ZooKeeper session expiry", "ZkSessionExpired",
        per_broker("zk_session_expirations", 1, 3),
        always(
            lambda t: sig("zk_session_expirations", 0, t, broker_id=3),
            lambda t: sig("zk_disconnects", 4, t, broker_id=3),
        ),
        per_broker("zk_session_expirations", 0, 3),
        {"broker_id": "3"}, "a disconnect that reconnects in time is not an expiry",
    ),
    Case(
        "13 a coordinator load stuck", "CoordinatorLoadStuck",
        per_broker("coordinator_loads_stuck", 1), per_broker("coordinator_loads_stuck", 0),
        per_broker("coordinator_loads_stuck", 0), {"broker_id": "1"}, "threshold 0",
    ),
    Case(
        "14 the log cleaner died", "LogCleanerDead",
        per_broker("log_cleaner_deaths", 1), per_broker("log_cleaner_deaths", 0),
        per_broker("log_cleaner_deaths", 0), {"broker_id": "1"}, "stays firing a day",
    ),
    Case(
        "15 a processor uncaught exception", "ProcessorUncaughtException",
        per_broker("processor_uncaught_exceptions", 2),
        per_broker("processor_uncaught_exceptions", 0),
        per_broker("processor_uncaught_exceptions", 0), {"broker_id": "1"}, "threshold 0",
    ),
    Case(
        "16 Kafka unreachable", "ClusterUnreachable",
        always(lambda t: sig("job_kafka_unreachable", 1, t, query="monitor")),
        always(lambda t: sig("job_kafka_unreachable", 0, t, query="monitor")),
        always(lambda t: sig("job_kafka_unreachable", 0, t, query="monitor")),
        {"query": "monitor"}, "one alert per query that cannot read",
    ),
    Case(
        "17 no batch for over 8 s", "MonitorStalled",
        lambda t: [sig("job_last_batch_timestamp", T0, 0, query="monitor")] if t == 0 else [],
        always(lambda t: sig("job_last_batch_timestamp", T0 + t - 7, t, query="monitor")),
        always(lambda t: sig("job_last_batch_timestamp", T0 + t, t, query="monitor")),
        {"query": "monitor"}, "absence fires: nothing is reported after the last batch",
    ),
    Case(
        "18 a broker's server log silent over 900 s", "LogStreamSilent",
        lambda t: [sig("log_stream_age_seconds", 800, 0, broker_id=3, kind="server")] if t == 0
        else [],
        always(lambda t: sig("log_stream_age_seconds", 895, t, broker_id=3, kind="server")),
        always(lambda t: sig("log_stream_age_seconds", 1, t, broker_id=3, kind="server")),
        {"broker_id": "3", "kind": "server"}, "the age keeps growing when nothing arrives",
    ),
    Case(
        "19 the controller saw a broker fail", "BrokerFailed",
        per_broker("broker_failures", 1, 2), per_broker("broker_failures", 0, 2),
        per_broker("broker_failures", 0, 2), {"broker_id": "2"}, "threshold 0",
    ),
    Case(
        "20 a query failed with a bug", "MonitorFailed",
        always(lambda t: sig("job_query_failed", 1, t, query="monitor", exception="KeyError")),
        always(lambda t: sig("job_query_failed", 0, t, query="monitor", exception="KeyError")),
        always(lambda t: sig("job_query_failed", 0, t, query="monitor", exception="KeyError")),
        {"query": "monitor", "exception": "KeyError"}, "by query and class",
    ),
    Case(
        "21 a source went stale", "MonitorBlind",
        always(lambda t: sig("signal_stale", 1, t, {"age_s": 30}, source="canary")),
        always(lambda t: sig("signal_stale", 0, t, {"age_s": 2}, source="canary")),
        always(lambda t: sig("signal_stale", 0, t, {"age_s": 2}, source="canary")),
        {"source": "canary"}, "the job decides staleness; the rule pages it",
    ),
]  # fmt: skip

FIRE_UNTIL = 200.0


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_fires_then_resolves(case: Case, tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, FIRE_UNTIL, case.fire)
    assert h.firing(case.rule), case.why
    [alert] = [a for a in h.alerts(case.rule) if a.state == "firing"]
    identifying = {k: v for k, v in alert.labels.items() if k not in ("alertname", "severity")}
    assert identifying == case.labels, case.why
    assert case.rule in h.paged_rules()

    rule = h.service.engine.rules[case.rule]
    lasts = rule.keep_firing_for_s + max(c.range_s for c in rule.any_of)  # range: events age out
    step = max(5.0, lasts / 30)
    h.run(FIRE_UNTIL + step, FIRE_UNTIL + lasts + 3 * step, case.clear, step)
    assert not h.firing(case.rule), "cleared: resolved after keep_firing_for"
    assert h.resolutions(case.rule), "the resolution is notified"
    assert h.paged_rules().count(case.rule) == 1


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_near_miss_does_not_fire(case: Case, tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, 2 * FIRE_UNTIL, case.near)
    assert not h.firing(case.rule), case.why
    assert case.rule not in h.paged_rules(), case.why


# (rule, signal, labels, seconds the condition holds, fires?, why)
FOR_CASES = [
    ("UnderReplicatedPartitions", "under_replicated_partitions", {"broker_id": 1}, 115, False,
     "for_s 120: 115 s is not enough"),
    ("UnderReplicatedPartitions", "under_replicated_partitions", {"broker_id": 1}, 125, True,
     "for_s 120: 125 s is"),
    ("UnderReplicatedPartitions", "under_replicated_partitions", {"broker_id": 1}, 0, False,
     "for_s 120: not at once"),
    ("ClusterUnreachable", "job_kafka_unreachable", {"query": "monitor"}, 0, True,
     "for_s 0: a blind monitor says so at once"),
    ("MonitorBlind", "signal_stale", {"source": "canary"}, 0, True,
     "for_s 0: the job already waited stale_after"),
    ("UnderMinIsr", "under_min_isr_partitions", {"broker_id": 1}, 5, False, "for_s 10"),
    ("UnderMinIsr", "under_min_isr_partitions", {"broker_id": 1}, 15, True, "for_s 10"),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "signal", "lbl", "held", "fires", "why"), FOR_CASES)
def test_for_duration_both_sides(
    rule: str,
    signal: str,
    lbl: dict[str, object],
    held: float,
    fires: bool,
    why: str,
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    h.run(0, held, lambda t: [sig(signal, 1, t, None, **lbl)], step=1)
    assert h.firing(rule) is fires, why


def test_shipped_rules_cover_the_issue() -> None:
    """Every rule issue 7 names is in conf/alerts.yaml, enabled, with summary and runbook."""
    rules = load_rules(Path(__file__).resolve().parents[3] / "conf" / "alerts.yaml").rules
    named = [
        "CanaryWriteFailure", "CanaryWriteLatencyHigh", "CanaryWritesLost", "UnderMinIsr",
        "UnderReplicatedPartitions", "LeaderElectionStorm", "FullGC",
        "FullGCPauseOverSessionTimeout", "FrequentFullGC", "ZkSessionExpired",
        "CoordinatorLoadStuck", "LogCleanerDead", "ProcessorUncaughtException",
        "ClusterUnreachable", "MonitorStalled", "LogStreamSilent", "MonitorFailed",
        "MonitorBlind",
    ]  # fmt: skip
    for name in named:
        assert name in rules and rules[name].enabled, name
        assert rules[name].summary and rules[name].runbook, name
    assert {c.rule for c in CASES} >= set(named)


def test_a_disabled_rule_never_fires(tmp_path: Path) -> None:
    import dataclasses

    rules = load_rules(Path(__file__).resolve().parents[3] / "conf" / "alerts.yaml")
    off = dataclasses.replace(rules.rules["FullGC"], enabled=False)
    h = Harness(tmp_path, rules=dataclasses.replace(rules, rules={**rules.rules, "FullGC": off}))
    h.run(0, 60, per_broker("full_gc_count", 1, 3))
    assert h.alerts("FullGC") == [] and h.sent == []


def _fresh_canary(tmp_path: Path, failing_seqs: set[int]) -> Harness:
    """A canary that has just started: one acks=all probe a second to each of 3 partitions
    (led by brokers 1, 2 and 3) for 30 s, broker 2's probes ``failing_seqs`` timing out;
    the write-path detector's signals go to the shipped rules each second."""
    from kafka_health.config import JobConfig
    from kafka_health.detectors.inputs import Batch, Outcome
    from kafka_health.detectors.write_path import WritePath

    h = Harness(tmp_path)
    detector = WritePath(JobConfig())
    for t in range(30):
        send_ms = round((T0 + t) * 1000)
        outcomes = []
        for partition, leader in ((0, 1), (1, 2), (2, 3)):
            fails = leader == 2 and t in failing_seqs
            outcomes.append(
                Outcome("c", partition, t, "all", send_ms, send_ms + 5, not fails,
                        None if fails else 0.005, leader, "Timeout" if fails else None)
            )  # fmt: skip
        detector.fold(Batch(outcomes=outcomes), T0 + t + 0.5)
        h.tick(t + 0.5, detector.signals(T0 + t + 0.5))
    return h


def test_one_failed_probe_of_a_fresh_canary_is_not_a_page(tmp_path: Path) -> None:
    """Broker 2's fourth probe times out when its window holds four sends (availability 0.75,
    below 0.92): one failure is a blip however few the sends, as in a full window."""
    h = _fresh_canary(tmp_path, failing_seqs={3})
    assert h.pages() == []


def test_two_failed_probes_of_a_fresh_canary_page(tmp_path: Path) -> None:
    """The third and fourth probes time out: two failures page at once, the window still
    short."""
    h = _fresh_canary(tmp_path, failing_seqs={2, 3})
    assert h.paged_rules() == ["CanaryWriteFailure"]
    [page] = h.pages()
    assert page.alerts[0].labels["broker_id"] == "2"
    assert page.created_at - T0 < 6, "seen at 3.5 s, paged after the group wait"
