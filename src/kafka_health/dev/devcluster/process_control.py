"""Starting, signalling and watching the dev cluster's JVMs (``processes`` finds them)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Literal

from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.dev.devcluster.processes import PROC, role_of
from kafka_health.jdk import jdk_tool

KILL_WAIT_S = 10.0
"""How long to wait for a process to go after SIGKILL."""

ProcessState = Literal["running", "frozen", "stopped"]


def java_executable() -> str:
    """The ``java`` the brokers run on: the JDK whose ``jcmd`` pauses them and whose ``java``
    pyspark starts (``JAVA_HOME``'s, else the PATH's)."""
    java = jdk_tool("java")
    if java is None:
        raise DevClusterError("no java found (JAVA_HOME, PATH): the dev cluster needs JDK 17+")
    return java


def spawn_detached(command: list[str], output: Path) -> int:
    """Start a detached process (own session, survives this one) writing to ``output``."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("ab") as out:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    return process.pid


def send_signal(pid: int, sig: signal.Signals) -> None:
    """``kill(pid, sig)``, ignoring a process that is gone or not this user's."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def pick_pid(recorded: int | None, running: list[int]) -> int | None:
    """The node's pid: the recorded one if it runs the node's JVM, else one that does."""
    if recorded in running:
        return recorded
    return running[0] if running else None


def describe_process(role: str, pid: int) -> str:
    return f"{role.replace('-', ' ')} (pid {pid})"


def process_state(pid: int | None, proc: Path = PROC) -> ProcessState:
    """Whether ``pid`` runs, is stopped by SIGSTOP, or is gone (zombies count as gone and are
    reaped when they are this process's children)."""
    if pid is None:
        return "stopped"
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return "stopped"
    state = stat.rsplit(")", 1)[1].split()[0]
    if state in ("Z", "X"):
        if proc == PROC:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        return "stopped"
    return "frozen" if state in ("T", "t") else "running"


def wait_exit(pid: int, role: str, base: Path, timeout_s: float, proc: Path = PROC) -> bool:
    """Wait until ``pid`` no longer runs ``role``'s JVM (exited, or the pid was reused)."""
    deadline = time.monotonic() + timeout_s

    def gone() -> bool:
        return process_state(pid, proc) == "stopped" or role_of(pid, base, proc) != role

    while time.monotonic() < deadline:
        if gone():
            return True
        time.sleep(0.1)
    return gone()
