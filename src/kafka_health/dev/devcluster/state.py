"""The dev cluster's saved state: its nodes' records and ``<dir>/cluster.json``, shared by
every process acting on the cluster.

Updates of ``cluster.json`` are read-modify-write under an exclusive ``flock`` on
``<dir>/cluster.lock``, so two processes never lose each other's records.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kafka_health.dev.devcluster.process_control import ProcessState
from kafka_health.dev.devcluster.processes import PROC, ZOOKEEPER, broker_role, role_of
from kafka_health.dev.devcluster.spec import ClusterSpec

STATE_FILE = "cluster.json"
LOCK_FILE = "cluster.lock"
GC_LOG = "gc.log"


@dataclass
class BrokerNode:
    """One broker process: its identity, ports and folders."""

    broker_id: int
    port: int
    controller_port: int
    dir: str
    pid: int | None = None
    secure_port: int | None = None
    """The secured client listener's port, when the cluster has one."""
    extra_log_dir: str | None = None
    """A second Kafka log directory after ``data`` in ``log.dirs`` (the fault suite's
    disk-full scenario puts it on a small filesystem); the first keeps the metadata log."""

    @property
    def log_dir(self) -> Path:
        return Path(self.dir) / "logs"

    @property
    def data_dir(self) -> Path:
        return Path(self.dir) / "data"

    @property
    def gc_log(self) -> Path:
        return self.log_dir / GC_LOG

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class ZooKeeperNode:
    """The single ZooKeeper server of a ZooKeeper-mode cluster."""

    port: int
    dir: str
    pid: int | None = None


@dataclass(frozen=True)
class BrokerStatus:
    """What ``status`` reports for one broker."""

    broker_id: int
    pid: int | None
    process: ProcessState
    registered: bool
    bootstrap: str
    log_dir: str
    gc_log_bytes: int


@dataclass
class DownReport:
    """What ``down`` did: processes that exited on SIGTERM, those it had to SIGKILL after
    ``timeout_s``, and those still there afterwards (e.g. not this user's)."""

    timeout_s: float
    stopped: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One console line per process that did not stop on SIGTERM."""
        return [
            *(
                f"{p}: still running {self.timeout_s:.0f} s after SIGTERM, killed (SIGKILL)"
                for p in self.killed
            ),
            *(f"{p}: still running after SIGKILL" for p in self.survivors),
        ]


def state_record(
    spec: ClusterSpec,
    cluster_id: str,
    nodes: list[BrokerNode],
    zookeeper: ZooKeeperNode | None,
) -> dict[str, Any]:
    """The cluster as ``cluster.json`` holds it."""
    spec_raw = asdict(spec)
    spec_raw["dir"] = str(spec.dir.resolve())
    spec_raw["cache_dir"] = str(spec.cache_dir)
    return {
        "cluster_id": cluster_id,
        "spec": spec_raw,
        "nodes": [asdict(n) for n in nodes],
        "zookeeper": asdict(zookeeper) if zookeeper else None,
    }


def spec_from_record(state: dict[str, Any]) -> ClusterSpec:
    spec_raw = state["spec"]
    return ClusterSpec(
        **{
            **spec_raw,
            "dir": Path(spec_raw["dir"]),
            "cache_dir": Path(spec_raw["cache_dir"]),
        }
    )


def node_entries(state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(role, its entry) for each node in a saved state; the entries are the state's own."""
    entries = [(broker_role(int(n["broker_id"])), n) for n in state.get("nodes") or []]
    if isinstance(state.get("zookeeper"), dict):
        entries.append((ZOOKEEPER, state["zookeeper"]))
    return entries


class ClusterStateFile:
    """``<dir>/cluster.json`` of the cluster ``cluster_id``, and its lock."""

    def __init__(self, directory: Path, cluster_id: str) -> None:
        self.directory = directory
        self.cluster_id = cluster_id
        self._thread_lock = threading.RLock()
        self._lock_depth = 0

    @property
    def base(self) -> Path:
        return self.directory.resolve()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive ``flock`` on ``<dir>/cluster.lock`` (other processes), re-entrant within
        this object (and serialised between its threads)."""
        with self._thread_lock:
            base = self.base
            if self._lock_depth > 0 or not base.is_dir():
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            fd = os.open(base / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._lock_depth = 1
                try:
                    yield
                finally:
                    self._lock_depth = 0
            finally:
                os.close(fd)  # releases the flock

    def read(self) -> dict[str, Any] | None:
        """This cluster's saved state (None when missing, unreadable or another cluster's)."""
        try:
            state = json.loads((self.base / STATE_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(state, dict) or state.get("cluster_id") != self.cluster_id:
            return None
        return state

    def write(self, state: dict[str, Any]) -> None:
        base = self.base
        tmp = base / f"{STATE_FILE}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(state, indent=2), encoding="utf-8")
        tmp.replace(base / STATE_FILE)  # readers see the old or the new file, never half

    def recorded_pids(self) -> dict[str, int | None]:
        state = self.read()
        return {} if state is None else {r: e.get("pid") for r, e in node_entries(state)}

    def record(
        self, role: str, pid: int | None, fallback: dict[str, Any], proc: Path = PROC
    ) -> None:
        """Record ``role``'s pid in ``cluster.json`` by read-modify-write under the lock, so
        records other processes made meanwhile survive (``fallback`` when there is no file).
        Recording None never erases a pid that still runs that role's JVM (another shell
        started it)."""
        if not self.base.is_dir():
            return
        with self.lock():
            state = self.read() or fallback
            for entry_role, entry in node_entries(state):
                if entry_role != role:
                    continue
                old = entry.get("pid")
                still_runs = isinstance(old, int) and role_of(old, self.directory, proc) == role
                entry["pid"] = old if pid is None and still_runs else pid
            self.write(state)
