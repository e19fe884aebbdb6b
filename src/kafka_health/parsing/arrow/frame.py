"""The Spark side: the Kafka source's rows decoded and parsed by ``mapInArrow``, batch by
batch, into the rows (and the schema) of
``parse_entries(decode_records(records, config), config, ...)``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from kafka_health.parsing.arrow.decode import decode_batch
from kafka_health.parsing.arrow.entries import ParseOptions, parse_entries_batch
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.envelope import SOURCE_COLUMNS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

INT, LONG, DOUBLE, STR = pa.int32(), pa.int64(), pa.float64(), pa.string()
COLUMN_TYPES: dict[str, pa.DataType] = {
    "source_value_bytes": INT,
    "message": STR,
    "bad_reason": STR,
    "file": STR,
    "broker_id": STR,
    "host": STR,
    "kind": STR,
    "envelope": STR,
    "n_lines": INT,
    "outcome": STR,
    "reason": STR,
    "type": STR,
    "ts": STR,
    "level": STR,
    "topic": STR,
    "partition": INT,
    "isr_before": pa.list_(INT),
    "isr_after": pa.list_(INT),
    "leader": INT,
    "leader_epoch": INT,
    "min_isr": INT,
    "isr_size": INT,
    "session_id": STR,
    "subject_broker_id": INT,
    "pause_s": DOUBLE,
    "heap_before_mb": DOUBLE,
    "heap_after_mb": DOUBLE,
    "heap_total_mb": DOUBLE,
    "cause": STR,
    "collector": STR,
    "uptime_s": DOUBLE,
    "session_timeout_ms": INT,
    "log_dir": STR,
    "group": STR,
    "generation": INT,
    "members": INT,
    "event_ms": LONG,
}
"""The Arrow type of each column the decode and the parse write."""


@dataclass(frozen=True)
class RecordsParse:
    """One parse of Kafka records: the config and ``parse_entries``' options, and whether the
    decode's ``host`` and ``envelope`` are dropped before the parse (the streaming job)."""

    options: ParseOptions
    drop_host_and_envelope: bool = False

    def batch(self, batch: pa.RecordBatch) -> dict[str, pa.Array]:
        """One Arrow batch of the source's rows, decoded and parsed."""
        cols = {
            SOURCE_COLUMNS.get(name, name): batch.column(i)
            for i, name in enumerate(batch.schema.names)
        }
        decoded = decode_batch(cols, self.options.config)
        if self.drop_host_and_envelope:
            decoded.pop("host")
            decoded.pop("envelope")
        return parse_entries_batch(decoded, self.options)

    def schema(self, source: pa.Schema) -> pa.Schema:
        """The output's Arrow schema for ``source``'s."""
        empty = pa.RecordBatch.from_pylist([], schema=source)
        names = list(self.batch(empty))
        types = {SOURCE_COLUMNS.get(f.name, f.name): f.type for f in source}
        return pa.schema([(name, COLUMN_TYPES.get(name, types.get(name))) for name in names])

    def run(self, batches: Iterator[pa.RecordBatch], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
        """The ``mapInArrow`` function's body."""
        for batch in batches:
            cols = self.batch(batch)
            arrays = [cols[f.name].cast(f.type) for f in schema]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)


@dataclass(frozen=True)
class EntriesParse:
    """One parse of log entries (``parse_entries``' input, e.g. ``kafka-health parse``'s
    :func:`~kafka_health.parsing.offline.read_entries`)."""

    options: ParseOptions

    def batch(self, batch: pa.RecordBatch) -> dict[str, pa.Array]:
        """One Arrow batch of entries, parsed."""
        cols = {name: batch.column(i) for i, name in enumerate(batch.schema.names)}
        return parse_entries_batch(cols, self.options)

    def schema(self, source: pa.Schema) -> pa.Schema:
        """The output's Arrow schema: the entries' columns as they are, then the parse's."""
        empty = pa.RecordBatch.from_pylist([], schema=source)
        given = {f.name: f.type for f in source}
        names = list(self.batch(empty))
        return pa.schema([(n, given.get(n, COLUMN_TYPES.get(n))) for n in names])

    def run(self, batches: Iterator[pa.RecordBatch], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
        """The ``mapInArrow`` function's body."""
        for batch in batches:
            cols = self.batch(batch)
            arrays = [cols[f.name].cast(f.type) for f in schema]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def parse_entries(
    entries: DataFrame,
    config: ParsingConfig | None = None,
    kind: str = "auto",
    keep_message: bool = True,
    values_for_dead_letters_only: bool = False,
) -> DataFrame:
    """The rows of :func:`kafka_health.parsing.events.parse_entries` (same arguments), by
    ``mapInArrow``."""
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    options = ParseOptions(
        config or ParsingConfig(),
        kind=kind,
        keep_message=keep_message,
        values_for_dead_letters_only=values_for_dead_letters_only,
    )
    parse = EntriesParse(options)
    timezone = entries.sparkSession.conf.get("spark.sql.session.timeZone") or "UTC"
    out = parse.schema(to_arrow_schema(entries.schema, timezone=timezone))
    spark_schema = from_arrow_schema(out, prefer_timestamp_ntz=False)
    return entries.mapInArrow(lambda batches: parse.run(batches, out), spark_schema)


def parse_records(
    records: DataFrame,
    config: ParsingConfig | None = None,
    keep_message: bool = True,
    values_for_dead_letters_only: bool = False,
    drop_host_and_envelope: bool = False,
) -> DataFrame:
    """Kafka source rows -> the rows of ``parse_entries(decode_records(records, config),
    config, keep_message=..., values_for_dead_letters_only=...)`` (with
    ``drop_host_and_envelope``: of ``decode_records(...).drop("host", "envelope")``, as the
    streaming job parses), by ``mapInArrow``: no Python runs per record."""
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    config = config or ParsingConfig()
    options = ParseOptions(
        config, keep_message=keep_message, values_for_dead_letters_only=values_for_dead_letters_only
    )
    parse = RecordsParse(options, drop_host_and_envelope)
    timezone = records.sparkSession.conf.get("spark.sql.session.timeZone") or "UTC"
    source = to_arrow_schema(records.schema, timezone=timezone)
    out = parse.schema(source)
    return records.mapInArrow(
        lambda batches: parse.run(batches, out), from_arrow_schema(out, prefer_timestamp_ntz=False)
    )
