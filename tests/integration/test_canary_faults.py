"""The canary, the cluster-state prober and the job's pings of the brokers on a real
3-broker cluster, through faults.

One private cluster, one canary and one pinger (feeding a board, as in the job's driver)
serve the whole module, in order: steady state, a broker frozen (and thawed), the leader of a
canary partition killed (and back), two of three brokers killed (and back), the canary
restarted, and the two commands. Every wait is a condition with a deadline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaAdminClient
from tests.integration.canary_support import (
    TopicReader,
    complete_snapshots,
    described,
    leaders,
    scrape,
    snapshot_view,
)
from tests.support.waiting import wait_for

from kafka_health.cluster_state.prober import AdminSnapshotSource, ClusterStateProber
from kafka_health.config import JobConfig, MonitorConfig, from_mapping
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.job.board import SignalBoard
from kafka_health.reachability.pinger import AdminLister, BrokerPings
from kafka_health.services.canary import CanaryService

pytestmark = pytest.mark.integration

STRICT = "strict-min-isr"  # RF 3, min.insync.replicas 3: under min ISR when a broker is down
# What acks=all probes may fail with while leaders die or the ISR cannot be reached.
OUTAGE_ERRORS = {
    "RequestTimedOut",
    "Timeout",
    "NetworkException",
    "NotEnoughReplicas",
    "NotEnoughReplicasAfterAppend",
    "NotLeaderOrFollower",
    "LeaderNotAvailable",
}


@dataclass
class Rig:
    cluster: LocalCluster
    config: MonitorConfig
    admin: KafkaAdminClient
    results: TopicReader
    states: TopicReader
    service: CanaryService
    board: SignalBoard

    @property
    def topic(self) -> str:
        return self.config.topics.canary

    def outcomes(self) -> list[dict[str, Any]]:
        self.results.read()
        return self.results.records

    def restart_service(self) -> None:
        self.service.stop()
        self.service = CanaryService(self.config)
        self.service.start()


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    cache = Path(os.environ.get("KAFKA_HEALTH_CACHE", "~/.cache/kafka-health")).expanduser()
    cluster = LocalCluster.create(
        ClusterSpec(
            dir=tmp_path_factory.mktemp("canary-kafka"), brokers=3, cache_dir=cache / "kafka"
        )
    ).up()
    servers = cluster.bootstrap_servers
    config = from_mapping(
        {
            "kafka": {"bootstrap_servers": servers, "client": {"request_timeout_s": 10}},
            "canary": {
                "state_dir": str(tmp_path_factory.mktemp("canary-state")),
                "send_timeout_s": 3,
                "manage_interval_s": 3,
                "metrics_host": "127.0.0.1",
                "metrics_port": 0,
                # These tests count one acks=all probe per partition and round; the acks=1
                # probes (on by default) are covered by test_canary_transport and the CLI
                # test below, and their use by tests/unit/detectors/test_detector_write_path.py.
                "acks1_probe": False,
            },
            "cluster_state": {"interval_s": 2},
        }
    )
    admin = KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=10_000)
    admin.create_topics(
        {
            STRICT: {
                "num_partitions": 2,
                "replication_factor": 3,
                "configs": {"min.insync.replicas": "3"},
            }
        },
        wait_for_metadata=True,
    )
    service = CanaryService(config)
    service.start()
    board = SignalBoard(JobConfig(), live=True, reachability=config.reachability)
    pings = BrokerPings(config, board)
    pings.start()
    rig = Rig(
        cluster,
        config,
        admin,
        TopicReader(servers, config.topics.canary_results),
        TopicReader(servers, config.topics.cluster_state),
        service,
        board,
    )
    try:
        yield rig
    finally:
        pings.stop()
        rig.service.stop(deliver_timeout_s=0)
        rig.results.close()
        rig.states.close()
        admin.close()
        cluster.down()


def by_partition(outcomes: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    grouped: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for outcome in outcomes:
        grouped[outcome["partition"]].append(outcome)
    return grouped


def assert_snapshot_matches_describe(rig: Rig) -> list[dict[str, Any]]:
    """Wait for a snapshot in the topic that equals AdminClient's describe right after it."""

    def matching() -> list[dict[str, Any]] | None:
        rig.states.read()
        snapshots = complete_snapshots(rig.states.records)
        if snapshots and snapshot_view(snapshots[-1]) == described(rig.admin):
            return snapshots[-1]
        return None

    return wait_for(matching, 60, "a cluster-state snapshot equal to AdminClient's describe")


