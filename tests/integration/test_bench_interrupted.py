"""A bench stopped with SIGTERM stops what it started: ``kafka-health bench soak`` killed while
its Kafka broker and its monitor (``kafka-health run`` and Spark's JVM) run leaves no process
and no folder behind. (Before, SIGTERM ended the bench's Python at once, and the broker and
the monitor ran on, orphaned.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from tests.support.waiting import wait_for

pytestmark = pytest.mark.integration
SOAK_PREFIX = "kafka-health-soak-"


def processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry.name)] = (parent, args)
    return found


def soak_folders() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(f"{SOAK_PREFIX}*"))


def started_by(folder: Path) -> dict[int, str] | None:
    """The soak's broker, its monitor and the monitor's Spark JVM, once all three run."""
    table = processes()
    named = {pid: args for pid, (_, args) in table.items() if str(folder) in args}
    monitor = [pid for pid, args in named.items() if "kafka_health.cli run" in args]
    broker = [pid for pid, args in named.items() if "java" in args and "kafka.Kafka" in args]
    spark = {pid: args for pid, (parent, args) in table.items()
             if parent in monitor and "java" in args}  # fmt: skip
    if not (monitor and broker and spark):
        return None
    return {**named, **spark}


def test_a_soak_stopped_with_sigterm_leaves_nothing_running(tmp_path: Path) -> None:
    before = soak_folders()
    bench = subprocess.Popen(
        [sys.executable, "-m", "kafka_health.cli", "bench", "soak", "--minutes", "5",
         "--partitions", "1000", "--topics", "10", "--brokers", "5", "--rate", "50"],
        stdout=(tmp_path / "bench.log").open("wb"), stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    started: dict[int, str] = {}
    try:
        folder = wait_for(lambda: next(iter(soak_folders() - before), None), timeout_s=60,
                          what="the soak's folder")  # fmt: skip
        assert folder is not None
        running = wait_for(lambda: started_by(folder), timeout_s=240,
                           what="the soak's broker, monitor and Spark JVM running")  # fmt: skip
        assert running is not None
        started = running
        log = tmp_path / "bench.log"
        wait_for(lambda: '"minute": 1' in log.read_text(errors="replace"), timeout_s=300,
                 what="the soak's first sample (the job running under load)")  # fmt: skip
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=180) == 130, log.read_text()[-3000:]
        table = processes()
        left = {pid: args for pid, args in started.items() if table.get(pid, (0, ""))[1] == args}
        assert left == {}, "processes the bench started still run"
        assert not folder.exists()
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        table = processes()
        for pid, args in started.items():  # what a failing bench left: not for the next test
            if table.get(pid, (0, ""))[1] == args:
                os.kill(pid, signal.SIGKILL)
