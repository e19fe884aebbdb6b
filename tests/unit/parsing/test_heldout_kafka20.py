"""A Kafka 2.0 (Confluent Platform 5.0) follower under network partitions, read as the product
reads it: entries joined by the shipper's joiner, classified by the reference parser. The list
of events is exact: a missed NotLeaderForPartition wording or a shutdown look-alike taken for a
controlled shutdown fails it (``tests/fixtures/logs/heldout/SOURCES.md``)."""

from __future__ import annotations

from pathlib import Path

from tests.support.log_entries import joined_entries

from kafka_health.parsing.reference import classify

FIXTURE = Path(__file__).parents[2] / "fixtures" / "logs" / "heldout"
LOG = FIXTURE / "server-2.0-follower-partitioned.log"

# (first line, event, the raw named groups of the pattern that matched)
EXPECTED: list[tuple[int, str, dict[str, str]]] = [
    (24, "leader_change", {"tp": "orders-0", "leader_epoch": "7"}),
    (28, "not_leader", {"tp": "orders-3"}),  # Retrying leaderEpoch ... NOT_LEADER_FOR_PARTITION
    (33, "isr_shrink", {"tp": "orders-2", "isr_before": "1,2,3", "isr_after": "1,3"}),
    (34, "isr_expand", {"tp": "orders-0", "isr_before": "1,3", "isr_after": "1,3,2"}),
    (35, "isr_expand", {"tp": "orders-2", "isr_before": "1,3", "isr_after": "1,3,2"}),
    (36, "not_leader", {"tp": "orders-3"}),  # Remote broker is not the leader for partition
    (40, "zk_disconnected", {"session_id": "0x2670a3b3b7a0002"}),
    # The shrink is logged before its write, which line 47 says failed (Cached zkVersion):
    # the parser reads lines; the ISR detector undoes the shrink at the failure (detectors/isr).
    (42, "isr_shrink", {"tp": "orders-2", "isr_before": "1,3,2", "isr_after": "1"}),
    (43, "zk_session_expired", {"session_id": "0x2670a3b3b7a0002"}),
    (45, "zk_session_expired", {}),  # [ZooKeeperClient] Session expired.
    (47, "isr_update_failed", {"tp": "orders-2"}),
    # The termination signal is its own event: a shutdown is coming, controlled or not (it
    # opens a maintenance window, since Kafka 4.x can lose the broker's own shutdown lines).
    (53, "shutdown_signal", {}),
    (57, "controlled_shutdown", {"subject": "1"}),  # [KafkaServer id=1] Starting controlled ...
    (92, "broker_started", {"subject": "1"}),
    (96, "leader_change", {"tp": "orders-2", "leader_epoch": "10"}),
]


def test_the_follower_logs_these_events_and_no_other() -> None:
    got = []
    for line, text in joined_entries(LOG):
        result = classify(text)
        assert result.outcome != "malformed", (line, result.event)
        if result.outcome == "event":
            assert result.event is not None
            got.append((line, result.event, result.groups))
    assert got == EXPECTED


def test_stack_traces_and_exception_lines_join_their_entry() -> None:
    """The fetcher's IOException frames and the startup failure's KeeperException are part of
    the entry before them; no frame or exception line is an entry of its own."""
    entries = dict(joined_entries(LOG))
    assert entries[3].count("\n") == 8 and entries[14].count("\n") == 8
    assert entries[103].count("\n") == 7 and "NodeExistsException" in entries[103]
    assert entries[93].endswith("This server does not host this topic-partition.")
    assert len(entries) == 117 - 8 - 8 - 7 - 1


def test_no_shutdown_look_alike_is_a_controlled_shutdown() -> None:
    """Threads, managers, the controller component, the request handlers, Confluent's hook and
    the broker's own "shutting down" (every shutdown logs it, and the failed start's shutdown
    skips the controlled step): only the two lines of EXPECTED are controlled shutdowns."""
    words = ("hutting down", "hut down", "hutdown", "Resigned", "Stopped")
    look_alikes = [
        (line, text) for line, text in joined_entries(LOG) if any(w in text for w in words)
    ]
    assert len(look_alikes) >= 25
    for line, text in look_alikes:
        if line != 57:
            assert classify(text).event != "controlled_shutdown", text


def test_the_failed_shrink_leaves_the_isr_as_it_was() -> None:
    """The follower's events through the ISR detector, after a snapshot of orders-2 in sync
    on brokers 1, 3, 2 at 10:12: line 42's shrink to [1] is undone by line 47's failed write
    (the broker's stale zkVersion); line 33's earlier shrink, written, would have counted."""
    from tests.support.detector_support import batch, by_name, event, part

    from kafka_health.config import JobConfig
    from kafka_health.detectors.isr import Isr
    from kafka_health.model import labels

    at_10_12 = 1_542_190_320_000  # 2018-11-14 10:12:00 UTC
    d = Isr(JobConfig())
    events = []
    for line, kind, groups in EXPECTED:
        if line in (42, 47):
            topic, partition = groups["tp"].rsplit("-", 1)
            isr = tuple(int(b) for b in groups["isr_after"].split(",")) if line == 42 else None
            ms = at_10_12 + (19_250 if line == 42 else 27_945)
            events.append(event(kind, "1", ms, topic=topic, partition=int(partition),
                                isr_after=isr))  # fmt: skip
    d.fold(batch(cluster=[part(at_10_12, "orders", 2, 1, [1, 3, 2])], events=events), 0.0)
    urp = by_name(d.signals(0.0), "under_replicated_partitions")[labels()]
    assert urp.value == 0
