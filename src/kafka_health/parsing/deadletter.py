"""The records the parser sets aside, with their source topic, partition and offset.

The streaming job writes these rows to its dead-letter topic or path (it owns the sink); here
is only which rows, and in what shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_health.parsing.config import DeadLetterConfig
from kafka_health.parsing.events import BAD_INPUT_REASONS

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

DEAD_LETTER_COLUMNS = (
    "source_topic",
    "source_partition",
    "source_offset",
    "source_timestamp",
    "outcome",
    "reason",
    "broker_id",
    "file",
    "value_bytes",
    "source_key",
    "source_value",
)

DEAD_LETTER_DDL = (
    "source_topic string, source_partition int, source_offset long, source_timestamp timestamp, "
    "outcome string, reason string, broker_id string, file string, value_bytes int, "
    "source_key binary, source_value binary"
)
"""The Spark schema of :data:`DEAD_LETTER_COLUMNS` (dead letters built on the driver)."""


def dead_letter_reasons(config: DeadLetterConfig) -> list[str]:
    """The reasons of an ``unrecognised`` entry that make it a dead letter (a ``malformed``
    one is when ``include_malformed``)."""
    return [*BAD_INPUT_REASONS, *(["unknown_format"] if config.include_unknown_format else [])]


def is_dead_letter(config: DeadLetterConfig) -> Column:
    """True for a parsed row that goes to the dead letters."""
    from pyspark.sql import functions as F

    reasons = dead_letter_reasons(config)
    picked = (F.col("outcome") == "unrecognised") & F.col("reason").isin(*reasons)
    if config.include_malformed:
        picked = picked | (F.col("outcome") == "malformed")
    return picked


def dead_letters(parsed: DataFrame, config: DeadLetterConfig | None = None) -> DataFrame:
    """Rows of the parse (``parsing.udf.parse_records``) to set aside, value cut to the limit."""
    from pyspark.sql import functions as F

    config = config or DeadLetterConfig()
    df = parsed.where(is_dead_letter(config))
    for name in DEAD_LETTER_COLUMNS:
        if name not in df.columns and name != "value_bytes":
            df = df.withColumn(name, F.lit(None))
    value = F.col("source_value")
    size = (
        F.col("source_value_bytes") if "source_value_bytes" in df.columns else F.octet_length(value)
    )
    return df.select(
        *[c for c in DEAD_LETTER_COLUMNS if c not in ("value_bytes", "source_value")],
        size.alias("value_bytes"),
        F.substring(value, 1, config.max_value_bytes).alias("source_value"),
    ).select(*DEAD_LETTER_COLUMNS)


def dead_letter_records(letters: DataFrame) -> DataFrame:
    """``key``/``value`` rows for a Kafka sink: key = source key, value = JSON with base64."""
    from pyspark.sql import functions as F

    meta = [c for c in DEAD_LETTER_COLUMNS if c not in ("source_key", "source_value")]
    return letters.select(
        F.col("source_key").alias("key"),
        F.to_json(F.struct(*meta, F.base64(F.col("source_value")).alias("value_base64"))).alias(
            "value"
        ),
    )
