"""Broker and GC log parsing as Spark-native expressions.

- :mod:`~kafka_health.parsing.patterns`: the one table of wordings, each with its source.
- :mod:`~kafka_health.parsing.envelope`: Kafka records (raw lines or JSON envelopes) -> entries.
- :mod:`~kafka_health.parsing.events`: entries -> events (built-in Spark functions only), in
  steps: :mod:`~kafka_health.parsing.matching` (the pattern stages),
  :mod:`~kafka_health.parsing.fields` (the event fields), with the column builders of
  :mod:`~kafka_health.parsing.stamps` (an entry's layout, time, level) and
  :mod:`~kafka_health.parsing.columns`.
- :mod:`~kafka_health.parsing.deadletter`: the rows set aside, with their source offsets.
- :mod:`~kafka_health.parsing.offline`: files (plain or .gz) -> entries, for ``kafka-health parse``.
- :mod:`~kafka_health.parsing.reference`: the same table run by Python's ``re`` (tests, benchmark).
- :mod:`~kafka_health.parsing.hostile`: hostile log lines, to fuzz all of it (tests, benchmarks).
"""

from kafka_health.parsing.patterns import ALL_PATTERNS, EVENT_TYPES, EventPattern

__all__ = ["ALL_PATTERNS", "EVENT_TYPES", "EventPattern"]
