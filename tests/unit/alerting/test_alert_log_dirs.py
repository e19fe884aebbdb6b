"""A failed log directory is one incident: LogDirOffline pages, naming the broker and the
directory, and explains the under-replication and leader moves that follow."""

from __future__ import annotations

from pathlib import Path

from tests.support.alerting_harness import Harness, Signals, partitions, sig

from kafka_health.model import Signal

DIR = "/var/kafka/logs-3b"


def disk_full(failed_at: float, restarted_at: float) -> Signals:
    """Broker 3's second log dir fails at ``failed_at``: the partitions it held there (led by
    brokers 1 and 2 after the move) are under-replicated and their leaders moved, until the
    broker restarts at ``restarted_at``."""

    def signals(t: float) -> list[Signal]:
        out = [sig("under_replicated_partitions", 0, t, broker_id=b) for b in (1, 2)]
        if failed_at <= t < restarted_at:
            out.append(sig("log_dir_offline", 1, t,
                           {"log_dirs": [DIR], "halted": False}, broker_id=3))  # fmt: skip
            out += [
                sig("under_replicated_partitions", 4, t, partitions((b, 3)), broker_id=b)
                for b in (1, 2)
            ]
        if failed_at + 5 <= t < failed_at + 65:
            out += [sig("leader_elections_per_minute", 12, t, broker_id=b) for b in (1, 2)]
        return out

    return signals


def test_a_failed_log_dir_pages_once_and_explains_the_under_replication(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run(0, 900, disk_full(30.0, 600.0))
    assert h.paged_rules() == ["LogDirOffline"]
    [page] = h.pages()
    [alert] = [a for a in page.alerts if a.status == "firing"]
    assert alert.labels["broker_id"] == "3"
    assert alert.labels["severity"] == "critical"
    assert DIR in alert.annotations["summary"] and "broker 3" in alert.annotations["summary"]
    assert h.alerts("UnderReplicatedPartitions"), "the symptom was evaluated, and muted"
    assert h.alerts("LeaderElectionStorm"), "the symptom was evaluated, and muted"
    assert len(h.resolutions("LogDirOffline")) == 1, "resolved once the broker restarted"
