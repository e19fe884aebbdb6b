"""ISR state of every partition: prober snapshots as truth, broker log events as faster news.

All partition updates go to one ``transformWithState`` key (the cluster), whose MapState holds
each partition's latest view (leader, epoch, replicas, ISR, min ISR, time of its news). Per
partition the newest news wins: a snapshot replaces the view unless a log event newer than the
snapshot already changed it; ``isr_shrink`` / ``isr_expand`` / ``isr_change`` set the ISR,
``leader_change`` the leader and epoch. After every batch the processor emits the complete
set of unhealthy partitions (under-replicated or under min ISR, or offline) followed by an
end-of-set marker row, so the driver's view is exact after any restart from the checkpoint.
Partitions of deleted topics expire: once a completed snapshot is newer than a partition's
last snapshot by ``expire_after_ms``, the partition is dropped. A change of leader epoch seen
in a snapshot is also emitted as an election (``kind = election``), since the prober sees
elections whose log lines the monitor never received.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pyspark.sql import Row
from pyspark.sql.streaming.stateful_processor import (
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
)
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from kafka_health.job.schemas import CLUSTER_STATE_DDL, CLUSTER_STATE_SCHEMA_ID

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

# Kinds of input rows.
SNAPSHOT_PARTITION = "snapshot_partition"
SNAPSHOT_DONE = "snapshot_done"
SNAPSHOT_BROKER = (
    "snapshot_broker"  # passed through: ``leader`` = broker id, ``offline`` = not live
)
LOG_ISR = "isr"
LOG_LEADER = "leader"

UPDATE_COLUMNS = (
    "kind", "topic", "partition", "at_ms", "leader", "leader_epoch", "replicas", "isr", "min_isr",
    "live",
)  # fmt: skip

_INTS = ArrayType(IntegerType())
OUTPUT_SCHEMA = StructType(
    [
        StructField("kind", StringType()),  # unhealthy | end | election | broker
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("leader", IntegerType()),
        StructField("leader_epoch", IntegerType()),
        StructField("replicas", _INTS),
        StructField("isr", _INTS),
        StructField("min_isr", IntegerType()),
        StructField("under_replicated", BooleanType()),
        StructField("under_min_isr", BooleanType()),
        StructField("offline", BooleanType()),
        StructField("at_ms", LongType()),
    ]
)

_VIEW_SCHEMA = StructType(
    [
        StructField("leader", IntegerType()),
        StructField("leader_epoch", IntegerType()),
        StructField("replicas", _INTS),
        StructField("isr", _INTS),
        StructField("min_isr", IntegerType()),
        StructField("news_ms", LongType()),
        StructField("snapshot_ms", LongType()),
    ]
)
_KEY_SCHEMA = StructType(
    [StructField("topic", StringType()), StructField("partition", IntegerType())]
)


def _unhealthy(view: tuple[Any, ...]) -> tuple[bool, bool, bool]:
    leader, _epoch, replicas, isr, min_isr = view[:5]
    isr_size = len(isr or [])
    under_replicated = isr_size < len(replicas or [])
    under_min_isr = min_isr is not None and isr_size < min_isr
    offline = leader is None or leader < 0
    return under_replicated, under_min_isr, offline


class IsrTracker(StatefulProcessor):
    """One key (the cluster); see the module docstring."""

    def __init__(self, expire_after_ms: int) -> None:
        self.expire_after_ms = expire_after_ms

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.views = handle.getMapState("partitions", _KEY_SCHEMA, _VIEW_SCHEMA)
        self.unhealthy = handle.getMapState("unhealthy", _KEY_SCHEMA, _VIEW_SCHEMA)

    def handleInputRows(
        self, key: Any, rows: Iterator[Row], timerValues: TimerValues
    ) -> Iterator[Row]:
        elections: list[Row] = []
        done_snapshots: list[int] = []
        for row in sorted(rows, key=lambda r: (r.at_ms or 0, r.kind != SNAPSHOT_PARTITION)):
            if row.kind == SNAPSHOT_DONE:
                done_snapshots.append(int(row.at_ms))
                continue
            if row.kind == SNAPSHOT_BROKER:
                elections.append(
                    Row(**{f.name: None for f in OUTPUT_SCHEMA.fields}
                        | {"kind": "broker", "leader": row.leader, "offline": not row.live,
                           "at_ms": row.at_ms})
                )  # fmt: skip
                continue
            pk = (row.topic, int(row.partition))
            old = self.views.getValue(pk) if self.views.containsKey(pk) else None
            new = self._apply(old, row)
            if new is None:
                continue
            if (
                row.kind == SNAPSHOT_PARTITION
                and old is not None
                and old[1] is not None
                and new[1] is not None
                and new[1] > old[1]
            ):
                elections.append(self._row("election", pk, new, row.at_ms))
            self.views.updateValue(pk, new)
            if any(_unhealthy(new)):
                self.unhealthy.updateValue(pk, new)
            elif self.unhealthy.containsKey(pk):
                self.unhealthy.removeKey(pk)
        for snapshot_ms in done_snapshots:
            self._expire(snapshot_ms)
        yield from elections
        for pk, view in list(self.unhealthy.iterator()):
            yield self._row("unhealthy", tuple(pk), view, view[5])
        yield Row(**{f.name: None for f in OUTPUT_SCHEMA.fields} | {"kind": "end"})

    def _apply(self, old: tuple[Any, ...] | None, row: Row) -> tuple[Any, ...] | None:
        at = int(row.at_ms or 0)
        if row.kind == SNAPSHOT_PARTITION:
            if old is not None and old[5] is not None and old[5] > at:
                # newer log news already: keep its ISR/leader, take the rest from the snapshot
                return (old[0], old[1], list(row.replicas or []), old[3], row.min_isr, old[5], at)
            return (
                row.leader, row.leader_epoch, list(row.replicas or []), list(row.isr or []),
                row.min_isr, at, at,
            )  # fmt: skip
        if old is None:
            return None  # log news about a partition no snapshot described yet: no replica set
        if old[5] is not None and old[5] > at:
            return None  # older than what we know
        if row.kind == LOG_ISR and row.isr is not None:
            return (old[0], old[1], old[2], list(row.isr), old[4], at, old[6])
        if row.kind == LOG_LEADER and row.leader is not None:
            epoch = row.leader_epoch if row.leader_epoch is not None else old[1]
            return (row.leader, epoch, old[2], old[3], old[4], at, old[6])
        return None

    def _expire(self, snapshot_ms: int) -> None:
        for pk, view in list(self.unhealthy.iterator()):
            last_snapshot = view[6]
            if last_snapshot is not None and snapshot_ms - last_snapshot >= self.expire_after_ms:
                self.unhealthy.removeKey(pk)
                self.views.removeKey(pk)

    @staticmethod
    def _row(kind: str, pk: tuple[Any, ...], view: tuple[Any, ...], at_ms: int | None) -> Row:
        under_replicated, under_min_isr, offline = _unhealthy(view)
        return Row(
            kind=kind, topic=pk[0], partition=int(pk[1]), leader=view[0], leader_epoch=view[1],
            replicas=list(view[2] or []), isr=list(view[3] or []), min_isr=view[4],
            under_replicated=under_replicated, under_min_isr=under_min_isr, offline=offline,
            at_ms=at_ms,
        )  # fmt: skip

    def close(self) -> None:
        pass


def snapshot_updates(raw: DataFrame, cluster_state_topic: str) -> DataFrame:
    """ISR updates (:data:`UPDATE_COLUMNS`) from the prober's partition and snapshot records."""
    from pyspark.sql import functions as F

    records = (
        raw.where(F.col("topic") == cluster_state_topic)
        .select(F.from_json(F.col("value").cast("string"), CLUSTER_STATE_DDL).alias("s"))
        .where(
            (F.col("s.schema") == CLUSTER_STATE_SCHEMA_ID)
            & F.col("s.kind").isin("partition", "snapshot", "broker")
        )
    )
    return records.select(
        F.when(F.col("s.kind") == "partition", F.lit(SNAPSHOT_PARTITION))
        .when(F.col("s.kind") == "broker", F.lit(SNAPSHOT_BROKER))
        .otherwise(F.lit(SNAPSHOT_DONE))
        .alias("kind"),
        F.col("s.topic").alias("topic"),
        F.col("s.partition").alias("partition"),
        F.col("s.snapshot_ms").alias("at_ms"),
        F.coalesce(F.col("s.leader"), F.col("s.broker_id")).alias("leader"),
        F.col("s.leader_epoch").alias("leader_epoch"),
        F.col("s.replicas").alias("replicas"),
        F.col("s.isr").alias("isr"),
        F.col("s.min_isr").alias("min_isr"),
        F.col("s.live").alias("live"),
    )


