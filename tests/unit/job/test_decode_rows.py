"""The driver's side of a batch: collected (kind, json) rows -> detector inputs and counts."""

from __future__ import annotations

import json

from kafka_health.detectors.inputs import LogStream
from kafka_health.job.batch import ParseCount, decode_rows


def row(tag: str, **fields: object) -> tuple[str, str]:
    return tag, json.dumps(fields)


def test_one_tally_gives_both_the_parse_counts_and_the_streams_seen() -> None:
    rows = [
        row("tally", outcome="event", reason=None, type="full_gc", broker_id="1", kind="gc",
            entries=2, lines=2, dead_letters=0),
        row("tally", outcome="unrecognized", reason="no_event", type=None, broker_id="1",
            kind="gc", entries=40, lines=41, dead_letters=0),
        row("tally", outcome="unrecognized", reason="no_event", type=None, broker_id="2",
            kind="server", entries=10, lines=10, dead_letters=0),
        row("tally", outcome="malformed", reason="bad_envelope", type=None, broker_id=None,
            kind=None, entries=3, lines=3, dead_letters=3),
    ]  # fmt: skip
    decoded = decode_rows(rows)
    assert sorted(decoded.batch.streams, key=lambda s: s.broker_id) == [
        LogStream("1", "gc", 42),
        LogStream("2", "server", 10),
    ]
    assert sorted(decoded.counts, key=lambda c: str(c.outcome)) == [
        ParseCount("event", None, "full_gc", 2, 2, 0),
        ParseCount("malformed", "bad_envelope", None, 3, 3, 3),
        ParseCount("unrecognized", "no_event", None, 50, 51, 0),
    ]
    assert decoded.dead_letters == 3


def test_probes_and_events_become_detector_inputs() -> None:
    rows = [
        row("probe", canary_id="c", partition=1, seq=7, acks="all", send_ms=5, offset=11),
        row("event", type="broker_failure", broker_id="1", event_ms=9, subject_broker_id=3),
    ]
    batch = decode_rows(rows).batch
    assert [(p.partition, p.seq, p.offset) for p in batch.probes] == [(1, 7, 11)]
    assert [(e.type, e.subject_broker_id) for e in batch.events] == [("broker_failure", 3)]
