"""A long Full GC pause in a running JVM, on demand: the second seed incident, reproduced.

A small dev-cluster heap collects in milliseconds, so the pause is lengthened the way a slow
collection would be: ``jcmd <pid> GC.run`` starts a Full GC, and as soon as the JVM has logged
its start (``[gc,start] GC(n) Pause Full (...)``) the process is stopped (SIGSTOP) inside the
collection and resumed (SIGCONT) ``pause_s`` later. The JVM itself measures and logs the pause
(``GC(n) Pause Full (Diagnostic Command) 29M->22M(256M) 10025.611ms``), and everything a real
pause does follows: no heartbeats, the session expires, leaders move. If the collection had
already ended when the stop landed, the JVM is resumed at once and the attempt is repeated.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from kafka_health.jdk import jdk_tool

_START = re.compile(r"\[gc,start\s*\].*GC\((\d+)\) Pause Full \([^)]*\)?\)\s*$")
_END = r"GC\({id}\) Pause Full \(.*\) \S+->\S+\(\S+\) (\d+(?:\.\d+)?)ms"


class GcPauseError(RuntimeError):
    """The pause could not be produced (no jcmd, the JVM gone, no Full GC logged)."""


def full_gc_pause(
    pid: int, gc_log: Path, pause_s: float, attempts: int = 5, timeout_s: float = 30.0
) -> float:
    """Run a Full GC in JVM ``pid`` that pauses it for ``pause_s``; return the logged pause
    in seconds. ``gc_log`` is the JVM's ``-Xlog:gc*`` file (with the ``tags`` decorator)."""
    jcmd = _jcmd()
    for _ in range(attempts):
        offset = gc_log.stat().st_size
        with subprocess.Popen(
            [jcmd, str(pid), "GC.run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ) as trigger:
            gc_id, text = _stop_at_full_gc_start(pid, gc_log, offset, timeout_s)
            end = re.compile(_END.format(id=gc_id))
            if end.search(text):  # the collection ended before the stop landed
                os.kill(pid, signal.SIGCONT)
                trigger.wait(timeout_s)
                continue
            time.sleep(pause_s)
            os.kill(pid, signal.SIGCONT)
            trigger.wait(timeout_s)
        logged = _wait_for(end, gc_log, offset, timeout_s)
        return float(logged.group(1)) / 1000.0
    raise GcPauseError(f"no Full GC of pid {pid} could be paused in {attempts} attempts")


def _jcmd() -> str:
    found = jdk_tool("jcmd")
    if found is None:
        raise GcPauseError("jcmd (from a JDK) is needed to start a Full GC")
    return found


def _stop_at_full_gc_start(
    pid: int, gc_log: Path, offset: int, timeout_s: float
) -> tuple[str, str]:
    """Poll the log from ``offset``; SIGSTOP ``pid`` at the first Full GC start line; return
    its GC id and the log text written up to the moment the process stopped."""
    deadline = time.monotonic() + timeout_s
    with gc_log.open("rb") as f:
        f.seek(offset)
        text = ""
        while time.monotonic() < deadline:
            chunk = f.read()
            if not chunk:
                if not Path(f"/proc/{pid}").exists():
                    raise GcPauseError(f"JVM {pid} is gone")
                time.sleep(0.0005)
                continue
            text += chunk.decode("utf-8", "replace")
            started = next((m for line in text.splitlines() if (m := _START.search(line))), None)
            if started is None:
                continue
            os.kill(pid, signal.SIGSTOP)
            _wait_stopped(pid, deadline)
            return started.group(1), text + f.read().decode("utf-8", "replace")
    raise GcPauseError(f"JVM {pid} logged no Full GC start in {timeout_s} s")


def _wait_stopped(pid: int, deadline: float) -> None:
    stat = Path(f"/proc/{pid}/stat")
    while time.monotonic() < deadline:
        try:
            if stat.read_text().rsplit(") ", 1)[1].startswith("T"):
                return
        except (OSError, IndexError):
            return
        time.sleep(0.0005)


def _wait_for(
    pattern: re.Pattern[str], gc_log: Path, offset: int, timeout_s: float
) -> re.Match[str]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with gc_log.open("rb") as f:
            f.seek(offset)
            found = pattern.search(f.read().decode("utf-8", "replace"))
        if found:
            return found
        time.sleep(0.05)
    raise GcPauseError(f"the paused Full GC never ended in {gc_log}")
