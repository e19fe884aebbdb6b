"""ISR and election detector timelines: snapshots as truth, log news in between, expiry."""

from __future__ import annotations

from tests.support.detector_support import batch, by_name, done, event, part

from kafka_health.config import JobConfig
from kafka_health.detectors.elections import Elections
from kafka_health.detectors.isr import Isr
from kafka_health.model import labels

T0 = 1_700_000_000_000


def partitions(signal: object) -> list[str]:
    return list(signal.details["partitions"])  # type: ignore[attr-defined]


def test_snapshots_then_log_news_then_expiry() -> None:
    d = Isr(JobConfig(isr_expire_after_s=60.0))
    d.fold(batch(cluster=[part(T0, "orders", 0, 1, [1, 2, 3]), part(T0, "orders", 1, 2, [2]),
                          part(T0, "gone", 0, 1, [1]), done(T0)]), 0.0)  # fmt: skip
    s = d.signals(0.0)
    urp = by_name(s, "under_replicated_partitions")
    assert partitions(urp[labels()]) == ["gone-0", "orders-1"]
    assert urp[labels(broker_id=2)].details["replicas"] == {"orders-1": [1, 2, 3]}
    assert partitions(by_name(s, "under_min_isr_partitions")[labels()]) == ["gone-0", "orders-1"]
    # Log news between snapshots: orders-0 shrinks; news older than the snapshot is ignored.
    d.fold(batch(events=[
        event("isr_shrink", "1", T0 + 1000, topic="orders", partition=0, isr_after=(1,)),
        event("isr_expand", "2", T0 - 1000, topic="orders", partition=1, isr_after=(2, 1, 3)),
        event("isr_shrink", "1", T0 + 1000, topic="unknown", partition=0, isr_after=(1,)),
    ]), 1.0)  # fmt: skip
    urp = by_name(d.signals(1.0), "under_replicated_partitions")
    assert partitions(urp[labels()]) == ["gone-0", "orders-0", "orders-1"]
    # A snapshot older than the news keeps the news' ISR; a later one replaces it.
    d.fold(batch(cluster=[part(T0 + 500, "orders", 0, 1, [1, 2, 3])]), 2.0)
    assert "orders-0" in partitions(
        by_name(d.signals(2.0), "under_replicated_partitions")[labels()]
    )
    later = T0 + 70_000
    d.fold(batch(cluster=[part(later, "orders", 0, 1, [1, 2, 3]),
                          part(later, "orders", 1, 2, [2, 1, 3]), done(later)]), 3.0)  # fmt: skip
    s = d.signals(3.0)
    assert by_name(s, "under_replicated_partitions")[labels()].value == 0, "gone-0 expired"
    assert by_name(s, "offline_partitions")[labels()].value == 0


def test_offline_partition_is_led_by_none() -> None:
    d = Isr(JobConfig())
    d.fold(batch(cluster=[part(T0, "orders", 3, -1, [])]), 0.0)
    s = d.signals(0.0)
    assert by_name(s, "offline_partitions")[labels()].details["partitions"] == ["orders-3"]
    assert by_name(s, "under_replicated_partitions")[labels(broker_id="none")].value == 1
    again = Isr(JobConfig())
    again.restore(d.state())
    assert again.signals(0.0) == s


def test_one_election_seen_in_three_logs_and_a_snapshot_counts_once() -> None:
    d = Elections(JobConfig(window_s=60.0))
    d.fold(batch(cluster=[part(T0, "orders", 0, 1, [1, 2, 3], epoch=4)]), 100.0)
    d.fold(batch(
        cluster=[part(T0 + 10_000, "orders", 0, 2, [1, 2, 3], epoch=5)],
        events=[
            event("leader_change", "1", T0 + 5000, topic="orders", partition=0, leader=2),
            event("leader_change", "2", T0 + 5010, topic="orders", partition=0, leader=2,
                  leader_epoch=5),
            event("leader_change", "3", T0 + 5020, topic="orders", partition=0, leader_epoch=5),
        ],
    ), 110.0)  # fmt: skip
    s = by_name(d.signals(110.0), "leader_elections_per_minute")
    assert s[labels()].value == 1 and s[labels(broker_id=2)].value == 1
    assert labels(broker_id=3) not in s
    # The snapshot's election is counted for window_s after it was seen; the logs' by the
    # log window (which has not moved: no newer event).
    d.fold(batch(events=[event("full_gc", "1", T0 + 200_000, pause_s=0.1)]), 200.0)
    assert by_name(d.signals(200.0), "leader_elections_per_minute")[labels()].value == 0


def test_a_storm_is_many_epochs() -> None:
    d = Elections(JobConfig(window_s=60.0))
    storm = [event("leader_change", "1", T0 + i, topic="t", partition=i % 3, leader=1 + i % 2,
                   leader_epoch=i + 1) for i in range(30)]  # fmt: skip
    d.fold(batch(events=storm), 0.0)
    s = by_name(d.signals(0.0), "leader_elections_per_minute")
    assert s[labels()].value == 30
    assert s[labels(broker_id=1)].value == 15


def test_a_shrink_whose_write_failed_did_not_happen() -> None:
    """Kafka 2.0 (ZooKeeper mode): a broker logs "Shrinking ISR", then its write is refused
    ("Cached zkVersion [14] not equal to that in zookeeper, skip updating ISR": its view of the
    partition is stale, KAFKA-2729). The ISR in ZooKeeper did not change: the partition is not
    under-replicated for it, in the batch of the two lines (same millisecond, any order), in a
    later batch, or after a restart; another broker's failure undoes nothing, nor does one for
    a change a snapshot already replaced."""
    snap = [part(T0, "orders", 2, 1, [1, 3, 2]), done(T0)]
    shrink = event("isr_shrink", "1", T0 + 1000, topic="orders", partition=2, isr_after=(1,))
    failed = event("isr_update_failed", "1", T0 + 1000, topic="orders", partition=2)
    other = event("isr_update_failed", "2", T0 + 2000, topic="orders", partition=2)

    def under_replicated(d: Isr) -> list[str]:
        return partitions(by_name(d.signals(0.0), "under_replicated_partitions")[labels()])

    d = Isr(JobConfig())
    d.fold(batch(cluster=snap, events=[failed, shrink]), 0.0)
    assert under_replicated(d) == []
    d = Isr(JobConfig())
    d.fold(batch(cluster=snap, events=[shrink]), 0.0)
    assert under_replicated(d) == ["orders-2"]
    d.fold(batch(events=[other]), 1.0)
    assert under_replicated(d) == ["orders-2"], "broker 2 wrote nothing of it"
    again = Isr(JobConfig())
    again.restore(d.state())
    again.fold(batch(events=[failed]), 2.0)
    assert under_replicated(again) == []
    # The change a snapshot replaced is not undone: the snapshot is what ZooKeeper holds.
    d = Isr(JobConfig())
    d.fold(batch(cluster=snap, events=[shrink]), 0.0)
    d.fold(batch(cluster=[part(T0 + 1500, "orders", 2, 1, [1])]), 1.0)
    d.fold(batch(events=[event("isr_update_failed", "1", T0 + 1600, topic="orders",
                               partition=2)]), 2.0)  # fmt: skip
    assert under_replicated(d) == ["orders-2"]


def test_an_older_state_without_the_undo_fields_restores() -> None:
    d = Isr(JobConfig())
    d.restore({"views": [["orders", 2, 1, 7, [1, 2, 3], [1, 2], 2, T0, T0]]})
    assert partitions(by_name(d.signals(0.0), "under_replicated_partitions")[labels()]) == [
        "orders-2"
    ]
