"""Which brokers and partitions the cluster still has: what the per-broker, per-partition and
per-stream state of the detectors is pruned against.

A subject (a broker id, a partition of a watched topic) has left the cluster when it has not
been seen for ``ttl_s`` itself (the detector's own last-seen time of it: a canary outcome, a
log record, a failure report) and the cluster's own descriptions agree it is gone:

- the prober's snapshots (``cluster_state``): a broker is a member while a snapshot lists it
  (registered, fenced or not, or holding a replica: a dead ZooKeeper broker still holds its
  replicas); it is gone once the snapshots have gone on ``ttl_s`` (by their own clock) without
  it. A partition of a watched topic (the canary topic) is gone once the snapshots have gone on
  ``ttl_s`` without it (its topic deleted, or a partition number the topic never had); a topic
  no snapshot ever described is not judged (the prober's ``topics_regex`` may leave it out);
- the driver's listing of the brokers (``DescribeCluster``, fenced brokers included, every
  ``reachability.metadata_interval_s``): a broker is gone once the listings have gone on
  without it for ``ttl_s``, or for ``blind_ttl_s`` when no snapshot was ever seen (a crashed
  ZooKeeper broker leaves the listing at once, and only the snapshots know it still holds
  replicas).

Each source is judged on its own clock (a snapshot's time, a listing's time), so a prober or a
listing that stops makes nothing leave: absence needs newer evidence. With neither source
(a replay, a monitor without prober and pings) nothing ever leaves. A KRaft broker stopped for
good stays registered (fenced) until an operator unregisters it (``kafka-cluster.sh
unregister``, ``Admin.unregisterBroker``): until then it is a member, as it is to Kafka.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_health.detectors.inputs import ClusterRecord


def broker_number(broker: str | int | None) -> int | None:
    """A broker id label as the cluster's integer id (None: not a broker id at all)."""
    if isinstance(broker, int):
        return broker
    if broker is None or not broker.isdigit():
        return None
    return int(broker)


