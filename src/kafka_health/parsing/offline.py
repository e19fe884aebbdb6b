"""Batch reading of log files (plain or .gz) into entries, with line numbers, for ``parse``.

Each file is read by Spark's text source (``lineSep`` "\\n", so a stray carriage return does
not split a line); lines are numbered in file order from the split offsets, and continuation
lines (stack frames, JDK 8 GC detail blocks) are joined to the entry they continue, at most
``max_entry_lines`` lines to an entry. The entries then go through the same
:func:`~kafka_health.parsing.udf.parse_entries` with the streaming job's Java parse.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_health.parsing import patterns as P
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.envelope import BINARY, kind_from_file

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class UnreadableFile(Exception):
    """A path given to ``parse`` is missing or cannot be read."""


@dataclass(frozen=True)
class InputFile:
    """A file to parse: the name as given and the absolute path Spark reads."""

    name: str
    path: Path


def check_files(names: list[str], recursive: bool = False) -> list[InputFile]:
    """Resolve the paths (a folder gives its files, by name; with ``recursive``, those of its
    sub-folders too, as an archive of many brokers' logs holds them); raise
    ``UnreadableFile``."""
    files: list[InputFile] = []
    for name in names:
        path = Path(name).expanduser()
        if path.is_dir():
            found = path.rglob("*") if recursive else path.iterdir()
            children = sorted(p for p in found if p.is_file() and not p.name.startswith("."))
            files.extend(InputFile(str(p), p.resolve()) for p in children)
            continue
        if not path.exists():
            raise UnreadableFile(f"{name}: no such file")
        if not path.is_file():
            raise UnreadableFile(f"{name}: not a regular file")
        if not os.access(path, os.R_OK):
            raise UnreadableFile(f"{name}: permission denied")
        try:
            with path.open("rb") as handle:
                magic = handle.read(2)
            if path.suffix == ".gz":
                if magic != b"\x1f\x8b":
                    raise UnreadableFile(f"{name}: not gzip data")
                with gzip.open(path, "rb") as handle:
                    handle.read(1)
        except (OSError, EOFError) as exc:
            raise UnreadableFile(f"{name}: {exc}") from exc
        files.append(InputFile(name, path.resolve()))
    return files


def input_files(names: list[str], command: str, recursive: bool = False) -> list[InputFile] | None:
    """The files to read, or None after printing why not (unreadable, or none at all)."""
    import sys

    try:
        files = check_files(names, recursive)
    except UnreadableFile as exc:
        print(f"kafka-health {command}: cannot read {exc}", file=sys.stderr)
        return None
    if not files:
        print(f"kafka-health {command}: no files to read", file=sys.stderr)
        return None
    return files


def read_lines(spark: SparkSession, files: list[InputFile]) -> DataFrame:
    """One row per physical line: file, file_index, line (1-based), text."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    frames = []
    for index, f in enumerate(files):
        frame = (
            spark.read.option("lineSep", "\n")
            .text(str(f.path))
            .select(
                F.lit(f.name).alias("file"),
                F.lit(index).alias("file_index"),
                F.col("_metadata.file_block_start").alias("_block"),
                F.monotonically_increasing_id().alias("_row"),
                F.col("value").alias("text"),
            )
        )
        frames.append(frame)
    lines = frames[0]
    for frame in frames[1:]:
        lines = lines.unionByName(frame)
    order = Window.partitionBy("file_index").orderBy("_block", "_row")
    return lines.withColumn("line", F.row_number().over(order)).drop("_block", "_row")


def join_entries(lines: DataFrame, config: ParsingConfig) -> DataFrame:
    """Lines -> entries: file, file_index, line (first), n_lines, message, bad_reason."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    text = F.regexp_replace(F.col("text"), r"\r$", "")
    size = F.octet_length(F.col("text"))
    bad = (
        F.when(size > config.max_entry_bytes, "oversize")
        .when(~F.expr("is_valid_utf8(text)"), "not_utf8")
        .when(F.col("text").rlike(BINARY), "binary")
    )
    lines = lines.withColumn("_bad", bad).withColumn(
        "text", F.when(F.col("_bad").isNull(), text).otherwise(F.lit(""))
    )
    starts = (F.col("line") == 1) | F.col("_bad").isNotNull() | F.col("text").rlike(P.ENTRY_START)
    running = (
        Window.partitionBy("file_index")
        .orderBy("line")
        .rowsBetween(Window.unboundedPreceding, Window.currentRow)
    )
    lines = lines.withColumn("_start", starts)
    lines = lines.withColumns(
        {
            "_entry": F.sum(F.col("_start").cast("long")).over(running),
            "_entry_line": F.max(F.when(F.col("_start"), F.col("line"))).over(running),
        }
    )
    lines = lines.withColumn(
        "_chunk", F.floor((F.col("line") - F.col("_entry_line")) / config.max_entry_lines)
    )
    grouped = lines.groupBy("file", "file_index", "_entry", "_chunk").agg(
        F.min("line").alias("line"),
        F.count(F.lit(1)).alias("n_lines"),
        F.max("_bad").alias("bad_reason"),
        F.array_sort(F.collect_list(F.struct("line", "text"))).alias("_parts"),
    )
    message = F.array_join(F.transform(F.col("_parts"), lambda x: x["text"]), "\n")
    too_big = F.octet_length(message) > config.max_entry_bytes
    orphan = F.col("_chunk") > 0
    return grouped.select(
        "file",
        "file_index",
        "line",
        "n_lines",
        message.alias("message"),
        orphan.alias("continued"),
        F.coalesce(F.col("bad_reason"), F.when(too_big, "oversize")).alias("bad_reason"),
    )


def read_entries(
    spark: SparkSession,
    files: list[InputFile],
    config: ParsingConfig | None = None,
    broker_id: str | None = None,
) -> DataFrame:
    """Entries of ``files`` with ``kind`` guessed from the file name and ``broker_id`` set."""
    from pyspark.sql import functions as F

    config = config or ParsingConfig()
    entries = join_entries(read_lines(spark, files), config)
    return entries.withColumns(
        {
            "kind": kind_from_file(F.col("file")),
            "broker_id": F.lit(broker_id).cast("string"),
        }
    )
