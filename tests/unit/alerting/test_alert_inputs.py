"""The job's inputs: full snapshots (``publish``), partial updates (``submit``), and the
job-health calls that make ClusterUnreachable and MonitorStalled fire without batches."""

from __future__ import annotations

from pathlib import Path

from tests.support.alerting_harness import T0, Harness, sig

from kafka_health.model import Signal


def publish(h: Harness, t: float, signals: list[Signal]) -> None:
    h.clock.now = T0 + t
    h.service.publish(signals)
    h.service.step()
    h.service.deliver()


def test_a_series_missing_from_the_next_snapshot_is_gone(tmp_path: Path) -> None:
    """The job's board only reports what is current: a stuck load that finished is absent."""
    h = Harness(tmp_path)
    for t in range(0, 30, 5):
        publish(h, t, [sig("coordinator_loads_stuck", 1, t, broker_id=1)])
    assert h.firing("CoordinatorLoadStuck")
    for t in range(30, 100, 5):
        publish(h, t, [sig("full_gc_count", 0, t, broker_id=2)])
    assert not h.firing("CoordinatorLoadStuck"), "gone at 30, resolved keep_firing_for (60 s) later"
    assert len(h.resolutions("CoordinatorLoadStuck")) == 1


def test_a_series_missing_from_partial_updates_lasts_until_the_ttl(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, 25, lambda t: [sig("coordinator_loads_stuck", 1, t, broker_id=1)])
    h.run(30, 80, lambda t: [sig("full_gc_count", 0, t, broker_id=2)])
    assert h.firing("CoordinatorLoadStuck"), "submit is partial: the series holds for 60 s"
    h.run(85, 200, lambda t: [])
    assert not h.firing("CoordinatorLoadStuck")


def test_range_history_survives_absence_from_snapshots(tmp_path: Path) -> None:
    """Full GCs are reported only in the windows that hold them; the 10-minute count keeps
    them while the snapshots in between do not mention the broker."""
    h = Harness(tmp_path)
    for t in range(0, 400, 10):
        in_window = any(g <= t < g + 60 for g in (0, 150, 300))
        publish(h, t, [sig("full_gc_count", 1, t, broker_id=3)] if in_window else [])
    assert h.firing("FrequentFullGC")


def test_watched_query_without_batches_stalls(tmp_path: Path) -> None:
    """A query's first batch compiles its plan: it gets 37 s of grace, then 8 s as any."""
    h = Harness(tmp_path)
    h.clock.now = T0
    h.service.watch_query("monitor")
    for t in range(0, 45, 1):
        publish(h, t, [])  # the job's snapshots do not mention the query yet
    assert not h.firing("MonitorStalled"), "37 s of grace + 8 s without a batch not yet over"
    for t in range(45, 50, 1):
        publish(h, t, [])
    assert h.firing("MonitorStalled")
    assert [p.alerts[0].labels["alertname"] for p in h.pages()] == ["MonitorStalled"]
    assert h.pages()[0].created_at - T0 <= 48, "paged within a group wait of the 45 s"
    for t in range(35, 100, 5):
        h.clock.now = T0 + t
        h.service.batch_completed("monitor")
        h.tick(t)
    assert not h.firing("MonitorStalled")


def test_a_restarted_job_counts_its_stall_from_its_own_start(tmp_path: Path) -> None:
    """``kafka-health run`` killed (kill -9) and started again: the new process needs some
    seconds before its query starts. The old process's last batch does not page
    MonitorStalled meanwhile; the new query's silence does."""
    h = Harness(tmp_path)
    h.clock.now = T0
    h.service.watch_query("monitor")
    for t in range(0, 30, 2):
        h.clock.now = T0 + t
        h.service.batch_completed("monitor")
        h.tick(t)
    h.restart()  # killed at 30 s; Spark starts again for 40 s: no batch, no snapshot
    for t in range(30, 70, 1):
        h.tick(t)
    assert not h.firing("MonitorStalled"), "the old job's last batch is not this one's"
    h.clock.now = T0 + 70
    h.service.watch_query("monitor")
    for t in range(70, 120, 1):
        h.tick(t)
    assert h.firing("MonitorStalled"), "the new query's own silence still pages"


def test_kafka_unreachable_fires_without_any_batch(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.clock.now = T0
    h.service.kafka_unreachable("monitor", True)
    h.run(0, 5, lambda t: [], step=1)  # for_s 0, then group_wait 3 s
    assert h.paged_rules() == ["ClusterUnreachable"]
    assert h.pages()[0].created_at - T0 <= 3.0
    h.service.kafka_unreachable("monitor", False)
    h.run(65, 130, lambda t: [])
    assert h.resolutions("ClusterUnreachable")


def test_maintenance_reads_replicas_from_a_mapping(tmp_path: Path) -> None:
    """Details as the job writes them: "topic-partition" names, replicas in a mapping."""
    h = Harness(tmp_path)

    def signals(t: float) -> list[Signal]:
        hosted = {"partitions": ["t-0"], "replicas": {"t-0": [1, 2, 3]}}
        not_hosted = {"partitions": ["u-0"], "replicas": {"u-0": [1, 3]}}
        return [
            sig("controlled_shutdowns", 1, t, broker_id=2),
            sig("under_min_isr_partitions", 1, t, hosted, broker_id=1),
            sig("under_min_isr_partitions", 1, t, not_hosted, broker_id=3),
        ]

    h.run(0, 60, signals)
    assert [p.group_labels for p in h.pages()] == [{"broker_id": "3"}]
