"""Inventory timelines: per-broker, per-partition and per-stream state leaves the detectors
once its subject left the cluster (no longer registered, no replica; a partition the canary
topic no longer has) and was not seen for ``job.inventory_ttl_s``; never before, never for a
member, never while the cluster's descriptions stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.detector_support import batch, broker, by_name, done, event, failed, ok

from kafka_health.config import JobConfig
from kafka_health.detectors.broker_failures import BrokerFailures
from kafka_health.detectors.coverage import Coverage
from kafka_health.detectors.inputs import ClusterRecord, LogStream
from kafka_health.detectors.inventory import Inventory
from kafka_health.detectors.loss import Loss
from kafka_health.detectors.write_path import WritePath
from kafka_health.job.board import SignalBoard
from kafka_health.model import Signal
from kafka_health.reachability.ping import Ping

TTL = 60.0
CANARY = "__kafka_health_canary"
JOB = JobConfig(inventory_ttl_s=TTL)
ADDRESSES = {1: ("127.0.0.1", 9091), 2: ("127.0.0.1", 9092), 3: ("127.0.0.1", 9093)}


def snapshot(at_s: float, brokers: tuple[int, ...], canary_partitions: int = 3) -> list[Any]:
    """One complete snapshot at ``at_s``: its broker records, the canary topic's partitions,
    the closing record."""
    at_ms = round(at_s * 1000)
    records: list[Any] = [broker(at_ms, b) for b in brokers]
    records += [
        ClusterRecord("partition", at_ms, CANARY, p, brokers[p % len(brokers)], 1, brokers,
                      brokers, 1)
        for p in range(canary_partitions)
    ]  # fmt: skip
    return [*records, done(at_ms, len(brokers))]


def streams(*brokers: int) -> list[LogStream]:
    return [LogStream(str(b), kind, 1) for b in brokers for kind in ("server", "gc")]


def about(signals: list[Signal], broker_id: str) -> list[Signal]:
    return [s for s in signals if s.label("broker_id") == broker_id]


def test_a_decommissioned_broker_leaves_the_board_after_the_ttl_and_no_sooner() -> None:
    """Broker 3 logs and is described until t=100 (its partitions already moved away); from
    then on it is in no snapshot and no listing. Its log streams and snapshot entry stay
    while it is gone for less than the TTL, then every series naming it is gone; brokers 1
    and 2 keep theirs."""
    now = [0.0]
    board = SignalBoard(JOB, clock=lambda: now[0])
    batch_id = 0
    for t in range(0, 100, 10):
        now[0] = float(t)
        board.listed({b: ADDRESSES[b] for b in (1, 2, 3)}, now[0])
        board.fold(batch_id, batch(cluster=snapshot(t, (1, 2, 3)), streams=streams(1, 2, 3)))
        batch_id += 1
    assert about(board.signals(), "3"), "a member: reported"
    for t in range(100, 250, 10):
        now[0] = float(t)
        board.listed({b: ADDRESSES[b] for b in (1, 2)}, now[0])
        board.fold(batch_id, batch(cluster=snapshot(t, (1, 2)), streams=streams(1, 2)))
        batch_id += 1
        remaining = about(board.signals(), "3")
        if t < 90 + TTL:  # last seen at 90: not gone for the TTL yet
            assert remaining, f"forgotten at {t}, before the TTL"
    assert about(board.signals(), "3") == []
    for kept in ("1", "2"):
        assert by_name(about(board.signals(), kept), "log_stream_age_seconds")


def test_a_member_whose_log_stream_is_silent_keeps_it_until_it_pages() -> None:
    """LogStreamSilent's purpose: a live broker whose shipper stopped is reported for as long
    as it is silent, past any TTL."""
    coverage = Coverage(JOB, CANARY)
    inventory = Inventory(TTL, 3600.0, [CANARY])
    coverage.fold(batch(streams=streams(1, 2)), 0.0)
    for t in range(0, 2000, 10):
        records = snapshot(t, (1, 2))
        inventory.observe(records)
        coverage.fold(batch(cluster=records, streams=streams(1)), float(t))
        coverage.prune(inventory, float(t))
    silent = by_name(coverage.signals(2000.0), "log_stream_age_seconds")
    ages = {dict(k)["broker_id"]: s.value for k, s in silent.items() if s.label("kind") == "server"}
    assert ages["2"] >= 1990.0 and ages["1"] < 20.0


def test_one_log_record_with_an_unknown_broker_id_leaves_after_the_ttl() -> None:
    """A broker id no snapshot ever listed (a misconfigured shipper, a mutated record): its
    stream is reported while it arrives, and forgotten once it has not for the TTL."""
    coverage = Coverage(JOB, CANARY)
    inventory = Inventory(TTL, 3600.0, [CANARY])
    coverage.fold(batch(streams=[LogStream("77", "server", 1), LogStream("x!", "gc", 1)]), 0.0)
    for t in range(0, 200, 10):
        records = snapshot(t, (1, 2, 3))
        inventory.observe(records)
        coverage.fold(batch(cluster=records, streams=streams(1, 2, 3)), float(t))
        coverage.prune(inventory, float(t))
        streams_of = {s.label("broker_id") for s in coverage.signals(float(t))}
        if t < TTL:
            assert {"77", "x!"} <= streams_of, t
    assert {"77", "x!"}.isdisjoint(s.label("broker_id") for s in coverage.signals(200.0))


def test_a_canary_outcome_for_a_partition_the_topic_does_not_have_leaves() -> None:
    """One outcome for partition 9 of a 3-partition canary topic is silent after 30 s (a
    CanaryWriteFailure) and is forgotten after the TTL; partition 2, which exists and went
    silent too, is kept: a real silence."""
    coverage = Coverage(JOB, CANARY)
    inventory = Inventory(TTL, 3600.0, [CANARY])
    coverage.fold(batch(outcomes=[ok(9, 1, 0), ok(2, 1, 0)]), 0.0)
    for t in range(0, 200, 10):
        records = snapshot(t, (1, 2, 3))
        inventory.observe(records)
        coverage.fold(batch(cluster=records, outcomes=[ok(0, t, t * 1000)]), float(t))
        coverage.prune(inventory, float(t))
        silent = by_name(coverage.signals(float(t)), "canary_partition_silent_seconds")
        partitions = {s.label("partition") for s in silent.values()}
        if t == 40:
            assert {"9", "2"} <= partitions and silent_value(silent, "9") > 0
    assert partitions == {"0", "2"}
    assert silent_value(silent, "2") > 0


def silent_value(silent: dict[Any, Signal], partition: str) -> float:
    return next(s.value for s in silent.values() if s.label("partition") == partition)


def test_nothing_leaves_while_the_cluster_is_not_described() -> None:
    """No prober and no listing (a replay): nothing is known to have left. A prober that
    stops after describing the cluster: absence needs a newer snapshot, nothing leaves."""
    blind = Inventory(TTL, 3600.0, [CANARY])
    assert not blind.broker_left("3", 0.0, 10_000.0)
    assert not blind.partition_left(CANARY, 9, 0.0, 10_000.0)
    stopped = Inventory(TTL, 3600.0, [CANARY])
    stopped.observe(snapshot(0, (1, 2, 3)))
    assert not stopped.broker_left("3", 0.0, 10_000.0)
    assert not stopped.broker_left("77", 0.0, 10_000.0)
    stopped.observe(snapshot(TTL, (1, 2)))
    assert stopped.broker_left("3", 0.0, 10_000.0), "newer evidence: gone"


def test_a_kraft_broker_stopped_for_good_is_a_member_until_unregistered() -> None:
    """Stopped and fenced, a KRaft broker is still registered: listed and in the snapshots.
    Unregistered, it leaves both, and the inventory lets it go after the TTL."""
    inventory = Inventory(TTL, 3600.0, [CANARY])
    for t in range(0, 600, 10):
        inventory.listed([1, 2, 3], float(t))
        inventory.observe(snapshot(t, (1, 2, 3)))
    assert not inventory.broker_left("3", 0.0, 600.0)
    for t in range(600, 700, 10):
        inventory.listed([1, 2], float(t))
        inventory.observe(snapshot(t, (1, 2)))
        gone = inventory.broker_left("3", 0.0, float(t))
        assert gone == (t - 590 >= TTL), t


def test_a_dead_zookeeper_broker_holding_replicas_stays_a_member() -> None:
    """ZooKeeper forgets a dead broker's registration at once (the listing loses it), but its
    replicas keep it in the snapshots: it stays, however long it is down."""
    inventory = Inventory(TTL, 3600.0, [CANARY])
    for t in range(0, 2000, 10):
        inventory.listed([1, 2], float(t))
        inventory.observe(snapshot(t, (1, 2, 3)))  # 3: a replica holder, live false
    assert not inventory.broker_left("3", 0.0, 2000.0)


def test_without_a_prober_a_broker_the_listing_lost_is_kept_for_forget_after_s() -> None:
    """Only a snapshot tells a dead broker that still holds replicas: with the listing alone,
    a broker it lost is kept for the reachability's forget_after_s, not the TTL."""
    inventory = Inventory(TTL, 3600.0, [CANARY])
    inventory.listed([1, 2, 3], 0.0)
    for t in range(10, 4000, 10):
        inventory.listed([1, 2], float(t))
        if t < 3600:
            assert not inventory.broker_left("3", 0.0, float(t)), t
    assert inventory.broker_left("3", 0.0, 4000.0)


