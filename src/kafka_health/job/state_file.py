"""The driver's detector state on disk: one JSON document, replaced atomically.

It lives in the query's checkpoint folder and names the last batch id it includes, so a batch
that Spark replays after a crash is recognised (and skipped), a restart resumes the state, and
deleting the checkpoint resets both together.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def read_state(path: Path) -> dict[str, Any] | None:
    """The saved document, or None when there is none yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    document: dict[str, Any] = json.loads(text)
    return document


def write_state(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` so that a crash leaves either the old or the new one, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(document, out, separators=(",", ":"))
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
