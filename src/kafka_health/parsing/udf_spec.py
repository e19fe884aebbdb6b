"""The parse's table as the Java UDF reads it (``kafkahealth.parse.Spec``), written as JSON from
the checkout: no table is written in Java, so the two cannot drift.

:func:`parser_spec` writes each pattern's Java regex (``EventPattern.java_regex()``), trigger,
family, scope, the prefilter texts of its trigger literals, its named groups and their numbers;
the prefilter's gates; the line shapes (``patterns.SHAPES``, ``BINARY``, ``KIND_FROM_FILE``,
...); the envelope's paths and keys; the JSON layouts' paths; the event fields in
:data:`~kafka_health.parsing.events.EVENT_FIELDS` order with the group and conversion of each
(or "composed"); the configuration and the call's options. At registration
(:mod:`kafka_health.parsing.udf`) the jar checks it (``Spec.check``: every regex compiled by
java.util.regex with as many groups as Python's ``re`` counts, every event field one it makes),
and :func:`event_field_specs` checks that every event field and named group of the checkout is
one the jar makes or reads (:data:`SIMPLE_FIELDS`, :data:`COMPOSED_FIELDS`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from kafka_health.parsing import envelope as E
from kafka_health.parsing import jsonlayout as J
from kafka_health.parsing import patterns as P
from kafka_health.parsing.config import ParsingConfig
from kafka_health.parsing.events import EVENT_FIELDS, KAFKA_KINDS
from kafka_health.parsing.prefilter import anchor, prefilter_gates

SPEC_VERSION = 1
"""The table format written here; the jar reads the one of ``Spec.VERSION``."""

SIMPLE_FIELDS: dict[str, tuple[str, str]] = {
    "isr_before": ("isr_before", "isr_list"),
    "isr_after": ("isr_after", "isr_list"),
    "leader_epoch": ("leader_epoch", "int"),
    "min_isr": ("min_isr", "int"),
    "session_id": ("session_id", "text"),
    "subject_broker_id": ("subject", "int"),
    "heap_before_mb": ("heap_before", "heap_mb"),
    "heap_after_mb": ("heap_after", "heap_mb"),
    "heap_total_mb": ("heap_total", "heap_mb"),
    "cause": ("cause", "text"),
    "session_timeout_ms": ("session_timeout", "int"),
    "log_dir": ("log_dir", "text"),
    "group": ("group", "text"),
    "generation": ("generation", "int"),
    "members": ("members", "int"),
}
"""Event fields that are one named group's text converted: field -> (group, conversion:
``text``, ``int`` (a whole number, else null), ``isr_list`` ("3,1,4", "[1, 2]", "Set(3, 1)" ->
array<int>), ``heap_mb`` ("8071M", "272640K", "1,5G" -> megabytes))."""
COMPOSED_FIELDS: dict[str, str] = {
    "ts": "string", "broker_id": "string", "level": "string", "topic": "string",
    "partition": "int", "leader": "int", "isr_size": "int", "pause_s": "double",
    "collector": "string", "uptime_s": "double",
}  # fmt: skip
"""Event fields the jar composes (``EventFields.COMPOSED``), with their Spark types."""
COMPOSED_GROUPS = frozenset(
    {"tp", "topic", "partition", "leader", "isr_size", "isr_set", "pause", "pause_unit",
     "young_gen", "cause"}
)  # fmt: skip
"""Named groups the composed fields read."""
UNREAD_GROUPS = frozenset({"real"})
"""Named groups no field reads."""
CONVERSION_TYPES = {"text": "string", "int": "int", "isr_list": "array<int>", "heap_mb": "double"}
LEADER_IS_SELF = (
    "leader_change.become_leader",
    "leader_change.become_leader_1_x",
    "leader_change.become_leader_trace",
)
"""Patterns whose line names no leader: the broker that wrote it became the leader."""


class ParserSpecError(Exception):
    """The jar is missing, stale or does not make what the checkout's parser makes."""


def event_field_specs() -> list[tuple[str, str, str | None, str | None]]:
    """Each of the checkout's event fields: (name, ``simple`` or ``composed``, group,
    conversion); raises when the jar makes no such field or some named group of the table is
    read by none."""
    unknown = [f for f in EVENT_FIELDS if f not in SIMPLE_FIELDS and f not in COMPOSED_FIELDS]
    if unknown:
        raise ParserSpecError(f"the JVM parser makes no event field {unknown}: add it here")
    read = {g for g, _conversion in SIMPLE_FIELDS.values()} | COMPOSED_GROUPS | UNREAD_GROUPS
    unread = sorted(P.GROUPS - read)
    if unread:
        raise ParserSpecError(f"the JVM parser reads no group {unread}: add it here")
    out: list[tuple[str, str, str | None, str | None]] = []
    for name in EVENT_FIELDS:
        if name in SIMPLE_FIELDS:
            group, conversion = SIMPLE_FIELDS[name]
            out.append((name, "simple", group, conversion))
        else:
            out.append((name, "composed", None, None))
    return out