def assert_sequences_unique(rig: Rig) -> None:
    """No two probes of a partition share a sequence number (redelivered outcomes aside)."""
    sends: dict[tuple[int, int], set[int]] = defaultdict(set)
    for outcome in rig.outcomes():
        sends[(outcome["partition"], outcome["seq"])].add(outcome["send_ms"])
    reused = {key: times for key, times in sends.items() if len(times) > 1}
    assert not reused, f"sequence numbers reused: {reused}"


def each_broker_leads(rig: Rig) -> dict[int, int] | None:
    found = leaders(rig.admin, rig.topic)
    return found if set(found.values()) == {1, 2, 3} else None


def leader_moved(rig: Rig, victim: int) -> dict[int, int] | None:
    found = leaders(rig.admin, rig.topic)
    return found if found.get(0) not in (victim, -1, None) else None


def test_steady_state(rig: Rig) -> None:
    layout = wait_for(lambda: each_broker_leads(rig), 60, "each broker leading a canary partition")
    partitions = sorted(layout)

    def ok_seqs() -> dict[int, list[int]]:
        ok = by_partition([o for o in rig.outcomes() if o["outcome"] == "ok"])
        return {p: sorted(o["seq"] for o in ok[p]) for p in partitions}

    warm = wait_for(lambda: all(ok_seqs().values()) and ok_seqs(), 60, "a first ok probe each")
    start = {p: seqs[-1] for p, seqs in warm.items()}
    wait_for(
        lambda: all(len([s for s in seqs if s > start[p]]) >= 5 for p, seqs in ok_seqs().items()),
        60,
        "five more acknowledged probes on every partition",
    )
    # Not one failure from the first probe on: the canary created its topic, and probes it
    # only once every partition's leader has taken its partition (a probe sent before failed
    # with UnknownTopicOrPartition, and paged CanaryWriteFailure for nothing).
    everything = rig.outcomes()
    assert [o for o in everything if o["outcome"] != "ok"] == [], "no failures at all"
    steady = [o for o in everything if o["seq"] > start[o["partition"]]]
    grouped = by_partition(steady)
    newest = [max(o["seq"] for o in grouped[p]) for p in partitions]
    assert max(newest) - min(newest) <= 1, "every partition gets a probe in every round"
    for p in partitions:
        seqs = sorted(o["seq"] for o in grouped[p])
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "one probe per round, in order"
        assert {o["leader"] for o in grouped[p]} == {layout[p]}
        assert all(0 < o["latency_s"] < 30 for o in grouped[p]), "latency recorded"
    metrics = scrape(rig.service.metrics_port or 0)
    for p in partitions:
        labels = (("acks", "all"), ("broker_id", str(layout[p])), ("partition", str(p)))
        assert metrics[("kafka_health_canary_ack_latency_seconds_count", labels)] >= 5
        slowest = tuple(sorted((*labels, ("le", "30.0"))))
        assert metrics[("kafka_health_canary_ack_latency_seconds_bucket", slowest)] >= 5
    assert_snapshot_matches_describe(rig)


def unanswered(rig: Rig) -> dict[int, tuple[str, float]]:
    """The board's ``broker_unanswered_seconds``: broker -> (reason, seconds)."""
    return {
        int(s.label("broker_id")): (s.label("reason"), s.value)
        for s in rig.board.signals()
        if s.name == "broker_unanswered_seconds"
    }


def everyone_answers(rig: Rig) -> bool:
    return unanswered(rig) == {1: ("answered", 0.0), 2: ("answered", 0.0), 3: ("answered", 0.0)}


def test_a_frozen_broker_stops_answering_the_pings_and_answers_again(rig: Rig) -> None:
    """SIGSTOP: the kernel still accepts the connection, the JVM answers nothing; the ping's
    deadline makes it a timeout, and the value grows past the page's 5 s while it is still
    frozen. Thawed before its session times out (9 s), so nothing moves."""
    wait_for(lambda: everyone_answers(rig), 30, "every broker answering the pings")
    victim = 2
    rig.cluster.freeze_broker(victim)
    try:
        seen = wait_for(
            lambda: (u := unanswered(rig).get(victim)) and u[0] == "timeout" and u[1] > 5 and u,
            20,
            f"broker {victim} unanswered for over 5 s, by timeout",
        )
    finally:
        rig.cluster.thaw_broker(victim)
    assert seen[0] == "timeout"
    assert {b: r for b, (r, _) in unanswered(rig).items() if b != victim} == {
        b: "answered" for b in (1, 2, 3) if b != victim
    }, "the others kept answering"
    wait_for(lambda: everyone_answers(rig), 30, f"broker {victim} answering again")


