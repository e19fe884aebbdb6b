"""Every long-running part follows one lifecycle: built from the config connecting to nothing,
start, stop."""

from __future__ import annotations

import dataclasses
import socket
import threading
from pathlib import Path

import pytest

from kafka_health.config import MonitorConfig
from kafka_health.lifecycle import PARTS, ThreadedPart, configure


class Listener:
    """A socket on loopback that counts the connections made to it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"

    def accepted(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1

    def close(self) -> None:
        self.sock.close()


def quiet_config(tmp_path: Path, bootstrap: str) -> MonitorConfig:
    """Every address the parts could reach is ``bootstrap``; every folder under ``tmp_path``."""
    base = MonitorConfig().with_bootstrap([bootstrap])
    alerting = dataclasses.replace(
        base.alerting,
        state_dir=str(tmp_path / "alerting"),
        exporter=dataclasses.replace(base.alerting.exporter, port=0),
    )
    return dataclasses.replace(base, alerting=alerting)


@pytest.mark.parametrize("name", PARTS)
def test_configuring_a_part_connects_to_nothing_and_writes_nothing(
    name: str, tmp_path: Path
) -> None:
    """Built from the config, a part has not touched the cluster nor the disk: its start
    does (a kernel accepts a connection into the backlog, so one attempted is counted)."""
    listener = Listener()
    try:
        part = configure(name, quiet_config(tmp_path, listener.address))
        assert callable(getattr(part, "start", None)) and callable(getattr(part, "stop", None))
        assert listener.accepted() == 0, f"{name} connected while being configured"
        assert list(tmp_path.iterdir()) == [], f"{name} wrote while being configured"
    finally:
        listener.close()


def test_the_alert_service_part_runs_from_start_until_stop(tmp_path: Path) -> None:
    """``start`` returns with the part running (its threads alive, its state folder made);
    ``stop`` ends every thread it started, and a second ``stop`` is harmless."""
    before = set(threading.enumerate())
    part = configure("alerts", quiet_config(tmp_path, "127.0.0.1:1"))
    part.start()
    try:
        started = [t for t in threading.enumerate() if t not in before]
        assert any(t.name == "kafka-health-alert-evaluation" for t in started)
        assert (tmp_path / "alerting").is_dir()
    finally:
        part.stop()
    part.stop()
    assert [t for t in started if t.is_alive()] == []


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