def _pattern_entry(p: P.EventPattern) -> dict[str, Any]:
    literals = P.trigger_literals(p.trigger)
    return {
        "name": p.name,
        "event": p.event,
        "family": p.family,
        "scope": p.scope,
        "regex": p.java_regex(),
        "trigger": p.trigger,
        "anchors": [anchor(lit) for lit in dict.fromkeys(literals)] if literals else [],
        "groups": p.group_index(),
        "group_count": re.compile(p.regex).groups,
        "collector": p.collector,
    }


def parser_spec(
    config: ParsingConfig,
    patterns: tuple[P.EventPattern, ...] = P.ALL_PATTERNS,
    kind: str = "auto",
    keep_message: bool = True,
    letters_only: bool = False,
    session_tz: str = "UTC",
) -> dict[str, Any]:
    """The parse's table and settings as the jar reads them (``kafkahealth.parse.Spec``)."""
    gates = prefilter_gates(patterns)
    triggers = dict.fromkeys(p.trigger for p in patterns)
    return {
        "version": SPEC_VERSION,
        "options": {"keep_message": keep_message, "letters_only": letters_only, "kind": kind,
                    "session_tz": session_tz},
        "config": {"record_key": config.record_key, "max_entry_bytes": config.max_entry_bytes,
                   "scan_chars": config.scan_chars, "log_timezone": config.log_timezone},
        "fields_paths": dataclasses.asdict(config.fields),
        "doc_keys": list(E.doc_keys(config.fields)),
        "pre_ecs_beats": dict(E.PRE_ECS_BEATS),
        "log_kinds": list(E.LOG_KINDS),
        "kafka_kinds": list(KAFKA_KINDS),
        "broker_id_max": E.BROKER_ID_MAX,
        # The JSON layouts' paths (jsonlayout), by their names.
        "layout": {"message": J.MESSAGE, "stamp": J.TIME_TEXT, "ms": J.EPOCH_MS,
                   "sec": (J.EPOCH_SECOND,), "nanos": (J.NANO_OF_SECOND,), "level": J.LEVEL,
                   "logger": J.LOGGER, "thrown": J.THROWN_NAME, "thrown_msg": J.THROWN_MESSAGE},
        "shapes": {**P.SHAPES, "DEFAULT_LAYOUT_STAMP": P.DEFAULT_LAYOUT_STAMP,
                   "BINARY": E.BINARY, "KIND_FROM_FILE": E.KIND_FROM_FILE,
                   "EPOCH_DIGITS": J.EPOCH_DIGITS},
        "gc_line_texts": list(P.GC_LINE_TEXTS),
        "default_layout_levels": list(P.DEFAULT_LAYOUT_LEVELS),
        "default_layout_level_at": P.DEFAULT_LAYOUT_LEVEL_AT,
        "young_gen_collector": P.YOUNG_GEN_COLLECTOR,
        "leader_is_self": list(LEADER_IS_SELF),
        "patterns": [_pattern_entry(p) for p in patterns],
        "gates": None if gates is None else {
            family: {"searched": list(g.searched), "words": list(g.words),
                     "gated": list(g.gated)}
            for family, g in gates.items()
        },
        "any_trigger": "|".join(f"(?:{t})" for t in triggers),
        "event_fields": [list(f) for f in event_field_specs()],
    }  # fmt: skip


def record_result_type(spec: dict[str, Any]) -> str:
    """The record UDF's struct (``ParseUdf``'s order) as DDL."""
    fields = ["message string"] if spec["options"]["keep_message"] else []
    fields += ["host string", "host_is_key boolean", "file string", "kind string",
               "envelope string", "bad_reason string", "n_lines int"]  # fmt: skip
    return ", ".join([*fields, *_parsed_fields(spec), "keep_letter boolean"])


def entry_result_type(spec: dict[str, Any]) -> str:
    """The entry UDF's struct (``EntryUdf``'s order) as DDL."""
    return ", ".join(_parsed_fields(spec))


def _parsed_fields(spec: dict[str, Any]) -> list[str]:
    """outcome, reason, type, the event fields, event_ms: what the parse adds to an entry."""
    fields = ["outcome string", "reason string", "type string"]
    for name, how, _group, conversion in spec["event_fields"]:
        kind = COMPOSED_FIELDS[name] if how == "composed" else CONVERSION_TYPES[conversion]
        fields.append(f"`{name}` {kind}")
    return [*fields, "event_ms bigint"]
