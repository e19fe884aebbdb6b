"""Crash-safe JSON files: write to a temporary file, fsync, rename over the old one."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def write_json(path: Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as JSON atomically: a reader sees the old or the new."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"), sort_keys=True, default=str)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def read_json(path: Path, default: Any) -> Any:
    """The JSON in ``path``, or ``default`` when the file does not exist or is unreadable.

    An unreadable file is moved aside (``<name>.corrupt``) and logged: starting without the
    state (at worst, a page sent again) beats not starting at all.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        aside = path.with_name(path.name + ".corrupt")
        os.replace(path, aside)
        log.error("%s is not valid JSON (%s): moved to %s, starting without it", path, exc, aside)
        return default


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
