"""The whole monitor as an operator runs it: ``ship-logs``, ``canary`` and ``run`` as separate
processes with one config file, each in a process group of its own so that a stop (or a crash
of the caller) takes its children (Spark's JVM, Python workers) with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

PARTS = ("ship-logs", "canary", "run")
STOP_WAIT_S = {"ship-logs": 20.0, "canary": 20.0, "run": 60.0}
"""How long each part gets after SIGTERM before its whole process group is killed."""

Sample = tuple[str, tuple[tuple[str, str], ...]]


@dataclass
class MonitorProcesses:
    """Start, kill and stop the monitor's three processes; logs go to ``workdir/<part>.log``."""

    config_file: Path
    workdir: Path
    python: str = sys.executable
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start(self, *parts: str) -> None:
        for part in parts or PARTS:
            self.start_part(part, self.config_file)

    def start_part(self, part: str, config_file: Path) -> None:
        """Start one part (again) with ``config_file``; it must not be running."""
        running = self.procs.get(part)
        if running is not None and running.poll() is None:
            raise RuntimeError(f"{part} is already running (pid {running.pid})")
        env = {
            **os.environ,
            "PYSPARK_PYTHON": self.python,
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYTHONUNBUFFERED": "1",
        }
        self.workdir.mkdir(parents=True, exist_ok=True)
        with (self.workdir / f"{part}.log").open("ab") as out:
            self.procs[part] = subprocess.Popen(
                [self.python, "-m", "kafka_health.cli", part, "--config", str(config_file)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )

    def alive(self, part: str) -> bool:
        proc = self.procs.get(part)
        return proc is not None and proc.poll() is None

    def kill(self, part: str) -> None:
        """SIGKILL the part's whole process group (what a crash of its host leaves)."""
        proc = self.procs.get(part)
        if proc is None:
            return
        _signal_group(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(30)

    def stop_part(self, part: str) -> None:
        """SIGTERM, then SIGKILL of the group after the part's bound."""
        proc = self.procs.get(part)
        if proc is None:
            return
        if proc.poll() is None:
            _signal_group(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(STOP_WAIT_S.get(part, 20.0))
        _signal_group(proc.pid, signal.SIGKILL)  # stragglers of the group, if any
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)

    def stop(self) -> None:
        for part in reversed(list(self.procs)):
            self.stop_part(part)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs.values()]


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def scrape(port: int, timeout_s: float = 3.0) -> dict[Sample, float]:
    """A /metrics endpoint as {(sample name, sorted non-empty labels): value}; {} when down.

    The ``cluster`` label is left out: an endpoint sets it once on every sample (the one cluster
    its process monitors), and the callers key samples by their own labels."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout_s) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return {}
    return {
        (s.name, tuple(sorted((k, v) for k, v in s.labels.items() if v and k != "cluster"))): (
            s.value
        )
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
