"""Archived log files -> the events the detectors read, with the lines that say so.

Spark reads and parses in batch with the live job's parser (:mod:`kafka_health.parsing`:
:func:`~kafka_health.parsing.offline.read_entries` then
:func:`~kafka_health.parsing.udf.parse_entries`, the Java UDF); only the events of the types some
detector reads come back to the driver. Each file's broker id is, in this order: what
``--broker-id`` says for it, the log's own words (``[KafkaServer id=N]``, ``[Broker id=N]``,
``broker.id = N`` / ``node.id = N`` in the start-up dump), the path (a folder or file named
``broker-3``, ``kafka3``, ``kafka-broker-3``, ``3``...). The group coordinators' lines come
back too (:data:`~kafka_health.replay.groups.GROUP_EVENTS`, as
:class:`~kafka_health.replay.groups.CoordinatorEvent`): the replay's consumer side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_health.config import MonitorConfig
from kafka_health.detectors.inputs import LogEvent
from kafka_health.parsing.offline import InputFile
from kafka_health.replay.groups import GROUP_COLUMNS, GROUP_EVENTS, CoordinatorEvent

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BROKER_IN_PATH = re.compile(
    r"(?:^|[/_.-])(?:kafka|broker|node)[-_]?(?:broker[-_]?)?(\d{1,6})(?=$|[/_.-])"
)
BROKER_DIR = re.compile(r"(?:^|/)(\d{1,6})/[^/]+$")
BROKER_IN_LOG = (
    r"\[KafkaServer id=(\d+)\]|\[Broker id=(\d+)\]|\[BrokerServer id=(\d+)\]|"
    r"\n\s*broker\.id = (\d+)|\n\s*node\.id = (\d+)"
)


@dataclass(frozen=True)
class SourcedEvent:
    """An event and where it was read: file, line, the entry's first line."""

    event: LogEvent
    file: str
    line: int
    text: str


def broker_from_path(path: str) -> str | None:
    """The broker id a log's path names, if any."""
    found = BROKER_IN_PATH.findall(path.lower())
    if found:
        return str(int(found[-1]))
    m = BROKER_DIR.search(path)
    return str(int(m.group(1))) if m else None


def read_events(
    spark: SparkSession,
    files: list[InputFile],
    config: MonitorConfig,
    broker_ids: dict[str, str] | None = None,
) -> list[SourcedEvent]:
    """The detected events of ``files``, ordered by time (the broker id as above)."""
    from pyspark.sql import functions as F

    from kafka_health.job.batch import DETECTED_TYPES, EVENT_COLUMNS
    from kafka_health.parsing.offline import read_entries
    from kafka_health.parsing.udf import parse_entries

    entries = read_entries(spark, files, config.parsing)
    in_log = F.regexp_extract_all(F.col("message"), F.lit(BROKER_IN_LOG), F.lit(0))
    said = (
        entries.select("file", F.explode(in_log).alias("m"))
        .select("file", F.regexp_extract("m", r"(\d+)", 1).alias("id"))
        .groupBy("file", "id").count()
        .collect()
    )  # fmt: skip
    from_log: dict[str, tuple[int, str]] = {}
    for row in said:
        best = from_log.get(row["file"])
        if best is None or row["count"] > best[0]:
            from_log[row["file"]] = (row["count"], row["id"])
    ids = {
        f.name: (broker_ids or {}).get(f.name)
        or (from_log[f.name][1] if f.name in from_log else None)
        or broker_from_path(f.name)
        for f in files
    }
    mapping = F.create_map(*[F.lit(x) for name, bid in ids.items() if bid for x in (name, bid)])
    entries = entries.withColumn("broker_id", mapping[F.col("file")] if any(ids.values())
                                 else F.lit(None).cast("string"))  # fmt: skip
    parsed = parse_entries(entries, config.parsing)
    replayed = (*DETECTED_TYPES, *GROUP_EVENTS)
    wanted = parsed.where((F.col("outcome") == "event") & F.col("type").isin(*replayed))
    head = F.substring_index(F.col("message"), "\n", 1)
    rows = wanted.select(*EVENT_COLUMNS, *GROUP_COLUMNS, "file", "line",
                         head.alias("head")).collect()  # fmt: skip
    out = [
        SourcedEvent(_event(r.asDict()), r["file"], int(r["line"]), r["head"][:2000]) for r in rows
    ]
    out.sort(key=lambda s: (s.event.event_ms or 0, s.file, s.line))
    return out


def _event(record: dict[str, object]) -> LogEvent:
    """A parsed row as the replay's event: a group line with its group fields."""
    if record["type"] in GROUP_EVENTS:
        return CoordinatorEvent.from_record(record)
    return LogEvent.from_record(record)
