"""A full state disk (issue 15.7): the alert service keeps paging from memory, pages that it
cannot write its state (MonitorStateNotWritable, naming ENOSPC), and once space returns writes
everything it kept, resolves that page, and a restart sends nothing twice. The state folder is
a real 1 MiB tmpfs filled to the last byte; the pages go to a real HTTP receiver."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.alerting_harness import Harness, sig, stop_receivers
from tests.support.small_disk import fill, tmpfs

from kafka_health.model import Signal


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "state", "1m") as mount:
        yield mount
    stop_receivers()


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
