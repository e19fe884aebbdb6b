"""A planned decommission on a real 3-broker KRaft cluster leaves the monitor, and pages
nobody.

Real parts: the dev cluster; the cluster-state prober (``ClusterStateProber`` over
``AdminSnapshotSource``, its records decoded as the job decodes them); the driver's listing
(``AdminLister``, fenced brokers included) and its pings (``ping``, ApiVersions on a socket);
the job's ``SignalBoard`` with its inventory; the alert service with the shipped rules,
delivering over HTTP to a webhook receiver. Time is the test's: each step is 10 s of the
board's and the alert service's clock, and of the prober's (its snapshots' times), so the
TTL passes without waiting for it. What the shipper and the canary would bring is given from
the real cluster: a log stream for each broker whose process runs, the controlled-shutdown
line of the broker stopped, an acknowledged probe of each canary partition from its leader
as the cluster describes it.

The operator's steps: reassign every partition off broker 3 (the canary topic's too),
controlled shutdown (SIGTERM), unregister it (KRaft keeps a stopped broker registered,
fenced, until then). Past ``job.inventory_ttl_s`` no signal names broker 3 and no alert is
open; no notification was sent at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaAdminClient
from tests.support.alerting_harness import T0, Harness, stop_receivers
from tests.support.waiting import wait_for

from kafka_health.cluster_state.prober import AdminSnapshotSource, ClusterStateProber
from kafka_health.config import ClusterStateConfig, JobConfig, ReachabilityConfig
from kafka_health.detectors.inputs import Batch, ClusterRecord, LogEvent, LogStream, Outcome
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev.faults.decommission import (
    assignment,
    reassign,
    unregister_broker,
    without,
)
from kafka_health.job.board import SignalBoard
from kafka_health.kafka_config import KafkaConfig, TopicsConfig
from kafka_health.model import Signal
from kafka_health.reachability.ping import Ping, ping
from kafka_health.reachability.pinger import AdminLister

pytestmark = pytest.mark.integration

CANARY = TopicsConfig().canary
TTL_S = 30.0
STEP_S = 10.0
LEAVING = 3


@dataclass
class StepClock:
    """The prober's clocks: the test's time."""

    now: float = T0

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


@dataclass
class ListSink:
    records: list[dict[str, Any]] = field(default_factory=list)

    def send(self, key: bytes, value: bytes) -> None:
        self.records.append(json.loads(value))

    def flush(self, timeout_s: float) -> None:
        return None


def cluster_record(d: dict[str, Any]) -> ClusterRecord:
    """A snapshot record as the job's batch decoding makes it (job/batch)."""
    return ClusterRecord(
        d["kind"], int(d.get("snapshot_ms") or 0), d.get("topic"), d.get("partition"),
        d.get("leader"), d.get("leader_epoch"), tuple(d.get("replicas") or ()),
        tuple(d.get("isr") or ()), d.get("min_isr"), d.get("broker_id"), d.get("live"),
        d.get("brokers"),
    )  # fmt: skip


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cache = Path(os.environ.get("KAFKA_HEALTH_CACHE", "~/.cache/kafka-health")).expanduser()
    running = LocalCluster.create(
        ClusterSpec(
            dir=tmp_path_factory.mktemp("decommission-kafka"), brokers=3,
            cache_dir=cache / "kafka",
        )
    ).up()  # fmt: skip
    try:
        yield running
    finally:
        running.down()


