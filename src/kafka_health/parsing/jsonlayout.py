"""log4j JSON layouts -> Kafka's default layout text, so that the one pattern table reads them.

An entry that starts with ``{`` is read as one JSON object (the parser's ``LayoutText``, with
Spark's ``get_json_object`` semantics; :func:`py_layout_text` for the reference) and
rewritten as ``[time] LEVEL message (logger)``, then the thrown exception's ``name: message`` on
the next line (the patterns of scope ``entry`` look there, e.g. NotLeaderForPartitionException).
An entry that is not such an object (no message field, or not JSON) is left as it is.

Where each layout keeps the parts (paths are key tuples: ``("log.level",)`` is one flat key,
``("instant", "epochSecond")`` a nested one):

- log4j2 JsonTemplateLayout with ``classpath:EcsLayout.json``
  (https://logging.apache.org/log4j/2.x/manual/json-template-layout.html): ``"@timestamp":
  "2017-05-25T19:56:23.370Z"``, ``"log.level"``, ``"message"``, ``"log.logger"``,
  ``"error.type"``, ``"error.message"``.
- log4j2 JsonLayout (https://logging.apache.org/log4j/2.x/manual/layouts.html#JSONLayout) and
  JsonTemplateLayout's ``JsonLayout.json``: ``"instant": {"epochSecond": ..., "nanoOfSecond":
  ...}`` (2.11+) or ``"timeMillis": 1547108632526`` (``includeTimeMillis``, before 2.11),
  ``"level"``, ``"loggerName"``, ``"message"``, ``"thrown": {"name", "message"}``; log4j 2.0-2.3
  JSONLayout: ``"timestamp": "1376681196470"``, ``"logger"``.
- log4j 1.x JSONEventLayoutV1 (logstash): ``"@timestamp"``, ``"level"``, ``"logger_name"``,
  ``"exception": {"exception_class", "exception_message"}``.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

Path = tuple[str, ...]

MESSAGE: tuple[Path, ...] = (("message",),)
TIME_TEXT: tuple[Path, ...] = (("@timestamp",), ("timestamp",))  # ISO text, or epoch ms digits
EPOCH_MS: tuple[Path, ...] = (("timeMillis",),)
EPOCH_SECOND: Path = ("instant", "epochSecond")
NANO_OF_SECOND: Path = ("instant", "nanoOfSecond")
LEVEL: tuple[Path, ...] = (("level",), ("log.level",))
LOGGER: tuple[Path, ...] = (("loggerName",), ("log.logger",), ("logger_name",), ("logger",))
THROWN_NAME: tuple[Path, ...] = (
    ("thrown", "name"),
    ("error.type",),
    ("exception", "exception_class"),
)
THROWN_MESSAGE: tuple[Path, ...] = (
    ("thrown", "message"),
    ("error.message",),
    ("exception", "exception_message"),
)
EPOCH_DIGITS = r"^\d{10,13}$"


LAYOUT_KEYS = tuple(p[0] for p in (*MESSAGE, *LEVEL, *LOGGER) if len(p) == 1)
"""The top-level keys that tell a log4j JSON layout's event from an envelope (a message, a
level and a logger: the parser's ``Envelope.isLayoutRecord``)."""


# The rewrite in Python: the reference classifier's (tests' oracle).


def _get(doc: Any, path: Path) -> str | None:
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    if doc is None or doc == "":
        return None
    return doc if isinstance(doc, str) else json.dumps(doc, separators=(",", ":"))


def _py_first(doc: Any, paths: tuple[Path, ...]) -> str | None:
    return next((v for p in paths if (v := _get(doc, p)) is not None), None)


_EPOCH_STAMP = re.compile(r"^\d{10,13}(?=(?:\r\n|[\n\r\x85\u2028\u2029])?\Z)", re.ASCII)
""":data:`EPOCH_DIGITS` as java.util.regex reads it (the parser's, and Spark's ``rlike``): its
``$`` also matches before a final line terminator, so ``"1557930014399\r\n"`` is an epoch
(``reference.java_compile`` gives the same; not imported here: it imports this module)."""
_TRIMMED = " \t\n\x0b\x0c\r\x85"
"""What Spark's cast of a text to a number trims around it (blanks and ISO controls)."""


def _epoch_ms(stamp: str) -> int | None:
    """An epoch stamp's milliseconds, as Spark's ``try_cast`` reads its text (None where it
    reads none)."""
    digits = stamp.strip(_TRIMMED)
    return int(digits) if digits.isascii() and digits.isdigit() else None


_FIRST_VALUE = json.JSONDecoder(strict=False)
"""Python's reading of a JSON layout's entry as ``SparkJson.getJsonObject`` reads it: the first
value only, control characters allowed in strings (``ALLOW_UNESCAPED_CONTROL_CHARS``)."""


def py_layout_text(text: str) -> str | None:
    """The text the parser's ``LayoutText`` gives one entry (the time in UTC); None when the
    entry is not a JSON layout's event."""
    try:  # get_json_object reads the first JSON value; what follows it is not read
        doc, _end = _FIRST_VALUE.raw_decode(text)
    except ValueError:
        return None
    message = _py_first(doc, MESSAGE)
    if message is None:
        return None
    stamp = _py_first(doc, TIME_TEXT)
    millis: int | None = None
    if (ms := _py_first(doc, EPOCH_MS)) is not None and ms.isdigit():
        millis = int(ms)
    elif stamp is not None and _EPOCH_STAMP.search(stamp):
        millis = _epoch_ms(stamp)
    elif (sec := _get(doc, EPOCH_SECOND)) is not None and sec.isdigit():
        nanos = _get(doc, NANO_OF_SECOND) or "0"
        millis = int(sec) * 1000 + (int(nanos) // 1_000_000 if nanos.isdigit() else 0)
    when = stamp if stamp is not None and not _EPOCH_STAMP.search(stamp) else None
    if when is None and millis is not None:
        try:
            when = datetime.fromtimestamp(millis / 1000, UTC).isoformat(timespec="milliseconds")
        except (OverflowError, OSError, ValueError):  # a time no calendar holds: none
            when = None
    level, logger = _py_first(doc, LEVEL), _py_first(doc, LOGGER)
    parts = [f"[{when}]" if when else None, level.upper() if level else None, message]
    parts.append(f"({logger})" if logger else None)
    line = " ".join(p for p in parts if p is not None)
    name = _py_first(doc, THROWN_NAME)
    if name is None:
        return line
    thrown = ": ".join(p for p in (name, _py_first(doc, THROWN_MESSAGE)) if p is not None)
    return f"{line}\n{thrown}"
