"""Broker and GC log parsing: the pattern table in Python, the parse in a Java UDF.

- :mod:`~kafka_health.parsing.patterns`: the one table of wordings, each with its source.
- :mod:`~kafka_health.parsing.udf`: the parse, a Spark Java UDF built from source
  (:mod:`kafka_health.spark.parser_jar`): Kafka records (raw lines or JSON envelopes) or a
  file's entries -> events; the table handed to it as JSON (:mod:`~kafka_health.parsing.udf_spec`)
  from :mod:`~kafka_health.parsing.envelope`, :mod:`~kafka_health.parsing.jsonlayout`,
  :mod:`~kafka_health.parsing.prefilter` and the patterns.
- :mod:`~kafka_health.parsing.events`: what the parse gives, and readers of its rows.
- :mod:`~kafka_health.parsing.deadletter`: the rows set aside, with their source offsets.
- :mod:`~kafka_health.parsing.offline`: files (plain or .gz) -> entries, for ``kafka-health parse``.
- :mod:`~kafka_health.parsing.reference`: the same table run by Python's ``re`` (tests' oracle).
- :mod:`~kafka_health.parsing.hostile`: hostile log lines, to fuzz all of it (tests, benchmarks).
"""

from kafka_health.parsing.patterns import ALL_PATTERNS, EVENT_TYPES, EventPattern

__all__ = ["ALL_PATTERNS", "EVENT_TYPES", "EventPattern"]
