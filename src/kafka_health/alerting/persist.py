"""Crash-safe JSON files: write to a temporary file, fsync, rename over the old one."""

from __future__ import annotations

import errno
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def write_json(path: Path, data: Any) -> None:
    """Replace ``path`` with ``data`` as JSON atomically: a reader sees the old or the new."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # encoded whole, written at once: json.dump writes each small chunk on its own
            f.write(json.dumps(data, separators=(",", ":"), sort_keys=True, default=str))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


class StateWrites:
    """Which of the alert service's state files could not be written (a full or read-only
    disk): the writes are tried again at the next change, the service goes on in memory
    (pages still leave, without crash safety) and ``MonitorStateNotWritable`` pages."""

    STORES = ("alert_state", "notification_log", "outbox")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.failing: dict[str, str] = {}
        """Store -> why a write of it failed; cleared by a ``write_again`` round without one."""
        self._failed_now: set[str] = set()

    def write_json(self, store: str, path: Path, data: Any) -> bool:
        """``write_json``; False (logged once per cause) when the disk refuses it."""
        return self.attempt(store, path, lambda: write_json(path, data))

    def attempt(self, store: str, path: Path, write: Callable[[], None]) -> bool:
        try:
            write()
        except OSError as exc:
            code = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
            reason = f"{code} ({exc.strerror or exc}) writing in {path.parent}"
            with self._lock:
                new = self.failing.get(store) != reason
                self.failing[store] = reason
                self._failed_now.add(store)
            if new:
                log.error(
                    "cannot write the %s (%s): %s; pages still go out, but a restart now would "
                    "forget what was sent", store, path, reason,
                )  # fmt: skip
            return False
        return True

    def write_again(self, rewrite: Callable[[], None]) -> None:
        """Run ``rewrite`` (every state file written whole): a store none of whose writes
        failed in it is writable again. One file written is not enough (an empty one fits on
        a full disk)."""
        with self._lock:
            self._failed_now = set()
        rewrite()
        with self._lock:
            recovered = sorted(set(self.failing) - self._failed_now)
            for store in recovered:
                del self.failing[store]
        for store in recovered:
            log.warning("the %s is written again", store)

    def failures(self) -> dict[str, str]:
        with self._lock:
            return dict(self.failing)


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
