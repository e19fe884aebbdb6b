"""The size of the corpora the parse is compared on with the Python reference
(``tests/spark/test_parse_reference.py``), and the kinds of input they must show.

CI size by default: every parser case (every pattern's wordings) raw and in envelopes, every
poison record, every fixture log line and 2,000 hostile lines; :func:`uncovered` fails the test
if a kind of input goes missing. Full size (20,000 hostile lines): ``KAFKA_HEALTH_PARSE_FULL=1``.
``KAFKA_HEALTH_HOSTILE_LINES`` sets the hostile lines either way (200,000: the whole file)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

FULL = os.environ.get("KAFKA_HEALTH_PARSE_FULL", "") not in ("", "0")
"""The reference test's corpora at full size (``KAFKA_HEALTH_PARSE_FULL=1``)."""
HOSTILE_FULL, HOSTILE_CI = 20_000, 2_000
ENVELOPES = frozenset(
    {"kafka-health", "log4j-json", "filebeat", "vector", "rsyslog", "fluent-bit", "json", "raw"}
)
"""Every shape the decode names (the parser's ``Envelope.shipper``, and ``raw``)."""


def hostile_count(full: bool = FULL) -> int:
    """The hostile generator's lines the tests compare: ``KAFKA_HEALTH_HOSTILE_LINES`` when
    set, else 20,000 at full size and 2,000 at CI size."""
    given = os.environ.get("KAFKA_HEALTH_HOSTILE_LINES")
    return int(given) if given else HOSTILE_FULL if full else HOSTILE_CI


def uncovered(rows: Iterable[Mapping[str, object]]) -> list[str]:
    """Kinds of input none of ``rows`` (parsed with ``kafka-health parse``'s options, so
    ``envelope`` is kept) shows: an envelope shape of :data:`ENVELOPES`, an event type of
    some pattern (``patterns.ALL_PATTERNS``, so both families), an outcome, or a bad-input
    reason (``events.BAD_INPUT_REASONS``). Guards the CI-size corpora from losing a kind of
    input."""
    from kafka_health.parsing.events import BAD_INPUT_REASONS
    from kafka_health.parsing.patterns import ALL_PATTERNS

    seen: dict[str, set[object]] = {
        "envelope": set(),
        "type": set(),
        "outcome": set(),
        "bad_reason": set(),
    }
    for row in rows:
        for column, values in seen.items():
            values.add(row[column])
    missing = [f"envelope {e}" for e in sorted(ENVELOPES - seen["envelope"])]
    missing += [f"event {t}" for t in sorted({p.event for p in ALL_PATTERNS} - seen["type"])]
    missing += [
        f"outcome {o}" for o in sorted({"event", "malformed", "unrecognised"} - seen["outcome"])
    ]
    missing += [f"bad input {r}" for r in sorted(set(BAD_INPUT_REASONS) - seen["bad_reason"])]
    return missing
