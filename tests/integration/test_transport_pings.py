"""A separate transport on real parts: the job's pings of its brokers, hung then killed.

A 1-broker transport cluster (the monitor's own topics' cluster), pinged by the job's
:class:`BrokerPings` into a :class:`SignalBoard` as the job wires them. Frozen with SIGSTOP,
its pings time out and ``transport_unanswered_seconds`` grows past TransportUnreachable's 5 s
while it is still frozen; killed, they are refused; each time it answers again after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.support.waiting import wait_for

from kafka_health.config import from_mapping
from kafka_health.dev.devcluster import LocalCluster
from kafka_health.job.app import transport_pinged
from kafka_health.job.board import SignalBoard
from kafka_health.reachability.pinger import BrokerPings

pytestmark = pytest.mark.integration


class Rig:
    def __init__(self, transport: LocalCluster, state: Path) -> None:
        self.transport = transport
        config = from_mapping(
            {
                "kafka": {"bootstrap_servers": ["127.0.0.1:9"]},  # not contacted here
                "transport": {"bootstrap_servers": transport.bootstrap_servers},
            }
        )
        self.board = SignalBoard(config.job, transport=transport_pinged(config), live=True)
        self.pings = BrokerPings(
            config, self.board.transport_roster(), cluster=config.transport_kafka()
        )

    def unanswered(self) -> tuple[str, float] | None:
        found = [s for s in self.board.signals() if s.name == "transport_unanswered_seconds"]
        return (found[0].label("reason"), found[0].value) if found else None

    def answering(self) -> bool:
        return self.unanswered() == ("answered", 0.0)


@pytest.fixture
def rig(local_cluster: Callable[..., LocalCluster], tmp_path: Path) -> Iterator[Rig]:
    rig = Rig(local_cluster(1), tmp_path)
    rig.pings.start()
    try:
        yield rig
    finally:
        rig.pings.stop()


def test_a_hung_then_killed_transport_stops_answering_and_answers_again(rig: Rig) -> None:
    wait_for(rig.answering, 30, "the transport answering the pings")
    listed = wait_for(
        lambda: [b for b in rig.board.transport_targets() if b >= 0], 30, "its brokers listed"
    )
    assert listed == [node.broker_id for node in rig.transport.nodes]
    (node,) = rig.transport.nodes

    rig.transport.freeze_broker(node.broker_id)
    try:
        hung = wait_for(
            lambda: (u := rig.unanswered()) and u[0] == "timeout" and u[1] > 5 and u,
            30,
            "the frozen transport unanswered for over 5 s, by timeout",
        )
    finally:
        rig.transport.thaw_broker(node.broker_id)
    assert hung[0] == "timeout"
    wait_for(rig.answering, 30, "the thawed transport answering again")

    rig.transport.kill_broker(node.broker_id)
    refused = wait_for(
        lambda: (u := rig.unanswered()) and u[0] == "refused" and u[1] > 5 and u,
        30,
        "the killed transport unanswered for over 5 s, refused",
    )
    assert refused[0] == "refused"
    (signal,) = [s for s in rig.board.signals() if s.name == "transport_unanswered_seconds"]
    assert "refused" in signal.details["outcomes"]
    rig.transport.start_broker(node.broker_id)
    wait_for(rig.answering, 60, "the restarted transport answering again")
