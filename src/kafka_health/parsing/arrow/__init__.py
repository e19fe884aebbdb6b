"""The whole parse (decode of every supported envelope, then every pattern and field) as
``mapInArrow`` with pyarrow.compute kernels (RE2 regexes) over whole batches: way (b) of
issue 59, the same rows as the built-in Column parser
(``parse_entries(decode_records(...))``).

- :mod:`~kafka_health.parsing.arrow.frame`: the Spark entry points, :func:`parse_records`
  (Kafka records, as the job and its tests feed the parse) and :func:`parse_entries` (entries,
  as ``kafka-health parse`` reads them from files).
- :mod:`~kafka_health.parsing.arrow.decode`: records -> entries (sizes, bad input, envelopes).
- :mod:`~kafka_health.parsing.arrow.jsontext`: JSON read per batch as Spark's Jackson reads it.
- :mod:`~kafka_health.parsing.arrow.entries`: entries -> events, with
  :mod:`~kafka_health.parsing.arrow.layout` (log4j JSON layouts),
  :mod:`~kafka_health.parsing.arrow.matching` (head, family, prefilter, patterns, groups),
  :mod:`~kafka_health.parsing.arrow.fields` and :mod:`~kafka_health.parsing.arrow.times`.
- :mod:`~kafka_health.parsing.arrow.rewrites`: THE table of the regexes RE2 cannot take as
  written, with :mod:`~kafka_health.parsing.arrow.java_regex` (Java -> RE2 text) and
  :mod:`~kafka_health.parsing.arrow.regexes` (running them).
- :mod:`~kafka_health.parsing.arrow.arrays`: null rules and index helpers.
"""

from kafka_health.parsing.arrow.frame import parse_entries, parse_records

__all__ = ["parse_entries", "parse_records"]
