"""Every long-running part follows one lifecycle: built from the config connecting to nothing,
start, stop."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.lifecycle import PARTS, Part, ThreadedPart, configure


@pytest.mark.parametrize("name", PARTS)
def test_each_part_is_configured_by_name_and_has_start_and_stop(name: str, tmp_path: Path) -> None:
    config = MonitorConfig().with_bootstrap(["127.0.0.1:1"])  # nothing listens: nothing connects
    part = configure(name, config)
    assert isinstance(part, Part)


def test_an_unknown_part_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="unknown part 'pager'"):
        configure("pager", MonitorConfig())


def test_a_threaded_part_runs_until_stopped_and_keeps_what_ended_it() -> None:
    ran = threading.Event()

    def work(stop: threading.Event) -> None:
        ran.set()
        stop.wait(30)

    part = ThreadedPart("worker", work)
    part.start()
    part.start()  # idempotent
    assert ran.wait(5) and part.running
    part.stop()
    part.stop()
    assert not part.running and part.error is None

    def broken(stop: threading.Event) -> None:
        raise RuntimeError("no broker")

    failing = ThreadedPart("broken", broken)
    failing.start()
    failing.stop()
    assert isinstance(failing.error, RuntimeError)