def test_a_departed_brokers_failure_is_forgotten_not_held_until_it_is_seen_back() -> None:
    """BrokerFailed holds until the broker is seen live; a broker that left never will be."""
    failures = BrokerFailures(JOB)
    inventory = Inventory(TTL, 3600.0, [CANARY])
    report = event("broker_failure", "1", 5_000, subject_broker_id=3)
    failures.fold(batch(cluster=snapshot(0, (1, 2, 3)), events=[report]), 5.0)
    inventory.observe(snapshot(0, (1, 2, 3)))
    for t in range(10, 200, 10):
        records = snapshot(t, (1, 2))
        inventory.observe(records)
        failures.fold(batch(cluster=records), float(t))
        failures.prune(inventory, float(t))
        held = by_name(failures.signals(float(t)), "broker_failures")
        if t < 5 + TTL:
            assert held, t
    assert failures.signals(200.0) == []
    assert failures.state()["snapshotted"] == ["1", "2"]


def test_a_broker_that_restarts_keeps_its_failure_and_its_state() -> None:
    """A broker down 4 minutes (a slow restart) that is still described keeps everything."""
    failures = BrokerFailures(JOB)
    coverage = Coverage(JOB, CANARY)
    inventory = Inventory(TTL, 3600.0, [CANARY])
    report = event("broker_failure", "1", 5_000, subject_broker_id=3)
    failures.fold(batch(events=[report]), 5.0)
    coverage.fold(batch(streams=streams(1, 2, 3)), 0.0)
    for t in range(0, 240, 10):
        records = [*snapshot(t, (1, 2)), broker(t * 1000, 3, live=False)]
        inventory.observe(records)
        inventory.listed([1, 2, 3], float(t))  # KRaft: fenced, still registered
        for d in (failures, coverage):
            d.fold(batch(cluster=records), float(t))
            d.prune(inventory, float(t))
    assert by_name(failures.signals(240.0), "broker_failures")
    assert about(coverage.signals(240.0), "3")


