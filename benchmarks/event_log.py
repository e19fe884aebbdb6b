"""Spark's event log for a benchmark: the settings that write it, and its events read back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def event_log_conf(folder: Path) -> dict[str, str]:
    """Spark settings that write an uncompressed event log into ``folder`` (made here)."""
    folder.mkdir(parents=True, exist_ok=True)
    return {"spark.eventLog.enabled": "true", "spark.eventLog.dir": str(folder),
            "spark.eventLog.compress": "false"}  # fmt: skip


def events(folder: Path) -> Iterator[dict[str, Any]]:
    """Every event of the uncompressed event log(s) under ``folder``, in order (not the
    checksum files beside them)."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name[0] != "."):
        with path.open() as lines:
            for line in lines:
                yield json.loads(line)
