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

from kafka_health.errors import StateFormatError
from kafka_health.state_format import check_format, stamped

STATE_FORMAT = 2
"""The layout of the document this release writes (1: before formats were written)."""

__all__ = ["STATE_FORMAT", "StateFormatError", "read_state", "write_state"]


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

    Encoded whole, then written at once: ``json.dump`` to a file writes each of its many
    small chunks on its own, 4 times slower for the 1 MB state of 10,000 partitions (0.12 s
    against 0.03 s here), and both queries save after every batch."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    data = json.dumps(stamped(document, STATE_FORMAT), separators=(",", ":")).encode("utf-8")
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
