"""Which JVMs of a dev cluster are running, found in the process table rather than remembered.

A broker is a ``java`` process whose command line runs ``kafka.Kafka`` on the broker's
``server.properties``; ZooKeeper is a ``java`` process running ``QuorumPeerMain`` on the
cluster's ``zoo.cfg``. Matching the command line, not only a pid, finds a broker started by
another process (another shell's ``dev-cluster start``) and never mistakes an unrelated
process that reused a recorded pid for a broker.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

PROC = Path("/proc")
BROKER_MAIN = "kafka.Kafka"
ZOOKEEPER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
ZOOKEEPER = "zookeeper"
"""The role name of the cluster's ZooKeeper; a broker's role is ``broker-<id>``."""
_BROKER_FOLDER = re.compile(r"broker-[0-9]+")


def broker_role(broker_id: int) -> str:
    return f"broker-{broker_id}"


def command_line(pid: int, proc: Path = PROC) -> list[str]:
    """The process's arguments (empty when it is gone, a zombie or not readable)."""
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def role_of(pid: int, base: Path, proc: Path = PROC) -> str | None:
    """The role (``broker-<id>`` or ``zookeeper``) ``pid`` plays in the cluster in ``base``,
    or None when it is no JVM of that cluster (gone, a zombie, another program or cluster)."""
    args = command_line(pid, proc)
    if not args or Path(args[0]).name != "java":
        return None
    for main, config in itertools.pairwise(args):
        if main in (BROKER_MAIN, ZOOKEEPER_MAIN):
            return _role(main, Path(_absolute(config, pid, proc)), base.resolve())
    return None


def find_cluster_processes(base: Path, proc: Path = PROC) -> dict[str, list[int]]:
    """Every running JVM of the cluster in ``base``: role -> pids (ascending)."""
    base = base.resolve()
    found: dict[str, list[int]] = {}
    for pid in _pids(proc):
        role = role_of(pid, base, proc)
        if role is not None:
            found.setdefault(role, []).append(pid)
    return found


def _role(main: str, config: Path, base: Path) -> str | None:
    folder = config.parent
    if folder.parent != base:
        return None
    if main == ZOOKEEPER_MAIN:
        return ZOOKEEPER if folder.name == ZOOKEEPER and config.name == "zoo.cfg" else None
    if config.name == "server.properties" and _BROKER_FOLDER.fullmatch(folder.name):
        return folder.name
    return None


def _pids(proc: Path) -> list[int]:
    try:
        names = os.listdir(proc)
    except OSError:
        return []
    return sorted(int(name) for name in names if name.isdigit())


def _absolute(path: str, pid: int, proc: Path) -> str:
    """``path`` as the process sees it: relative paths are taken from its working folder."""
    if not os.path.isabs(path):
        try:
            path = os.path.join(os.readlink(proc / str(pid) / "cwd"), path)
        except OSError:
            return path
    return os.path.realpath(path)
