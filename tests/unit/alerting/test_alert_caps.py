"""Caps where untrusted label values could multiply state (issue 55, item 4): series per signal
where they enter the store, alerts per rule in the engine, each overflow counted; a flood of
rejected records pages once."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import generate_latest
from tests.support.alerting_harness import T0, Harness, shipped_rules, sig

from kafka_health.alerting.engine import Engine
from kafka_health.alerting.rule_config import AlertRulesConfig
from kafka_health.alerting.store import SignalStore
from kafka_health.config import ExporterConfig
from kafka_health.model import Signal, labels


def stream(broker: int | str, at: float = T0, value: float = 1.0) -> Signal:
    return Signal("log_stream_age_seconds", labels(broker_id=broker, kind="server"), value, at)


def test_the_store_holds_at_most_max_series_per_signal_and_counts_the_rest() -> None:
    store = SignalStore(ttl_s=60, max_series=3)
    store.update([stream(b) for b in range(5)], T0)
    assert store.count("log_stream_age_seconds") == 3
    assert store.dropped() == {"log_stream_age_seconds": 2}
    held = {s.signal.label("broker_id") for s in store.series("log_stream_age_seconds")}
    assert held == {"0", "1", "2"}, "the first series keep their places"
    # A series held is still updated; another signal has a cap of its own.
    store.update([stream(1, T0 + 5, 9.0), sig("full_gc_count", 1, 0, broker_id=1)], T0 + 5)
    assert {s.signal.value for s in store.series("log_stream_age_seconds")} == {1.0, 9.0}
    assert store.count("full_gc_count") == 1
    assert store.dropped() == {"log_stream_age_seconds": 2}


def test_a_flood_does_not_push_out_the_series_already_held() -> None:
    store = SignalStore(ttl_s=60, max_series=10)
    good = [stream(b) for b in (1, 2, 3)]
    store.replace(good, T0, keep=())
    flood = [stream(b) for b in range(1000, 101_000)]
    for tick in range(3):  # the job publishes its snapshot again and again
        store.replace([*flood, *good], T0 + tick, keep=())
    brokers = {s.signal.label("broker_id") for s in store.series("log_stream_age_seconds")}
    assert {"1", "2", "3"} <= brokers
    assert store.count("log_stream_age_seconds") == 10
    assert store.dropped()["log_stream_age_seconds"] == 3 * (100_000 - 7)


def test_a_place_freed_by_a_snapshot_or_the_ttl_is_taken_again() -> None:
    store = SignalStore(ttl_s=60, max_series=2)
    store.replace([stream(1), stream(2), stream(3)], T0, keep=())
    store.replace([stream(3)], T0 + 1, keep=())
    assert [s.signal.label("broker_id") for s in store.series("log_stream_age_seconds")] == ["3"]
    store.update([stream(4)], T0 + 2)
    store.expire(T0 + 62)  # 3 was received at 1, 4 at 2: 3 expires
    store.update([stream(5)], T0 + 62)
    held = sorted(s.signal.label("broker_id") for s in store.series("log_stream_age_seconds"))
    assert held == ["4", "5"]


def test_histories_are_capped_too_and_a_restore_keeps_the_cap() -> None:
    store = SignalStore(ttl_s=60, history_s={"full_gc_count": 300.0}, max_series=2)
    for t in range(3):  # a new series each tick; the old ones' histories stay 300 s
        store.replace([sig("full_gc_count", 1, t, broker_id=t)], T0 + t, keep=())
    assert len(store.history("full_gc_count")) == 2
    assert store.dropped() == {"full_gc_count": 1}
    saved = SignalStore(ttl_s=60, max_series=50)
    saved.update([stream(b) for b in range(50)], T0)
    restored = SignalStore(ttl_s=60, max_series=5)
    restored.restore(saved.to_json(), T0)
    assert restored.count("log_stream_age_seconds") == 5


def _rule() -> AlertRulesConfig:
    """LogStreamSilent alone (by broker_id and kind)."""
    rules = shipped_rules()
    return AlertRulesConfig(
        rules={"LogStreamSilent": rules.rules["LogStreamSilent"]}, inhibit_rules=[]
    )


def test_the_engine_holds_at_most_max_alerts_per_rule_and_counts_the_rest() -> None:
    engine = Engine(_rule(), max_alerts_per_rule=4)
    store = SignalStore(ttl_s=60)
    store.update([stream(b, value=5000.0) for b in range(10)], T0)
    engine.evaluate(store, T0)
    assert len(engine.active()) == 4
    assert engine.dropped() == {"LogStreamSilent": 6}
    engine.evaluate(store, T0 + 1)
    assert len(engine.active()) == 4, "the same four: an active alert keeps its place"
    assert engine.dropped() == {"LogStreamSilent": 12}, "counted at each evaluation"
    first = {a.broker_id for a in engine.active()}
    # Two of them recover: their places go to two of the others once they resolve.
    store.update([stream(b, T0 + 2, 1.0) for b in sorted(first, key=int)[:2]], T0 + 2)
    resolved_at = T0 + 2 + engine.rules["LogStreamSilent"].keep_firing_for_s + 1
    engine.evaluate(store, resolved_at)
    assert len(engine.active()) == 2, "resolved in this evaluation, after its matches"
    engine.evaluate(store, resolved_at + 1)
    assert len(engine.active()) == 4
    assert {a.broker_id for a in engine.active()} != first


def test_a_rule_that_is_not_capped_is_not_counted() -> None:
    engine = Engine(_rule(), max_alerts_per_rule=100)
    store = SignalStore(ttl_s=60)
    store.update([stream(b, value=5000.0) for b in range(10)], T0)
    engine.evaluate(store, T0)
    assert len(engine.active()) == 10
    assert engine.dropped() == {}


def test_the_overflows_are_exported(tmp_path: Path) -> None:
    h = Harness(tmp_path, exporter=ExporterConfig(port=None, max_series_per_signal=2))
    h.service.engine.max_alerts_per_rule = 1
    h.tick(0, [sig("full_gc_count", 1, 0, broker_id=b) for b in range(4)])
    text = generate_latest(h.service.registry).decode()
    assert 'kafka_health_signal_series_dropped_total{signal="full_gc_count"} 2.0' in text
    assert 'kafka_health_alerts_dropped_total{rule="FullGC"} 1.0' in text
    assert text.count("kafka_health_full_gc_count{") == 2


def test_a_flood_of_rejected_records_pages_once(tmp_path: Path) -> None:
    """Every source and reason rejecting, for ten minutes, growing: one alert for the cluster,
    one page (real HTTP to a real receiver), naming the sources and reasons."""
    h = Harness(tmp_path)
    reasons = [("broker_logs", "bad_broker_id"), ("canary_results", "bad_acks"),
               ("cluster_state", "bad_topic"), ("broker_logs", "bad_topic"),
               ("canary_topic", "too_long")]  # fmt: skip

    def rejected(t: float) -> list[Signal]:
        return [
            sig("input_rejected_records", 1000 * (1 + t), t, source=source, reason=reason)
            for source, reason in reasons
        ]

    h.run(0, 600, rejected, step=5, snapshot=True)
    alerts = h.alerts("MonitorInputRejected")
    assert len(alerts) == 1 and alerts[0].labels.get("broker_id") is None
    pages = [n for n in h.pages() if any(a.labels["alertname"] == "MonitorInputRejected"
                                        for a in n.alerts)]  # fmt: skip
    assert len(pages) == 1
    assert len(h.pages()) == 1, "nothing else paged"
    summary = alerts[0].annotations["summary"]
    assert "bad_broker_id" in summary and "canary_results" in summary, summary
    # The rejections stop: the signal goes (the job's window empties), the alert resolves.
    h.run(605, 800, lambda t: [], step=5, snapshot=True)
    assert not h.firing("MonitorInputRejected")
    assert len(h.resolutions("MonitorInputRejected")) == 1