def log_updates(events: DataFrame) -> DataFrame:
    """ISR updates from parsed broker log events (``isr_*`` and ``leader_change``)."""
    from pyspark.sql import functions as F

    isr_types = ["isr_shrink", "isr_expand", "isr_change"]
    relevant = events.where(
        F.col("type").isin(*isr_types, "leader_change")
        & F.col("topic").isNotNull()
        & F.col("partition").isNotNull()
    )
    return relevant.select(
        F.when(F.col("type") == "leader_change", F.lit(LOG_LEADER))
        .otherwise(F.lit(LOG_ISR))
        .alias("kind"),
        F.col("topic"),
        F.col("partition").cast("int").alias("partition"),
        F.col("event_ms").alias("at_ms"),
        F.col("leader").cast("int").alias("leader"),
        F.col("leader_epoch").cast("int").alias("leader_epoch"),
        F.lit(None).cast("array<int>").alias("replicas"),
        F.col("isr_after").cast("array<int>").alias("isr"),
        F.lit(None).cast("int").alias("min_isr"),
        F.lit(None).cast("boolean").alias("live"),
    )


def track_isr(updates: DataFrame, expire_after_s: float) -> DataFrame:
    """Apply :class:`IsrTracker` to the union of snapshot and log updates."""
    from pyspark.sql import functions as F

    return (
        updates.select(*UPDATE_COLUMNS)
        .withColumn("cluster", F.lit("cluster"))
        .groupBy("cluster")
        .transformWithState(
            statefulProcessor=IsrTracker(int(expire_after_s * 1000)),
            outputStructType=OUTPUT_SCHEMA,
            outputMode="Update",
            timeMode="None",
        )
    )
