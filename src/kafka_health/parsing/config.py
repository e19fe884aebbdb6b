"""The ``parsing`` section: the parser's schema."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal

from kafka_health.errors import ConfigProblem


@dataclass(frozen=True)
class EnvelopeFieldsConfig:
    """Where a JSON log envelope keeps each part, as dotted paths tried in order.

    The defaults read the project's own shipper (``kafka-health/log/v1``), Filebeat
    (``message``, ``host.name``, ``log.file.path``, custom ``fields.*``), Fluent Bit (``log``,
    its ``Path_Key``), Vector's file source (``message``, ``host``, ``file``) and rsyslog
    ``omkafka`` JSON templates (``msg``, ``hostname``, ``filename``).
    """

    message: list[str] = field(default_factory=lambda: ["message", "log", "msg"])
    broker_id: list[str] = field(
        default_factory=lambda: ["broker_id", "fields.broker_id", "kafka.broker_id"]
    )
    host: list[str] = field(default_factory=lambda: ["host.name", "host", "hostname"])
    file: list[str] = field(
        default_factory=lambda: ["path", "log.file.path", "file", "filename", "file.path"]
    )
    kind: list[str] = field(default_factory=lambda: ["kind", "fields.kind", "fields.log_kind"])

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        for f in dataclasses.fields(self):
            paths = getattr(self, f.name)
            if f.name == "message" and not paths:
                problems.append(ConfigProblem(f"{path}.{f.name}", "needs at least one path"))
            for i, p in enumerate(paths):
                if not re.fullmatch(r"[A-Za-z0-9_@-]+(\.[A-Za-z0-9_@-]+)*", p):
                    problems.append(
                        ConfigProblem(f"{path}.{f.name}[{i}]", f"{p!r} is not a dotted path")
                    )
        return problems


@dataclass(frozen=True)
class DeadLetterConfig:
    """Which records the streaming job sets aside, with their source offsets."""

    include_malformed: bool = True
    include_unknown_format: bool = True
    max_value_bytes: int = 65_536

    def check(self, path: str) -> list[ConfigProblem]:
        if not 0 <= self.max_value_bytes <= 10_485_760:
            return [ConfigProblem(f"{path}.max_value_bytes", "must be 0 to 10485760")]
        return []


@dataclass(frozen=True)
class ParsingConfig:
    """How broker and GC log records are decoded and parsed into events."""

    fields: EnvelopeFieldsConfig = field(default_factory=EnvelopeFieldsConfig)
    # What a record key holds: a broker id, a host name, either (auto: digits are an id) or nothing.
    record_key: Literal["auto", "broker_id", "host", "none"] = "auto"
    max_entry_bytes: int = 1_048_576
    max_entry_lines: int = 1000
    # How much of a multi-line entry the patterns that read past the first line look at: its
    # first and its last scan_chars characters (the whole entry up to twice as long).
    scan_chars: int = 16_384
    # Time zone of log timestamps without an offset (log4j's default layout has none).
    log_timezone: str = "UTC"
    dead_letter: DeadLetterConfig = field(default_factory=DeadLetterConfig)

    def check(self, path: str) -> list[ConfigProblem]:
        problems = []
        if not 1024 <= self.max_entry_bytes <= 67_108_864:
            problems.append(ConfigProblem(f"{path}.max_entry_bytes", "must be 1024 to 67108864"))
        if not 1 <= self.max_entry_lines <= 100_000:
            problems.append(ConfigProblem(f"{path}.max_entry_lines", "must be 1 to 100000"))
        if not 256 <= self.scan_chars <= 1_048_576:
            problems.append(ConfigProblem(f"{path}.scan_chars", "must be 256 to 1048576"))
        return problems