def test_loss_forgets_the_partitions_the_canary_topic_no_longer_has() -> None:
    loss = Loss(JobConfig(loss_grace_s=1.0, inventory_ttl_s=TTL), CANARY)
    inventory = Inventory(TTL, 3600.0, [CANARY])
    loss.fold(batch(outcomes=[ok(9, 1, 0), ok(0, 1, 0)]), 0.0)
    for t in range(0, 200, 10):
        inventory.observe(snapshot(t, (1, 2, 3)))
        loss.fold(batch(outcomes=[ok(0, t + 2, t * 1000)]), float(t))
        loss.prune(inventory, float(t))
    state = loss.state()
    assert {p for _source, p, _ms in state["newest"]} == {0}
    assert all(k[1] == 0 for k in state["pending"])


def test_the_write_paths_series_of_a_departed_leader_leave_with_the_window() -> None:
    """The write path keeps only its window: a broker that leads nothing any more is gone
    from it one window after its last probe, with no pruning."""
    job = JobConfig(inventory_ttl_s=TTL)
    path = WritePath(job)
    path.fold(batch(outcomes=[failed(2, 1, 0, "Timeout", leader=3)]), 0.0)
    assert about(path.signals(0.0), "3")
    for t in range(1, 80):
        path.fold(batch(outcomes=[ok(2, t, t * 1000, leader=1)]), float(t))
    assert about(path.signals(80.0), "3") == []


