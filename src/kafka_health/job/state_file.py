"""The driver's detector state on disk: one JSON document, replaced atomically.

It lives in the query's checkpoint folder and names the last batch id it includes, so a batch
that Spark replays after a crash is recognised (and skipped), a restart resumes the state, and
deleting the checkpoint resets both together.

The document says its ``format``. A document without one is format 1 (every release before
formats were written): its fields are read as they are (upgrade in place, the next save writes
the current format). A newer format than this release reads is refused with the version that
wrote it (:class:`StateFormatError`): guessing at it could resume wrong state silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson

from kafka_health.errors import StateFormatError
from kafka_health.state_format import check_format, stamped

STATE_FORMAT = 3
"""The layout of the document this release writes (1: before formats were written; 3: the
elections detector keeps one entry per election, not every report, and reads 1-2's list)."""

__all__ = ["STATE_FORMAT", "StateFormatError", "read_state", "replace_file", "write_state"]


def read_state(path: Path) -> dict[str, Any] | None:
    """The saved document, or None when there is none yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    document: dict[str, Any] = json.loads(text)
    check_format(
        document, path, STATE_FORMAT, "state",
        f"delete the checkpoint folder {path.parent.parent} to start over (the queries restart "
        "from the topics' starting offsets and the detectors rebuild their windows)",
    )  # fmt: skip
    return document


def write_state(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` so that a crash leaves either the old or the new one, whole.

    Encoded whole, then written at once, by orjson: both queries save after every batch,
    and in the batch's own time. The 4.2 MB state of a 200-broker load (10,000 partitions,
    31,000 GC pauses in the window) took ``json.dumps`` 49 ms and orjson 9 ms here, the same
    bytes (``json.dump`` to a file, chunk by chunk, was 4 times slower still). Unlike
    ``json``, orjson writes a float that is not finite as null: the detectors keep none
    (their times come from clocks, their values from a log line's digits)."""
    data = orjson.dumps(
        stamped(document, STATE_FORMAT), default=_as_list, option=orjson.OPT_NON_STR_KEYS
    )
    replace_file(path, data)


def replace_file(path: Path, data: bytes) -> None:
    """``path`` holding ``data``, replaced so that a crash leaves the old file or the new one,
    whole and on disk (its folder made if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _as_list(value: Any) -> list[Any]:
    """A tuple subclass (a detector's NamedTuple) as ``json`` writes it: a list."""
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
