"""The format a state file says it has, and the release that wrote it.

A reader takes every format up to its own (none written: format 1, before formats were
recorded); a newer one is refused with :class:`~kafka_health.errors.StateFormatError`
naming the release that wrote it and what to do, rather than resuming state it may misread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_health import __version__
from kafka_health.errors import StateFormatError


def stamped(document: dict[str, Any], current: int) -> dict[str, Any]:
    """``document`` with its format and this release."""
    return {"format": current, "written_by": __version__, **document}


def check_format(
    document: dict[str, Any], path: Path, current: int, what: str, remedy: str
) -> None:
    """Raise :class:`StateFormatError` when ``document`` (read from ``path``) is newer than
    ``current``; ``what`` names the state, ``remedy`` says how to start over."""
    found = int(document.get("format", 1))
    if found <= current:
        return
    raise StateFormatError(
        f"{path} is in {what} format {found}, written by kafka-health "
        f"{document.get('written_by', 'a newer release')}; kafka-health {__version__} reads "
        f"formats 1 to {current}. Run that release, or {remedy}"
    )