def test_the_inventory_is_saved_and_a_state_written_before_it_still_loads() -> None:
    now = [0.0]
    board = SignalBoard(JOB, clock=lambda: now[0])
    for i, t in enumerate(range(0, 100, 10)):
        now[0] = float(t)
        board.fold(i, batch(cluster=snapshot(t, (1, 2, 3)), streams=streams(1, 2, 3)))
    saved = board.state()
    assert saved["inventory"]["snapshot_ms"] == 90_000
    resumed = SignalBoard(JOB, clock=lambda: now[0])
    resumed.restore(saved)
    assert resumed.inventory.state() == board.inventory.state()
    old_format = {k: v for k, v in saved.items() if k != "inventory"}
    older = SignalBoard(JOB, clock=lambda: now[0])
    older.restore(old_format)
    assert not older.inventory.informed
    now[0] = 500.0
    older.fold(10, batch(cluster=snapshot(500, (1, 2))))
    assert about(older.signals(), "3"), "one snapshot since the restart: nothing is gone yet"


def test_the_ping_roster_follows_the_listing_and_the_snapshots() -> None:
    """Reachability (the driver's pings): a KRaft broker stopped for good is pinged while it
    is listed (fenced, registered); unregistered and holding nothing, it is forgotten."""
    now = [0.0]
    board = SignalBoard(JOB, clock=lambda: now[0])
    board.listed(ADDRESSES, 0.0)
    board.answered([Ping(b, 0.0, 0.001, "answered") for b in (1, 2, 3)])
    board.fold(0, batch(cluster=snapshot(0, (1, 2, 3))))
    now[0] = 20.0
    board.listed(ADDRESSES, 20.0)
    board.answered([Ping(3, 19.0, 19.001, "refused")])
    board.fold(1, batch(cluster=snapshot(20, (1, 2, 3))))
    assert 3 in board.ping_targets()
    now[0] = 40.0
    board.listed({b: ADDRESSES[b] for b in (1, 2)}, 40.0)
    board.fold(2, batch(cluster=snapshot(40, (1, 2))))
    assert 3 not in board.ping_targets()
    unanswered = by_name(board.signals(), "broker_unanswered_seconds")
    assert {s.label("broker_id") for s in unanswered.values()} == {"1", "2"}


def test_a_paged_broker_that_is_then_decommissioned_gets_its_resolution_not_a_page(
    tmp_path: Path,
) -> None:
    """Broker 3 crashes (no controlled shutdown: no maintenance), BrokerNotAnswering pages.
    The operator then decommissions it (replicas moved off, unregistered): once it has left
    the inventory its series are gone, and the incident is closed by a resolution
    notification (what a receiver closes an incident with, not a page); nothing pages again."""
    from tests.support.alerting_harness import T0, Harness, stop_receivers

    try:
        now = [T0]
        board = SignalBoard(JOB, clock=lambda: now[0])
        alerts = Harness(tmp_path)
        for step in range(40):
            t = step * 5.0
            now[0] = T0 + t
            members = (1, 2, 3) if t < 60 else (1, 2)  # decommissioned at 60 s
            board.listed({b: ADDRESSES[b] for b in members}, now[0])
            down = t >= 10
            board.answered(
                [Ping(b, now[0], now[0] + 0.001, "refused" if down and b == 3 else "answered")
                 for b in board.ping_targets()]
            )  # fmt: skip
            running = (1, 2) if down else (1, 2, 3)
            board.fold(step, batch(cluster=snapshot(T0 + t, members), streams=streams(*running)))
            alerts.tick(t, board.signals(), snapshot=True)
        pages = alerts.pages()
        assert [a.labels["alertname"] for n in pages for a in n.alerts] == ["BrokerNotAnswering"]
        assert alerts.resolutions("BrokerNotAnswering"), "the incident is closed"
        assert len(pages) == 1, "and not paged again"
        assert about(board.signals(), "3") == []
    finally:
        stop_receivers()
