"""Realistic traffic for the topics the job reads, as a cluster of N brokers and P partitions
would produce it (``kafka-health bench load``). Deterministic given a seed and the clock.

**Broker logs** (in the shipper's envelope, one line per record, Kafka 3.x-4.x wordings; the
shares per 1,000 lines, :data:`STEADY` and :data:`STORM`):

============================  ======  =====  ==============================================
line                          steady  storm  as Kafka writes it
============================  ======  =====  ==============================================
ordinary INFO (segment rolls,   955    610    ``kafka.log.LocalLog``, ``ReplicaFetcherThread``,
fetcher, offsets expiry,                      ``GroupMetadataManager``,
                                              ``ProducerStateManager``,
snapshots, log deletions)                     ``UnifiedLog`` (never an event)
ISR shrink                        4     80    ``[Partition t-p broker=b] Shrinking ISR from ..``
ISR expand                        4     80    ``... Expanding ISR from .. to ..``
leader change                     4    190    ``[Broker id=b] Leader t-p with topic id .. starts
                                              at leader epoch e ..`` (state-change log)
NotLeaderOrFollower               3     30    ``[ReplicaManager broker=b] Error processing
                                              append operation on partition t-p`` + the
                                              ``NotLeaderOrFollowerException`` line
young GC                         30     10    ``[..][gc] GC(n) Pause Young (Normal) (G1
                                              Evacuation Pause) 300M->120M(1024M) 12.345ms``
Full GC                           0.1    0     ``.. Pause Full (G1 Compaction Pause) ..``
============================  ======  =====  ==============================================

A storm (an election storm, a rolling restart of a large cluster) multiplies the rate by
``storm_factor`` and shifts the mix to :data:`STORM`.

**Canary outcomes**: one per canary partition (one per broker, as the canary places them) per
``canary_interval_s``, acknowledged in 2-30 ms; with :meth:`Traffic.canary_round`, the probes
themselves too, in the canary topic, where the job's loss check reads them back (without them
every acknowledged write waits 15 minutes for its read-back: the loss detector's pending
probes grew for the first 15 minutes of a soak). **Cluster state**: a snapshot every
``snapshot_interval_s`` as the prober writes it: one record per partition (P, spread over
``topics`` topics, replication factor 3 on consecutive brokers), one per broker and a closing
summary.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from kafka_health.canary.records import Probe, ProbeOutcome
from kafka_health.cluster_state.records import BrokerState, PartitionState, SnapshotSummary
from kafka_health.kafka_config import TopicsConfig
from kafka_health.shipper.envelope import encode, iso_millis

STEADY: dict[str, float] = {
    "info": 954.9, "isr_shrink": 4, "isr_expand": 4, "leader_change": 4, "not_leader": 3,
    "young_gc": 30, "full_gc": 0.1,
}  # fmt: skip
"""Shares of broker log lines per 1,000 on a healthy cluster."""
STORM: dict[str, float] = {
    "info": 610, "isr_shrink": 80, "isr_expand": 80, "leader_change": 190, "not_leader": 30,
    "young_gc": 10,
}  # fmt: skip
"""Shares during an election storm or a rolling restart."""

Record = tuple[str, bytes, bytes]  # (topic, key, value)


@dataclass(frozen=True)
class ClusterShape:
    """The simulated cluster."""

    brokers: int = 200
    partitions: int = 100_000
    topics: int = 100
    replication: int = 3

    def partition(self, n: int, generation: int = 0) -> tuple[str, int, list[int]]:
        """The ``n``-th partition: topic, partition number, replicas (broker ids from 1). A
        topic's ``generation`` > 0 names a topic created after the one before was deleted;
        every generation's name has the same length (up to 999), so a soak's state bytes
        move only when what the monitor holds does (a name 3 characters longer per recreated
        topic grew the state ~4 KB a minute)."""
        per_topic = max(1, self.partitions // self.topics)
        topic, number = divmod(n, per_topic)
        first = n % self.brokers
        replicas = [(first + i) % self.brokers + 1 for i in range(min(3, self.brokers))]
        name = f"load-{topic:04d}-g{generation:03d}"
        return name, number, replicas[: self.replication]

    def topic_of(self, n: int) -> int:
        return n // max(1, self.partitions // self.topics)


def log_stamp(ms: int) -> str:
    """log4j's default timestamp (``%d{yyyy-MM-dd HH:mm:ss,SSS}``), UTC."""
    at = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return at.strftime("%Y-%m-%d %H:%M:%S,") + f"{ms % 1000:03d}"


def gc_stamp(ms: int) -> str:
    """JDK unified logging's ``time`` decorator, UTC."""
    at = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}+0000"