class Monitor:
    """The job's driver and the alert service, stepped by the test."""

    def __init__(self, cluster: LocalCluster, admin: KafkaAdminClient, tmp: Path) -> None:
        self.cluster = cluster
        self.admin = admin
        self.t = 0.0
        self.clock = StepClock()
        self.board = SignalBoard(
            JobConfig(inventory_ttl_s=TTL_S), clock=lambda: self.clock.now, live=False,
            reachability=ReachabilityConfig(),
        )  # fmt: skip
        self.sink = ListSink()
        self.prober = ClusterStateProber(
            source=AdminSnapshotSource(admin), sink=self.sink, config=ClusterStateConfig(),
            clock=self.clock,
        )  # fmt: skip
        kafka = KafkaConfig(bootstrap_servers=cluster.bootstrap_servers)
        self.lister = AdminLister(kafka, 3.0)
        self.alerts = Harness(tmp)
        self.batch_id = 0
        self.shutdown_logged: int | None = None

    def step(self) -> list[Signal]:
        """One step: a listing, a round of pings, a snapshot and the shipped inputs folded,
        the board's signals published to the alert service; the time moves STEP_S."""
        now = self.clock.now
        self.board.listed(self.lister(), now)
        pings = []
        for broker_id, (host, port) in self.board.ping_targets().items():
            outcome, detail = ping(host, port, 2.0)
            pings.append(Ping(broker_id, now, now + 0.01, outcome, detail))
        self.board.answered(pings)
        self.sink.records.clear()
        self.prober.snapshot()
        running = [n.broker_id for n in self.cluster.nodes if process_state(n.pid) == "running"]
        leaders = {
            int(p["partition_index"]): int(p["leader_id"])
            for t in self.admin.describe_topics([CANARY]) for p in t["partitions"]
        }  # fmt: skip
        ms = round(now * 1000)
        batch = Batch(
            cluster=[cluster_record(d) for d in self.sink.records],
            streams=[LogStream(str(b), k, 5) for b in running for k in ("server", "gc")],
            outcomes=[
                Outcome("c", p, self.batch_id, "all", ms - 500, ms - 495, True, 0.005, leader)
                for p, leader in leaders.items() if leader >= 0
            ],
            events=(
                [LogEvent("controlled_shutdown", str(LEAVING), self.shutdown_logged)]
                if self.shutdown_logged is not None else []
            ),
            log_shipped_ms=ms,
        )  # fmt: skip
        self.shutdown_logged = None  # the line is shipped once
        self.board.fold(self.batch_id, batch, now)
        self.batch_id += 1
        signals = self.board.signals()
        self.alerts.tick(self.t, signals, snapshot=True)
        self.t += STEP_S
        self.clock.now = T0 + self.t
        return signals


def naming(signals: list[Signal], broker_id: int) -> list[str]:
    wanted = str(broker_id)
    return sorted(f"{s.name}{dict(s.labels)}" for s in signals if s.label("broker_id") == wanted)


def test_a_decommissioned_broker_leaves_the_monitor_and_pages_nobody(
    cluster: LocalCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers, request_timeout_ms=15_000)
    try:
        admin.create_topics(
            {
                CANARY: {"assignments": {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}},
                "orders": {"num_partitions": 3, "replication_factor": 3},
            },
            wait_for_metadata=True,
        )
        monitor = Monitor(cluster, admin, tmp_path)
        request.addfinalizer(monitor.lister.close)
        request.addfinalizer(stop_receivers)
        steady = wait_for(
            lambda: (s := monitor.step()) and len(naming(s, LEAVING)) >= 5 and s,
            60, "broker 3 reported: pinged, logging, leading a canary partition",
        )  # fmt: skip
        assert any(s.name == "broker_unanswered_seconds" for s in steady)

        others = [1, 2]
        admin_left = KafkaAdminClient(
            bootstrap_servers=[cluster.node(b).bootstrap for b in others],
            request_timeout_ms=15_000,
        )
        try:
            moves = without(assignment(admin_left), LEAVING)
            assert {t for t, _p in moves} >= {CANARY, "orders"}
            reassign(admin_left, moves)
            monitor.step()
            cluster.stop_broker(LEAVING)  # controlled shutdown
            monitor.shutdown_logged = round(monitor.clock.now * 1000)
            assert unregister_broker(cluster.node(1).bootstrap, LEAVING) == 0
            wait_for(
                lambda: LEAVING not in monitor.lister(), 30,
                "broker 3 gone from DescribeCluster (fenced brokers included)",
            )  # fmt: skip
            after_stop = monitor.t

            def gone() -> float | None:
                """The test's time once a step's signals name broker 3 no more."""
                return None if naming(monitor.step(), LEAVING) else monitor.t

            left = wait_for(gone, 60, "broker 3 gone from the board's signals")
            assert left - after_stop > TTL_S, "not before the TTL"
            for _ in range(6):  # a minute more of the clock: it stays gone, nothing fires
                assert naming(monitor.step(), LEAVING) == []
        finally:
            admin_left.close()
        assert [a.labels for a in monitor.alerts.service.engine.active()] == []
        assert monitor.alerts.sent == [], "no notification: not a page, not a resolution"
        for kept in others:
            assert naming(monitor.board.signals(), kept)
    finally:
        admin.close()
