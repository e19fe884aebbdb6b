"""A full state disk (issue 15.7): the alert service keeps paging from memory, pages that it
cannot write its state (MonitorStateNotWritable, naming ENOSPC), and once space returns writes
everything it kept, resolves that page, and a restart sends nothing twice. The state folder is
a real 1 MiB tmpfs filled to the last byte; the pages go to a real HTTP receiver."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "alerting"))

from alerting_harness import Harness, sig, stop_receivers

from kafka_health.model import Signal


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs (root and mount permission needed, as on the project's CI machine)."""
    mount = tmp_path / "state"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        stop_receivers()


def fill(disk: Path) -> Path:
    """Write a file until the disk refuses one more byte."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    return filler


def min_isr(t: float) -> list[Signal]:
    return [sig("under_min_isr_partitions", 2, t, broker_id=1)]


def test_a_full_state_disk_pages_from_memory_and_recovers_when_space_returns(
    small_disk: Path,
) -> None:
    h = Harness(small_disk)
    h.run(0, 10, lambda t: [sig("under_min_isr_partitions", 0, t, broker_id=1)])
    filler = fill(small_disk)

    h.run(15, 60, min_isr)
    paged = h.paged_rules()
    assert "UnderMinIsr" in paged, "the page left although the outbox could not be written"
    assert "MonitorStateNotWritable" in paged, "the full disk paged itself"
    unwritable = {
        a.labels["store"]: a.annotations["summary"] for n in h.pages() for a in n.alerts
        if a.labels["alertname"] == "MonitorStateNotWritable"
    }  # fmt: skip
    assert set(unwritable) == {"alert_state", "notification_log", "outbox"}, unwritable
    assert all("ENOSPC" in summary for summary in unwritable.values()), unwritable

    filler.unlink()  # space returns
    h.run(65, 90, min_isr)
    assert h.resolutions("MonitorStateNotWritable"), "resolved once the state was written"
    saved = json.loads((small_disk / "state.json").read_text())
    assert any(a["rule"] == "UnderMinIsr" for a in saved["alerts"]), "what was kept is on disk"
    sent = len(h.sent)

    h.restart()  # a new process on the same state: nothing of it is sent again
    h.run(95, 120, min_isr)
    again = [n for n in h.sent[sent:] if n.reason in ("first", "new_alerts")]
    assert again == [], [n.to_json() for n in again]