class Traffic:
    """The records of each topic at a given time; one random stream, seeded."""

    def __init__(self, shape: ClusterShape, topics: TopicsConfig, seed: int = 1) -> None:
        self.shape = shape
        self.topics = topics
        self.rng = random.Random(seed)
        self._gc_ids = [0] * (shape.brokers + 1)
        self._epochs: dict[int, int] = {}
        self._seq = 0
        self._shipped = [0] * (shape.brokers + 1)
        self._generation: dict[int, int] = {}
        self._next_rotation = 0

    def rotate_topics(self, count: int) -> list[str]:
        """Delete ``count`` topics and create a new one in each one's place (round robin):
        their partitions vanish from the next snapshots under the old names. Returns the
        deleted names."""
        deleted = []
        for _ in range(count):
            topic = self._next_rotation % self.shape.topics
            self._next_rotation += 1
            per_topic = max(1, self.shape.partitions // self.shape.topics)
            deleted.append(self._partition(topic * per_topic)[0])
            self._generation[topic] = self._generation.get(topic, 0) + 1
        return deleted

    def _partition(self, n: int) -> tuple[str, int, list[int]]:
        return self.shape.partition(n, self._generation.get(self.shape.topic_of(n), 0))

    # ----------------------------------------------------------------- broker logs

    def log_records(self, now_ms: int, count: int, storm: bool = False) -> list[Record]:
        """``count`` broker-log records stamped ``now_ms``, drawn from the mix."""
        mix = STORM if storm else STEADY
        kinds = self.rng.choices(list(mix), weights=list(mix.values()), k=count)
        return [self._line(kind, now_ms) for kind in kinds]

    def _line(self, kind: str, now_ms: int) -> Record:
        rng, shape = self.rng, self.shape
        n = rng.randrange(shape.partitions)
        topic, p, replicas = self._partition(n)
        broker = replicas[0]
        ts = log_stamp(now_ms)
        if kind == "info":
            broker = rng.randrange(1, shape.brokers + 1)
            return self._envelope(
                broker, "server", f"[{ts}] INFO {self._info(topic, p, broker)}", now_ms
            )
        if kind == "isr_shrink":
            after = ",".join(map(str, replicas[:1]))
            text = (f"[{ts}] INFO [Partition {topic}-{p} broker={broker}] Shrinking ISR from "
                    f"{','.join(map(str, replicas))} to {after}. Leader: (highWatermark: 1840, "
                    f"endOffset: 1852). Out of sync replicas: "
                    f"{', '.join(f'(brokerId: {r}, endOffset: 1840)' for r in replicas[1:])}. "
                    "(kafka.cluster.Partition)")  # fmt: skip
            return self._envelope(broker, "server", text, now_ms)
        if kind == "isr_expand":
            isr = ",".join(map(str, replicas))
            text = (f"[{ts}] INFO [Partition {topic}-{p} broker={broker}] Expanding ISR from "
                    f"{broker} to {isr} (kafka.cluster.Partition)")  # fmt: skip
            return self._envelope(broker, "server", text, now_ms)
        if kind == "leader_change":
            leader = rng.choice(replicas)
            epoch = self._epochs.get(n, 0) + 1
            self._epochs[n] = epoch
            text = (f"[{ts}] INFO [Broker id={leader}] Leader {topic}-{p} with topic id "
                    f"Some(uXCu8FIGQSS-JDdGwfYZ6g) starts at leader epoch {epoch} from offset "
                    f"1852 with partition epoch {epoch}, high watermark 1852, ISR "
                    f"[{','.join(map(str, replicas))}], adding replicas [] and removing replicas "
                    f"[] . Previous leader Some({broker}) and previous leader epoch was "
                    f"{epoch - 1}. (state.change.logger)")  # fmt: skip
            return self._envelope(leader, "state-change", text, now_ms)
        if kind == "not_leader":
            # A produce to a replica that is no longer the leader (a stale client's metadata):
            # ReplicaManager logs the error, the exception on the next line.
            follower = replicas[-1]
            text = (f"[{ts}] ERROR [ReplicaManager broker={follower}] Error processing append "
                    f"operation on partition {topic}-{p} (kafka.server.ReplicaManager)\n"
                    "org.apache.kafka.common.errors.NotLeaderOrFollowerException: Leader not "
                    f"local for partition {topic}-{p} on broker {follower}")  # fmt: skip
            return self._envelope(follower, "server", text, now_ms)
        broker = rng.randrange(1, shape.brokers + 1)
        self._gc_ids[broker] += 1
        gc_id = self._gc_ids[broker]
        uptime = 1000 + gc_id * 7.5
        if kind == "full_gc":
            pause = rng.uniform(200.0, 3000.0)
            body = f"Pause Full (G1 Compaction Pause) 980M->610M(1024M) {pause:.3f}ms"
        else:
            pause = rng.uniform(3.0, 40.0)
            body = f"Pause Young (Normal) (G1 Evacuation Pause) 300M->120M(1024M) {pause:.3f}ms"
        text = f"[{gc_stamp(now_ms)}][{uptime:.3f}s][info][gc] GC({gc_id}) {body}"
        return self._envelope(broker, "gc", text, now_ms)

    def _info(self, topic: str, p: int, broker: int) -> str:
        """An ordinary line of a healthy broker (no event)."""
        rng = self.rng
        offset = rng.randrange(10**9)
        pick = rng.randrange(5)
        if pick == 0:
            return (f"[LocalLog partition={topic}-{p}, dir=/var/lib/kafka/data] Rolled new log "
                    f"segment at offset {offset} in {rng.randrange(1, 9)} ms. "
                    "(kafka.log.LocalLog)")  # fmt: skip
        if pick == 1:
            return (f"[ProducerStateManager partition={topic}-{p}] Wrote producer snapshot at "
                    f"offset {offset} with 0 producer ids in {rng.randrange(1, 5)} ms. "
                    "(org.apache.kafka.storage.internals.log.ProducerStateManager)")  # fmt: skip
        if pick == 2:
            return (f"[UnifiedLog partition={topic}-{p}, dir=/var/lib/kafka/data] Deleting "
                    f"segment LogSegment(baseOffset={offset}, size=1073741824, "
                    f"lastModifiedTime={offset}, largestRecordTimestamp=Some({offset})) due to "
                    "retention time 604800000ms breach based on the largest record timestamp in "
                    "the segment (kafka.log.UnifiedLog)")  # fmt: skip
        if pick == 3:
            # the group coordinator's offsets expiry (GroupMetadataManager 2.x-3.x); its
            # rebalance lines ("Stabilized group ...") are events since the replay reads them
            return (f"[GroupMetadataManager brokerId={broker}] Removed {rng.randrange(500)} "
                    f"expired offsets in {rng.randrange(1, 40)} milliseconds. "
                    "(kafka.coordinator.group.GroupMetadataManager)")  # fmt: skip
        return (f"[ReplicaFetcher replicaId={broker}, leaderId={rng.randrange(1, 200)}, "
                f"fetcherId=0] Truncating partition {topic}-{p} with TruncationState(offset="
                f"{offset}, completed=true) due to local high watermark {offset} "
                "(kafka.server.ReplicaFetcherThread)")  # fmt: skip

    def _envelope(self, broker: int, kind: str, message: str, now_ms: int) -> Record:
        """The record the project's shipper would send for the line."""
        self._shipped[broker] += len(message) + 1
        key, value = encode(
            broker_id=str(broker), host=f"kafka-{broker}", kind=kind,
            path=f"/var/log/kafka/{kind}.log", offset=self._shipped[broker], inode=1,
            message=message.encode(), shipped_at=iso_millis(now_ms / 1000),
        )  # fmt: skip
        return (self.topics.broker_logs, key, value)

    # ----------------------------------------------------------------- canary, cluster state

    def canary_results(self, now_ms: int) -> list[Record]:
        """One acknowledged probe per canary partition (one per broker) sent at ``now_ms``."""
        topic = self.topics.canary_results
        return [(topic, o.key, o.encode()) for o in self._outcomes(now_ms)]

    def canary_round(self, now_ms: int) -> list[Record]:
        """:meth:`canary_results`, and each of those probes in the canary topic (keyed by its
        partition, as the canary writes them): what a canary round leaves in both topics."""
        outcomes = self._outcomes(now_ms)
        results = [(self.topics.canary_results, o.key, o.encode()) for o in outcomes]
        probes = [
            (self.topics.canary, str(o.partition).encode(),
             Probe(o.canary_id, o.partition, o.seq, o.acks, o.send_ms).encode())
            for o in outcomes
        ]  # fmt: skip
        return results + probes

    def _outcomes(self, now_ms: int) -> list[ProbeOutcome]:
        """The next round's outcomes: one acknowledged probe per canary partition."""
        out = []
        self._seq += 1
        for partition in range(self.shape.brokers):
            latency = self.rng.uniform(0.002, 0.030)
            out.append(ProbeOutcome(
                "load", self.topics.canary, partition, self._seq, "all", now_ms,
                now_ms + int(latency * 1000) + 1, "ok", latency, partition + 1, None, None,
                self._seq, now_ms + 1,
            ))  # fmt: skip
        return out

    def cluster_snapshot(self, now_ms: int) -> Iterator[Record]:
        """A prober snapshot: every partition, every broker, then the closing summary."""
        shape, topic = self.shape, self.topics.cluster_state
        for n in range(shape.partitions):
            name, p, replicas = self._partition(n)
            state = PartitionState(
                now_ms, name, p, replicas[0], self._epochs.get(n, 0), replicas, replicas, [], 2
            )
            yield (topic, state.key, state.encode())
        for broker in range(1, shape.brokers + 1):
            b = BrokerState(now_ms, broker, f"kafka-{broker}", 9092, None, True, broker == 1)
            yield (topic, b.key, b.encode())
        summary = SnapshotSummary(
            now_ms, now_ms + 1, shape.topics, shape.partitions, shape.brokers, shape.brokers, 1,
            "load",
        )  # fmt: skip
        yield (topic, SnapshotSummary.key, summary.encode())