def test_kill_the_leader_of_a_canary_partition(rig: Rig) -> None:
    victim = leaders(rig.admin, rig.topic)[0]
    seen_before = len(rig.outcomes())
    rig.cluster.kill_broker(victim)
    refused = wait_for(
        lambda: (u := unanswered(rig).get(victim)) and u[0] == "refused" and u[1] > 3 and u,
        30,
        f"the killed broker {victim} refusing the pings for over 3 s",
    )
    assert refused[0] == "refused"

    def failed_on_victim() -> list[dict[str, Any]]:
        return [
            o
            for o in rig.outcomes()[seen_before:]
            if o["outcome"] == "failed" and o["leader"] == victim
        ]

    failures = wait_for(failed_on_victim, 60, f"failed probes on broker {victim}'s partition")
    assert {f["error"] for f in failures} <= OUTAGE_ERRORS, failures
    moved = wait_for(lambda: leader_moved(rig, victim), 60, "leadership of partition 0 to move")

    def recovered() -> bool:
        return any(
            o["outcome"] == "ok" and o["partition"] == 0 and o["leader"] == moved[0]
            for o in rig.outcomes()[seen_before:]
        )

    wait_for(recovered, 60, "partition 0 probes to succeed on the new leader")
    assert_sequences_unique(rig)
    # Under-replicated everywhere the victim had a replica, under min ISR for STRICT:
    snapshot = assert_snapshot_matches_describe(rig)
    strict = [r for r in snapshot if r["kind"] == "partition" and r["topic"] == STRICT]
    assert strict and all(r["under_replicated"] and r["under_min_isr"] for r in strict)
    assert [r["live"] for r in snapshot if r["kind"] == "broker" and r["broker_id"] == victim] == [
        False
    ]

    assert unanswered(rig)[victim][0] == "refused", "still pinged: fenced, not forgotten"
    rig.cluster.start_broker(victim)
    wait_for(lambda: everyone_answers(rig), 60, f"broker {victim} answering the pings again")
    wait_for(lambda: each_broker_leads(rig), 90, "the restarted broker to lead again (election)")
    assert_snapshot_matches_describe(rig)


def listed_or_error(config: MonitorConfig) -> dict[int, tuple[str, int]] | str:
    """One listing of the brokers by a new client of the job's pinger (or why it failed)."""
    lister = AdminLister(config.kafka, config.reachability.deadline_s)
    try:
        return lister()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        lister.close()


def test_two_of_three_brokers_down_then_back(rig: Rig) -> None:
    seen_before = len(rig.outcomes())
    survivor = leaders(rig.admin, rig.topic)[0]
    victims = sorted({1, 2, 3} - {survivor})
    prober_view = ClusterStateProber(
        source=AdminSnapshotSource(rig.admin),
        sink=_ListSink(),
        config=rig.config.cluster_state,
        clock=rig.service.clock,
    )
    for victim in victims:
        rig.cluster.kill_broker(victim)
    buffered = wait_for(
        lambda: rig.service.buffer.pending >= 15,
        60,
        "outcomes of the outage waiting in the on-disk buffer",
    )
    assert buffered
    # The cluster cannot write, but it can be described: the prober sees what AdminClient sees.
    sink = _ListSink()
    prober_view.sink = sink
    prober_view.snapshot()
    outage_view = snapshot_view([json.loads(v) for _, v in sink.records])
    assert outage_view == described(rig.admin)
    # The job's pinger lists the brokers from the metadata all the same, each time with a
    # new client, as a restarted job does (seen: minutes of failed listings with two brokers
    # down: kafka-python asked one at random).
    listings = [listed_or_error(rig.config) for _ in range(5)]
    assert all(isinstance(b, dict) and survivor in b for b in listings), listings

    for victim in victims:
        rig.cluster.start_broker(victim)
    wait_for(lambda: rig.service.buffer.pending == 0, 120, "the buffer to drain into the topic")

    def all_outcomes_arrived() -> bool:
        outcomes = rig.outcomes()
        grouped = by_partition(outcomes)
        for p, sent in ((p, rig.service.sequences.peek(p)) for p in grouped):
            seqs = {o["seq"] for o in grouped[p]}
            if not set(range(min(seqs), sent - 3)) <= seqs:  # the last rounds may be in flight
                return False
        return True

    wait_for(all_outcomes_arrived, 60, "every probe's outcome in the results topic")
    grouped = by_partition(rig.outcomes())
    for p, outcomes in grouped.items():
        seqs = sorted({o["seq"] for o in outcomes})
        assert seqs == list(range(seqs[0], seqs[-1] + 1)), f"partition {p}: none missing"
    outage = [o for o in rig.outcomes()[seen_before:] if o["outcome"] == "failed"]
    assert outage and {o["error"] for o in outage} <= OUTAGE_ERRORS, {o["error"] for o in outage}
    assert any(o["acks"] == "all" for o in outage)
    assert_snapshot_matches_describe(rig)


