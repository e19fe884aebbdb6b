"""Things that must keep happening: a per-key deadline tracker on processing-time timers.

Each input row touches, arms or disarms a deadline for a key (scope, id):

- ``touch``: the key is alive now; its deadline moves to now + ``deadline_ms`` (canary
  partitions must report, broker log streams must keep arriving);
- ``arm``: start a deadline unless one runs (a ``__consumer_offsets`` load started);
- ``disarm``: cancel it (the load finished).

When a deadline passes with no touch, a processing-time timer fires and the key is reported
``expired`` — with no new input at all, since Spark runs timer-only batches. A later touch or
disarm reports it ``alive`` again. Each touch also reports the key's last-seen time, so the
driver can publish ages. Per-key state lives in the RocksDB state store.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pyspark.sql import Row
from pyspark.sql.streaming.stateful_processor import (
    ExpiredTimerInfo,
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
)
from pyspark.sql.types import (
    BooleanType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from kafka_health.config import JobConfig

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

INPUT_COLUMNS = ("scope", "id", "action", "at_ms", "deadline_ms", "attr")

OUTPUT_SCHEMA = StructType(
    [
        StructField("scope", StringType()),
        StructField("id", StringType()),
        StructField("state", StringType()),
        StructField("last_seen_ms", LongType()),
        StructField("changed_ms", LongType()),
        StructField("attr", StringType()),
    ]
)

_STATE_SCHEMA = StructType(
    [
        StructField("last_seen_ms", LongType()),
        StructField("timer_ms", LongType()),
        StructField("expired", BooleanType()),
        StructField("attr", StringType()),
    ]
)


class DeadlineTracker(StatefulProcessor):
    """Keyed by (scope, id); see the module docstring."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.state = handle.getValueState("deadline", _STATE_SCHEMA)

    def handleInputRows(
        self, key: Any, rows: Iterator[Row], timerValues: TimerValues
    ) -> Iterator[Row]:
        now = timerValues.getCurrentProcessingTimeInMs()
        scope, ident = key
        stored = self.state.get() if self.state.exists() else None
        last_seen, timer, expired, attr = stored or (None, None, False, None)
        was_expired = bool(expired)
        for row in sorted(rows, key=lambda r: r.at_ms or 0):
            attr = row.attr if row.attr is not None else attr
            if row.action == "touch":
                last_seen = max(last_seen or 0, row.at_ms or now)
                timer = self._move_timer(timer, now + int(row.deadline_ms))
                expired = False
            elif row.action == "arm" and timer is None:
                last_seen = row.at_ms or now
                timer = self._move_timer(None, now + int(row.deadline_ms))
                expired = False
            elif row.action == "disarm":
                timer = self._move_timer(timer, None)
                expired = False
        self.state.update((last_seen, timer, expired, attr))
        if was_expired and not expired:
            yield self._row(scope, ident, "alive", last_seen, now, attr)
        elif timer is not None and not expired:
            yield self._row(scope, ident, "armed", last_seen, now, attr)
        elif timer is None:
            yield self._row(scope, ident, "disarmed", last_seen, now, attr)

    def handleExpiredTimer(
        self, key: Any, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[Row]:
        scope, ident = key
        stored = self.state.get() if self.state.exists() else None
        if stored is None:
            return
        last_seen, _timer, _expired, attr = stored
        self.state.update((last_seen, None, True, attr))
        now = timerValues.getCurrentProcessingTimeInMs()
        yield self._row(scope, ident, "expired", last_seen, now, attr)

    def _move_timer(self, old: int | None, new: int | None) -> int | None:
        if old is not None:
            self.handle.deleteTimer(old)
        if new is not None:
            self.handle.registerTimer(new)
        return new

    @staticmethod
    def _row(
        scope: str, ident: str, state: str, last_seen: int | None, now: int, attr: str | None
    ) -> Row:
        return Row(
            scope=scope, id=ident, state=state, last_seen_ms=last_seen, changed_ms=now, attr=attr
        )

    def close(self) -> None:
        pass


def track_deadlines(requests: DataFrame) -> DataFrame:
    """Apply the tracker to rows with :data:`INPUT_COLUMNS`; see the module docstring."""
    return (
        requests.select(*INPUT_COLUMNS)
        .groupBy("scope", "id")
        .transformWithState(
            statefulProcessor=DeadlineTracker(),
            outputStructType=OUTPUT_SCHEMA,
            outputMode="Update",
            timeMode="ProcessingTime",
        )
    )


def log_deadline_requests(parsed: DataFrame, job: JobConfig) -> DataFrame:
    """From each parsed broker log record, in one pass: a touch of its (broker, kind) stream
    (coverage), and for a ``__consumer_offsets`` load start or finish an arm or disarm of
    that partition's stuck-load deadline."""
    from pyspark.sql import functions as F

    from kafka_health.job.board import COORDINATOR_LOAD, LOG_STREAM

    def request(scope: str, ident: Column, action: Column, at: Column, deadline_s: float) -> Column:
        return F.struct(
            F.lit(scope).alias("scope"), ident.alias("id"), action.alias("action"),
            at.alias("at_ms"), F.lit(round(deadline_s * 1000)).cast("bigint").alias("deadline_ms"),
            F.lit(None).cast("string").alias("attr"),
        )  # fmt: skip

    broker = F.col("broker_id")
    touch = F.when(
        broker.isNotNull() & F.col("kind").isNotNull(),
        request(LOG_STREAM, F.concat_ws("/", broker, F.col("kind")), F.lit("touch"),
                F.unix_millis(F.current_timestamp()), job.log_silence_s),
    )  # fmt: skip
    is_load = (
        (F.col("outcome") == "event")
        & F.col("type").isin("coordinator_load_start", "coordinator_load_finish")
        & broker.isNotNull()
        & F.col("partition").isNotNull()
    )
    load = F.when(
        is_load,
        request(
            COORDINATOR_LOAD,
            F.concat_ws("/", broker, F.col("partition").cast("string")),
            F.when(F.col("type") == "coordinator_load_start", F.lit("arm")).otherwise(
                F.lit("disarm")
            ),
            F.col("event_ms"),
            job.coordinator_load_stuck_s,
        ),
    )
    return (
        parsed.select(F.explode(F.array(touch, load)).alias("r"))
        .where(F.col("r").isNotNull())
        .select("r.*")
    )
