"""The JSON-list state files (``maintenance.json``, ``silences.json``): writers at once, each
under the file's lock, keep each other's entries."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.support.alerting_harness import T0

from kafka_health.alerting.declared_maintenance import DeclaredMaintenance
from kafka_health.alerting.silence import SilenceStore, parse_matcher

WRITERS = 16


def declare(path: Path, i: int) -> None:
    """A deploy declaring its broker ``i``."""
    DeclaredMaintenance(path).start(i, 600, "", "", T0)


def declared(path: Path) -> list[str]:
    reader = DeclaredMaintenance(path)
    reader.reload()
    return sorted(str(w.broker_id) for w in reader.windows())


def silence(path: Path, i: int) -> None:
    """An operator silencing broker ``i``."""
    SilenceStore(path).add([parse_matcher(f"broker_id={i}")], T0, T0 + 600, "", "", T0)


def silenced(path: Path) -> list[str]:
    reader = SilenceStore(path)
    reader.reload()
    return sorted(s.matchers[0].value for s in reader.all())


@pytest.mark.parametrize(
    ("name", "write", "read"),
    [("maintenance.json", declare, declared), ("silences.json", silence, silenced)],
)
def test_writers_at_once_keep_each_others_entries(
    name: str,
    write: Callable[[Path, int], None],
    read: Callable[[Path], list[str]],
    tmp_path: Path,
) -> None:
    path = tmp_path / name
    threads = [threading.Thread(target=write, args=(path, i)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert read(path) == sorted(str(i) for i in range(WRITERS))
