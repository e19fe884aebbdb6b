# ruff: noqa: E501  (real log lines are kept whole)
"""The fault suite's controller-kill, without Kafka: finding the active controller (a
DescribeQuorum answer, the nodes' own log lines), the failover the logs show afterwards, and
the scenario's expectations (the dead broker's page, none about the quorum)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from kafka_health.dev.faults.actions_controllers import (
    QUORUM_ALERTS,
    active_from_logs,
    failover,
    leader_lines,
    node_log_lines,
    quorum_leader,
)
from kafka_health.dev.faults.evaluate import judge
from kafka_health.dev.faults.receiver import Page
from kafka_health.dev.faults.scenarios import SCENARIOS

# The devcluster's 4.1.1 lines around the kill of broker 3, the active controller of epoch 1
# (fault suite, 2026-12-04): controller.log of nodes 1, 2 and 3.
LINES = [
    "[2026-12-04 23:24:36,987] INFO [QuorumController id=1] In the new epoch 1, the leader is 3. (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:24:37,044] INFO [QuorumController id=3] Becoming the active controller at epoch 1, next write offset 1. (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:26:05,151] INFO [QuorumController id=1] In the new epoch 2, the leader is (none). (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:26:05,156] INFO [QuorumController id=2] In the new epoch 2, the leader is (none). (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:26:05,182] INFO [QuorumController id=2] In the new epoch 2, the leader is 1. (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:26:05,191] INFO [QuorumController id=1] Becoming the active controller at epoch 2, next write offset 197. (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:26:06,367] INFO [QuorumController id=3] In the new epoch 2, the leader is 1. (org.apache.kafka.controller.QuorumController)",
    "[2026-12-04 23:26:14,203] INFO [QuorumController id=1] Fencing broker 3 at epoch 9 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)",
]  # fmt: skip


def at(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").astimezone().timestamp()


KILLED_AT = at("2026-12-04 23:26:03,100")


def test_the_active_controller_from_a_describe_quorum_answer() -> None:
    """kafka-python's describe_metadata_quorum (DescribeQuorumResponse as a dict)."""
    answer: dict[str, Any] = {
        "topics": [{"topic_name": "__cluster_metadata", "partitions": [
            {"partition_index": 0, "leader_id": 2, "leader_epoch": 7, "high_watermark": 812,
             "current_voters": [{"replica_id": 1}, {"replica_id": 2}, {"replica_id": 3}],
             "observers": [], "error": None},
        ]}],
    }  # fmt: skip
    assert quorum_leader(answer) == (2, 7)
    answer["topics"][0]["partitions"][0]["leader_id"] = -1
    assert quorum_leader(answer) is None, "no leader now"
    assert (
        quorum_leader({"topics": [{"partitions": [{"error": "NotLeader", "leader_id": 1}]}]})
        is None
    )


def test_the_active_controller_from_the_nodes_logs() -> None:
    assert active_from_logs(LINES) == (1, 2)
    assert active_from_logs(LINES[:2]) == (3, 1)
    assert active_from_logs(["[2026-12-04 23:24:35,000] INFO unrelated"]) is None
    epochs = [(e, lead, node) for _, e, lead, node in leader_lines(LINES)]
    assert epochs[2] == (2, None, 1), "(none): a vote at epoch 2"


def test_the_failover_the_logs_show_after_the_kill() -> None:
    seen = failover(LINES, KILLED_AT)
    assert seen["elected"] and seen["old_epoch"] == 1
    assert (seen["new_epoch"], seen["new_leader"], seen["elections"]) == (2, 1, 1)
    assert seen["elected_after_s"] == round(at("2026-12-04 23:26:05,182") - KILLED_AT, 3)
    assert seen["no_leader_s"] == 0.031, "from the vote's first '(none)' to its winner"
    assert failover(LINES[:2], KILLED_AT) == {"elected": False, "old_epoch": 1}


def test_the_logs_are_read_with_their_rolled_files(tmp_path: Path) -> None:
    (tmp_path / "controller.log.2026-12-04-23").write_text("\n".join(LINES[:2]) + "\n")
    (tmp_path / "controller.log").write_text("\n".join(LINES[2:]) + "\n")
    (tmp_path / "server.log").write_text("[2026-12-04 23:26:05,164] INFO [RaftManager id=1] x\n")
    lines = node_log_lines(tmp_path)
    assert len(lines) == len(LINES) + 1
    assert active_from_logs(lines) == (1, 2)


def page(t: float, key: str, group: str, name: str, broker: str = "3") -> Page:
    labels = {"alertname": name, **({"broker_id": broker} if broker else {})}
    alert = {"status": "firing", "labels": labels, "annotations": {}, "fingerprint": name + broker}
    return Page(at=t, idempotency_key=key, group_key=group, status="firing", alerts=[alert])


def test_the_page_is_the_dead_controllers_own_and_a_quorum_page_is_unexpected() -> None:
    """The targets are chosen at the injection (ctx.targets: the active controller, here 3);
    a quorum alert paged is not among what the scenario allows."""
    import dataclasses

    scenario = SCENARIOS["controller-kill"]
    assert scenario.modes == ("kraft",) and scenario.targets == ()
    assert "the active controller" in scenario.describe_expected()
    assert not set(QUORUM_ALERTS) & {*scenario.expected, *scenario.allowed}
    killed = dataclasses.replace(scenario, targets=(3,))
    pages = [
        page(1.5, "k1", "g3", "BrokerNotAnswering"),
        page(13.0, "k2", "g3", "BrokerFailed"),
        page(15.0, "k3", "gq", "KRaftNoActiveController", broker=""),
        page(16.0, "k4", "g1", "BrokerFailed", broker="1"),
    ]
    verdict = judge(killed, pages)
    assert verdict.first_page_at == 1.5 and verdict.cause_named_at == 13.0
    assert [(a.alertname, a.broker_id) for a in verdict.unexpected] == [
        ("KRaftNoActiveController", ""),
        ("BrokerFailed", "1"),
    ]


def test_two_voters_down_may_page_the_quorum_lost() -> None:
    for name in ("two-brokers-down", "cluster-down", "monitor-kill", "monitor-kills"):
        assert set(QUORUM_ALERTS) <= set(SCENARIOS[name].allowed), name
    assert not set(QUORUM_ALERTS) & set(SCENARIOS["broker-kill"].allowed)