class Inventory:
    """The cluster's members and watched partitions, with when each was last described."""

    def __init__(self, ttl_s: float, blind_ttl_s: float, topics: Iterable[str] = ()) -> None:
        self.ttl_s = ttl_s
        self.blind_ttl_s = max(ttl_s, blind_ttl_s)
        self._watched = frozenset(topics)
        self._first_snapshot_ms: int | None = None  # the first closing record this state saw
        self._snapshot_ms: int | None = None  # the newest closing record
        self._member_ms: dict[int, int] = {}  # broker -> newest snapshot listing it
        self._topic_ms: dict[str, int] = {}  # watched topic -> newest snapshot describing it
        self._partition_ms: dict[tuple[str, int], int] = {}  # watched partition -> same
        self._first_listing_at: float | None = None
        self._listing_at: float | None = None
        self._listed: dict[int, float] = {}  # broker -> newest listing naming it

    # ------------------------------------------------------------------ inputs

    def observe(self, records: Iterable[ClusterRecord]) -> None:
        """A batch's snapshot records, in any order (presence is kept as the newest time)."""
        for r in records:
            if r.kind == "broker" and r.broker_id is not None:
                self._member_ms[r.broker_id] = max(self._member_ms.get(r.broker_id, 0), r.at_ms)
            elif r.kind == "partition" and r.topic in self._watched and r.partition is not None:
                key = (r.topic, int(r.partition))
                self._partition_ms[key] = max(self._partition_ms.get(key, 0), r.at_ms)
                self._topic_ms[r.topic] = max(self._topic_ms.get(r.topic, 0), r.at_ms)
            elif r.kind == "snapshot":
                self._snapshot_ms = max(self._snapshot_ms or 0, r.at_ms)
                if self._first_snapshot_ms is None or r.at_ms < self._first_snapshot_ms:
                    self._first_snapshot_ms = r.at_ms

    def listed(self, brokers: Iterable[int], now: float) -> None:
        """The brokers one successful listing of the metadata named at ``now``."""
        for broker in brokers:
            self._listed[broker] = max(self._listed.get(broker, now), now)
        self._listing_at = max(self._listing_at or now, now)
        if self._first_listing_at is None:
            self._first_listing_at = now

    # ------------------------------------------------------------------ verdicts

    @property
    def informed(self) -> bool:
        """Whether any source describes the cluster (else nothing ever leaves)."""
        return self._snapshot_ms is not None or self._listing_at is not None

    def broker_left(self, broker: str | int | None, last_seen: float, now: float) -> bool:
        """Whether state about ``broker`` last refreshed at ``last_seen`` is of a broker that
        left the cluster (see the module docstring); ``now`` is the driver's clock."""
        if now - last_seen < self.ttl_s or not self.informed:
            return False
        number = broker_number(broker)
        if self._snapshot_ms is not None and self._first_snapshot_ms is not None:
            member = self._member_ms.get(number, 0) if number is not None else 0
            since = max(member, self._first_snapshot_ms)
            if self._snapshot_ms - since < round(self.ttl_s * 1000):
                return False
        if self._listing_at is not None and self._first_listing_at is not None:
            listed = self._listed.get(number, 0.0) if number is not None else 0.0
            since_s = max(listed, self._first_listing_at)
            horizon = self.ttl_s if self._snapshot_ms is not None else self.blind_ttl_s
            if self._listing_at - since_s < horizon:
                return False
        return True

    def partition_left(self, topic: str | None, partition: int, last_seen: float,
                       now: float) -> bool:  # fmt: skip
        """Whether state about a partition of a watched ``topic``, last refreshed at
        ``last_seen``, is of a partition the cluster no longer has. A topic that is not
        watched, or that no snapshot described yet, is not judged."""
        if now - last_seen < self.ttl_s or topic is None or topic not in self._topic_ms:
            return False
        if self._snapshot_ms is None or self._first_snapshot_ms is None:
            return False
        since = max(self._partition_ms.get((topic, partition), 0), self._first_snapshot_ms)
        return self._snapshot_ms - since >= round(self.ttl_s * 1000)

    def forget_departed(self, now: float) -> None:
        """Drop the inventory's own entries of brokers and partitions long gone (so that the
        inventory itself stays as small as the cluster)."""
        horizon_ms = round(self.blind_ttl_s * 1000)
        if self._snapshot_ms is not None:
            self._member_ms = {
                b: ms for b, ms in self._member_ms.items() if self._snapshot_ms - ms < horizon_ms
            }
            self._partition_ms = {
                k: ms for k, ms in self._partition_ms.items()
                if self._snapshot_ms - ms < horizon_ms
            }  # fmt: skip
        if self._listing_at is not None:
            self._listed = {
                b: at for b, at in self._listed.items()
                if self._listing_at - at < self.blind_ttl_s
            }  # fmt: skip

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        return {
            "first_snapshot_ms": self._first_snapshot_ms,
            "snapshot_ms": self._snapshot_ms,
            "members": [[b, ms] for b, ms in self._member_ms.items()],
            "topics": [[t, ms] for t, ms in self._topic_ms.items()],
            "partitions": [[t, p, ms] for (t, p), ms in self._partition_ms.items()],
            "first_listing_at": self._first_listing_at,
            "listing_at": self._listing_at,
            "listed": [[b, at] for b, at in self._listed.items()],
        }

    def restore(self, state: dict[str, Any]) -> None:
        """A saved inventory; an empty one (a state file written before it existed) knows
        nothing, so nothing leaves until the sources have described the cluster again."""

        def optional_int(value: Any) -> int | None:
            return None if value is None else int(value)

        def optional_float(value: Any) -> float | None:
            return None if value is None else float(value)

        self._first_snapshot_ms = optional_int(state.get("first_snapshot_ms"))
        self._snapshot_ms = optional_int(state.get("snapshot_ms"))
        self._member_ms = {int(b): int(ms) for b, ms in state.get("members", [])}
        self._topic_ms = {
            str(t): int(ms) for t, ms in state.get("topics", []) if t in self._watched
        }
        self._partition_ms = {
            (str(t), int(p)): int(ms)
            for t, p, ms in state.get("partitions", [])
            if t in self._watched
        }
        self._first_listing_at = optional_float(state.get("first_listing_at"))
        self._listing_at = optional_float(state.get("listing_at"))
        self._listed = {int(b): float(at) for b, at in state.get("listed", [])}
