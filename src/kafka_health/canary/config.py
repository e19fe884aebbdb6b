"""The ``canary`` section: the canary's schema."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka_health.errors import ConfigProblem


@dataclass(frozen=True)
class CanaryConfig:
    """``kafka-health canary``: probes of every partition of ``topics.canary``, and its topic.

    Zero means "automatic" for ``partitions`` (one per live broker), ``replication_factor``
    (min(3, brokers)), ``min_insync_replicas`` (replication factor - 1, at least 1) and
    ``expected_brokers`` (the brokers the current assignment uses: never reassign replicas away
    from a broker that is only restarting).
    """

    id: str = "kafka-health-canary"
    interval_s: float = 1.0
    send_timeout_s: float = 10.0
    """The probe producer's request timeout: how long the client waits for an answer."""
    probe_deadline_s: float = 3.0
    """A probe unanswered this long has failed (``Timeout``), published at once; an answer
    that comes later is only counted as late."""
    acks1_probe: bool = True
    """Also an acks=1 probe per partition and round: tells a hung leader from a follower that
    holds back acks=all writes, and shows the acks=1 data-loss window."""
    partitions: int = 0
    replication_factor: int = 0
    min_insync_replicas: int = 0
    expected_brokers: int = 0
    manage_topic: bool = True
    manage_interval_s: float = 60.0
    state_dir: str = "var/canary"
    sequence_block: int = 1000
    buffer_max_bytes: int = 64 * 1024 * 1024
    buffer_segment_bytes: int = 1024 * 1024
    results_partitions: int = 3
    results_timeout_s: float = 3.0
    """How long a batch of outcomes may wait for its acknowledgement before it is sent again
    through a new producer: bounds how long a hung leader of a results partition holds them
    (when the results share the monitored cluster)."""
    cluster_state: bool = True
    """Run the cluster-state prober in the canary's process too."""
    metrics_host: str = "127.0.0.1"
    metrics_port: int | None = 9310
    """Port of the canary's own /metrics endpoint; 0 picks a free one, null turns it off."""

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", self.id):
            problems.append(ConfigProblem(f"{path}.id", "1 to 100 letters, digits, _ . -"))
        if not 0.05 <= self.interval_s <= 3600:
            problems.append(ConfigProblem(f"{path}.interval_s", "must be 0.05 to 3600"))
        if not 0.1 <= self.send_timeout_s <= 120:
            problems.append(ConfigProblem(f"{path}.send_timeout_s", "must be 0.1 to 120"))
        if not 0.1 <= self.probe_deadline_s <= max(0.1, self.send_timeout_s):
            problems.append(
                ConfigProblem(f"{path}.probe_deadline_s", "must be 0.1 to send_timeout_s")
            )
        if self.manage_interval_s <= 0:
            problems.append(ConfigProblem(f"{path}.manage_interval_s", "must be positive"))
        for name in ("partitions", "replication_factor", "min_insync_replicas", "expected_brokers"):
            if getattr(self, name) < 0:
                problems.append(ConfigProblem(f"{path}.{name}", "must be 0 (automatic) or more"))
        if self.replication_factor > 0 and self.min_insync_replicas > self.replication_factor:
            problems.append(
                ConfigProblem(f"{path}.min_insync_replicas", "must not exceed replication_factor")
            )
        if self.sequence_block < 1:
            problems.append(ConfigProblem(f"{path}.sequence_block", "must be at least 1"))
        if self.buffer_segment_bytes < 4096:
            problems.append(ConfigProblem(f"{path}.buffer_segment_bytes", "must be at least 4096"))
        if self.buffer_max_bytes < 2 * self.buffer_segment_bytes:
            problems.append(
                ConfigProblem(
                    f"{path}.buffer_max_bytes", "must be at least twice buffer_segment_bytes"
                )
            )
        if self.results_partitions < 1:
            problems.append(ConfigProblem(f"{path}.results_partitions", "must be at least 1"))
        if not 0.5 <= self.results_timeout_s <= 300:
            problems.append(ConfigProblem(f"{path}.results_timeout_s", "must be 0.5 to 300"))
        if not self.state_dir.strip():
            problems.append(ConfigProblem(f"{path}.state_dir", "is required"))
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            problems.append(ConfigProblem(f"{path}.metrics_port", "must be 0 to 65535 or null"))
        return problems