def test_restarted_canary_resumes_its_sequences(rig: Rig) -> None:
    before = {p: max(o["seq"] for o in outs) for p, outs in by_partition(rig.outcomes()).items()}
    seen_before = len(rig.outcomes())
    rig.restart_service()

    def new_round_everywhere() -> dict[int, int] | None:
        fresh = [o for o in rig.outcomes()[seen_before:] if o["seq"] > before[o["partition"]]]
        grouped = by_partition(fresh)
        if set(grouped) < set(before):
            return None
        return {p: min(o["seq"] for o in grouped[p]) for p in before}

    first_after = wait_for(new_round_everywhere, 60, "probes of the restarted canary")
    for p, first in first_after.items():
        assert first > before[p], f"partition {p} continues after {before[p]}, at {first}"
    assert_sequences_unique(rig)
    probes = TopicReader(rig.cluster.bootstrap_servers, rig.topic)
    try:
        wait_for(probes.caught_up, 60, "the canary topic read to its end")
        written = [(r["partition"], r["seq"]) for r in probes.records]
        assert len(written) == len(set(written)), "no sequence number twice in the canary topic"
    finally:
        probes.close()


def test_commands(rig: Rig, tmp_path: Path) -> None:
    """``cluster-state --once`` creates its topic and writes a snapshot; ``canary`` runs with
    the acks=1 probe too and stops cleanly at the end of ``--duration``."""
    config = tmp_path / "monitor.yaml"
    settings = {
        "kafka": {"bootstrap_servers": rig.cluster.bootstrap_servers},
        "topics": {"cluster_state": "cli-cluster-state"},
        "canary": {"id": "cli-canary", "state_dir": str(tmp_path / "state"), "metrics_port": 0,
                   "manage_topic": False, "acks1_probe": True},
    }  # fmt: skip
    config.write_text(json.dumps(settings))
    cli = [sys.executable, "-m", "kafka_health.cli"]
    once = subprocess.run(
        [*cli, "cluster-state", "--once", "--config", str(config)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert once.returncode == 0, once.stderr
    summary = json.loads(once.stdout)
    assert summary["live_brokers"] == 3 and summary["partitions"] > 0
    reader = TopicReader(rig.cluster.bootstrap_servers, "cli-cluster-state")
    try:
        wait_for(lambda: reader.read() or reader.records, 30, "the command's snapshot records")
        assert reader.records[-1]["kind"] == "snapshot" or len(reader.records) > 1
    finally:
        reader.close()

    seen_before = len(rig.outcomes())
    canary = subprocess.run(
        [*cli, "canary", "--no-cluster-state", "--duration", "5", "--config", str(config)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert canary.returncode == 0, canary.stderr

    def both_modes() -> bool:
        mine = [o for o in rig.outcomes()[seen_before:] if o["canary_id"] == "cli-canary"]
        return {o["acks"] for o in mine if o["outcome"] == "ok"} == {"all", "1"}

    wait_for(both_modes, 30, "acks=all and acks=1 outcomes of the command")


class _ListSink:
    def __init__(self) -> None:
        self.records: list[tuple[bytes, bytes]] = []

    def send(self, key: bytes, value: bytes) -> None:
        self.records.append((key, value))

    def flush(self, timeout_s: float) -> None:
        pass
