"""A hung broker on real parts: the canary's evidence travels through a transport cluster.

A 3-broker monitored cluster and a separate 1-broker transport cluster. The canary probes the
monitored cluster and writes outcomes and snapshots only to the transport. One broker is
frozen with SIGSTOP: within its probe deadline the results on the transport show ``Timeout``
failures for its partition while the other brokers' probes keep succeeding; after SIGCONT the
frozen partition's probes succeed again.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaAdminClient
from tests.integration.canary_support import TopicReader, complete_snapshots, leaders
from tests.support.waiting import wait_for

from kafka_health.config import MonitorConfig, from_mapping
from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.services.canary import CanaryService

pytestmark = pytest.mark.integration


def transport_config(
    monitored: LocalCluster, transport: LocalCluster, state: Path
) -> MonitorConfig:
    return from_mapping(
        {
            "kafka": {"bootstrap_servers": monitored.bootstrap_servers},
            "transport": {"bootstrap_servers": transport.bootstrap_servers},
            "canary": {
                "state_dir": str(state),
                "acks1_probe": True,  # acks=1 probes need only the leader: never held by a
                "manage_interval_s": 3,  # frozen follower, unlike acks=all ones (ISR wait)
                "metrics_port": None,
            },
            "cluster_state": {"interval_s": 2},
        }
    )


@pytest.fixture
def clusters(
    local_cluster: Callable[..., LocalCluster],
) -> Iterator[tuple[LocalCluster, LocalCluster]]:
    """The monitored cluster and the transport (``down`` thaws a frozen broker first)."""
    yield local_cluster(3), local_cluster(1)


def test_a_frozen_leader_times_out_on_the_transport_while_the_others_succeed(
    clusters: tuple[LocalCluster, LocalCluster], tmp_path: Path
) -> None:
    monitored, transport = clusters
    config = transport_config(monitored, transport, tmp_path / "canary")
    admin = KafkaAdminClient(bootstrap_servers=monitored.bootstrap_servers)
    results = TopicReader(transport.bootstrap_servers, config.topics.canary_results)
    states = TopicReader(transport.bootstrap_servers, config.topics.cluster_state)
    service = CanaryService(config)
    service.start()
    try:
        layout = wait_for(
            lambda: (
                (found := leaders(admin, config.topics.canary))
                and set(found.values()) == {1, 2, 3}
                and found
            ),
            90,
            "each monitored broker leading a canary partition",
        )

        def ok_since(since_ms: int, partitions: set[int], acks: str) -> bool:
            results.read(200)
            fresh = {
                o["partition"]
                for o in results.records
                if o["outcome"] == "ok" and o["acks"] == acks and o["send_ms"] >= since_ms
            }
            return partitions <= fresh

        started = int(time.time() * 1000)
        wait_for(lambda: ok_since(started, set(layout), "all"), 60, "ok probes everywhere")
        wait_for(lambda: complete_snapshots(states.records + states.read()), 60, "a snapshot")
        on_monitored = {t for t in admin.list_topics() if t.startswith("__kafka_health")}
        assert on_monitored == {config.topics.canary}, "the evidence lives on the transport"

        victim_partition = min(layout)
        victim = layout[victim_partition]
        others = {p for p, leader in layout.items() if leader != victim}
        frozen_at = int(time.time() * 1000)
        monitored.freeze_broker(victim)

        def timeouts() -> list[dict[str, Any]]:
            results.read(200)
            return [
                o
                for o in results.records
                if o["send_ms"] >= frozen_at
                and o["partition"] == victim_partition
                and o["outcome"] == "failed"
            ]

        failed = wait_for(timeouts, 30, f"failed probes of frozen broker {victim}'s partition")
        assert {o["error"] for o in failed} == {"Timeout"}, failed
        assert {o["leader"] for o in failed} == {victim}
        assert all(o["latency_s"] >= config.canary.probe_deadline_s for o in failed)
        # Still frozen: later probes of the other brokers' partitions keep succeeding.
        after = int(time.time() * 1000)
        wait_for(lambda: ok_since(after, others, "1"), 30, "the other brokers' probes")
        assert process_state(monitored.node(victim).pid) == "frozen", "all while still frozen"

        monitored.thaw_broker(victim)
        thawed = int(time.time() * 1000)
        wait_for(
            lambda: ok_since(thawed, set(layout), "all"),
            120,
            "every partition's probes to succeed again after the thaw",
        )
        # A late answer of a timed-out probe is not published again (redeliveries of the
        # same outcome aside: delivery is at least once).
        verdicts: dict[tuple[int, int], set[str]] = defaultdict(set)
        for o in results.records:
            verdicts[(o["partition"], o["seq"])].add(o["outcome"])
        assert [k for k, v in verdicts.items() if len(v) > 1] == [], "one outcome per probe"
    finally:
        service.stop(deliver_timeout_s=0)
        results.close()
        states.close()
        admin.close()
