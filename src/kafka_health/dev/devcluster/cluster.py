"""A real Apache Kafka cluster on loopback, as local JVM processes, for the demo and the tests.

``LocalCluster.create(spec).up()`` fetches Kafka's jars (once), writes each broker's
properties, formats KRaft storage and starts the brokers on free ports; the cluster's state
(ports, pids, folders) is saved in ``<dir>/cluster.json`` so that another process can find it
again with ``LocalCluster.load(dir)`` (``status``, ``down``, fault injection). Faults: a broker
can be stopped cleanly (SIGTERM), killed (SIGKILL), frozen and thawed (SIGSTOP/SIGCONT) and
started again with the same identity and data.

Several processes act on one cluster at once (a running demo, ``dev-cluster start 3`` from
another shell), so a ``LocalCluster`` never trusts the pids it remembers: before ``status``,
``down`` and every fault it re-reads ``cluster.json`` and looks for this cluster's JVMs in the
process table by their command lines (``processes``), which also guards against pid reuse.
Updates of ``cluster.json`` are read-modify-write under an exclusive ``flock`` on
``<dir>/cluster.lock``, so two processes never lose each other's records.

Each broker writes ``server.log``, ``controller.log``, ``state-change.log`` and a JVM GC log
(``-Xlog:gc*`` with time and uptime decorators, rotated) into its own folder.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.dev.devcluster.gc_pause import GcPauseError, full_gc_pause
from kafka_health.dev.devcluster.processes import (
    PROC,
    ZOOKEEPER,
    broker_role,
    find_cluster_processes,
    role_of,
)
from kafka_health.dev.devcluster.runtime import ensure_kafka_runtime
from kafka_health.dev.devcluster.security import CERT_DAYS, ListenerSecurity, Security
from kafka_health.jdk import jdk_tool

Mode = Literal["kraft", "zookeeper"]
STATE_FILE = "cluster.json"
LOCK_FILE = "cluster.lock"
DOWN_TIMEOUT_S = 30.0
"""How long ``down`` waits for SIGTERM to stop the cluster's JVMs before it sends SIGKILL."""
KILL_WAIT_S = 10.0
GC_LOG = "gc.log"


@dataclass(frozen=True)
class ClusterSpec:
    """What cluster to start."""

    dir: Path
    brokers: int = 3
    mode: Mode = "kraft"
    kafka_version: str = "4.1.1"
    zookeeper_kafka_version: str = "3.9.1"
    cache_dir: Path = Path("~/.cache/kafka-health/kafka")
    heap: str = "256m"
    zookeeper_session_timeout_ms: int = 6000
    broker_overrides: dict[str, str] = field(default_factory=dict)
    security: Security = "none"
    """A secured client listener beside PLAINTEXT: ``sasl`` (SCRAM-SHA-512, KRaft only) or
    ``tls`` (a CA and certificate made for the run); see :mod:`.security`."""
    cert_days: int = CERT_DAYS
    """``tls``: how many days the broker certificate is valid."""

    @property
    def version(self) -> str:
        return self.kafka_version if self.mode == "kraft" else self.zookeeper_kafka_version


def transport_spec(monitored: ClusterSpec, directory: Path | None = None) -> ClusterSpec:
    """A 1-broker KRaft cluster to carry the monitor's own topics beside ``monitored``: same
    Kafka version, cache and heap; its folder defaults to ``<monitored dir>-transport``.

    A fault injected into the monitored cluster then leaves the monitor's evidence (canary
    results, broker logs, cluster state) flowing.
    """
    return ClusterSpec(
        dir=directory or monitored.dir.parent / f"{monitored.dir.name}-transport",
        brokers=1,
        mode="kraft",
        kafka_version=monitored.kafka_version,
        cache_dir=monitored.cache_dir,
        heap=monitored.heap,
    )


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
    process: Literal["running", "frozen", "stopped"]
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


class LocalCluster:
    """A Kafka cluster of local JVM processes. Build with ``create`` or ``load``."""

    def __init__(
        self,
        spec: ClusterSpec,
        cluster_id: str,
        nodes: list[BrokerNode],
        zookeeper: ZooKeeperNode | None,
    ) -> None:
        self.spec = spec
        self.cluster_id = cluster_id
        self.nodes = nodes
        self.zookeeper = zookeeper
        self.proc = PROC
        """The process table to search (``/proc``; a fake one in unit tests)."""
        self._libs: Path | None = None
        self._running: dict[str, list[int]] = {}
        self._thread_lock = threading.RLock()
        self._lock_depth = 0

    # ---------------------------------------------------------------- construction

    @classmethod
    def create(cls, spec: ClusterSpec) -> LocalCluster:
        """Plan a new cluster in ``spec.dir`` (nothing is started or written yet)."""
        base = spec.dir.resolve()
        running = find_cluster_processes(base)
        if running:
            pids = ", ".join(f"{role} pid {p}" for role, ps in sorted(running.items()) for p in ps)
            raise DevClusterError(
                f"a dev cluster is already running in {base} ({pids}); run 'down' first"
            )
        if (base / STATE_FILE).exists():
            # A stopped cluster's data belongs to another cluster id and other ports: start over.
            for old in [*base.glob("broker-*"), base / "zookeeper"]:
                shutil.rmtree(old, ignore_errors=True)
        if spec.security == "sasl" and spec.mode != "kraft":
            raise DevClusterError("--security sasl needs KRaft mode (credentials are made when "
                                  "its storage is formatted)")  # fmt: skip
        secured = spec.security != "none"
        ports = free_ports(3 * spec.brokers + 1)
        nodes = [
            BrokerNode(
                broker_id=i + 1,
                port=ports[3 * i],
                controller_port=ports[3 * i + 1],
                dir=str(base / f"broker-{i + 1}"),
                secure_port=ports[3 * i + 2] if secured else None,
            )
            for i in range(spec.brokers)
        ]
        zookeeper = (
            ZooKeeperNode(ports[-1], str(base / "zookeeper")) if spec.mode == "zookeeper" else None
        )
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        return cls(spec, cluster_id, nodes, zookeeper)

    @classmethod
    def load(cls, directory: Path) -> LocalCluster:
        """Find the cluster whose state is saved in ``directory``."""
        path = directory.resolve() / STATE_FILE
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise DevClusterError(
                f"no dev cluster in {directory.resolve()} (no {STATE_FILE})"
            ) from exc
        spec_raw = state["spec"]
        spec = ClusterSpec(
            **{
                **spec_raw,
                "dir": Path(spec_raw["dir"]),
                "cache_dir": Path(spec_raw["cache_dir"]),
            }
        )
        nodes = [BrokerNode(**n) for n in state["nodes"]]
        zookeeper = ZooKeeperNode(**state["zookeeper"]) if state.get("zookeeper") else None
        return cls(spec, state["cluster_id"], nodes, zookeeper).refresh()

    def save(self) -> None:
        """Write the cluster's whole state file (as planned by ``create``), under the lock."""
        base = self.spec.dir.resolve()
        base.mkdir(parents=True, exist_ok=True)
        with self._state_lock():
            self._write_state(self._state())

    def refresh(self) -> LocalCluster:
        """Bring every node's pid up to date: what ``cluster.json`` records now (other
        processes write it too), kept only if that pid still runs this node's JVM, else the
        node's JVM found in the process table (also one whose pid was never recorded), else
        None. Returns ``self``."""
        recorded = self._recorded_pids()
        running = find_cluster_processes(self.spec.dir, self.proc)
        for role, node in self._roles():
            if node is None:
                continue
            before = node.pid
            node.pid = _pick(recorded.get(role, node.pid), running.get(role, []))
            if before is not None and before != node.pid:
                process_state(before, self.proc)  # reaps it if it was this process's child
        self._running = running
        return self

    # ---------------------------------------------------------------- whole cluster

    @property
    def bootstrap_servers(self) -> list[str]:
        return [n.bootstrap for n in self.nodes]

    @property
    def security(self) -> ListenerSecurity | None:
        """The secured listener's material, if the cluster has one."""
        if self.spec.security == "none":
            return None
        return ListenerSecurity(
            self.spec.security, self.spec.dir.resolve() / "secrets", self.spec.cert_days
        )

    @property
    def secure_bootstrap_servers(self) -> list[str]:
        """The secured listener of every broker (empty when there is none)."""
        return [f"127.0.0.1:{n.secure_port}" for n in self.nodes if n.secure_port]

    def up(self, timeout_s: float = 120.0) -> LocalCluster:
        """Fetch, configure, format and start every node; wait until all brokers registered."""
        self._libs = ensure_kafka_runtime(self.spec.cache_dir, self.spec.version, self.spec.mode)
        if self.security is not None:
            self.security.prepare()
        self.save()
        try:
            if self.zookeeper is not None:
                self._start_zookeeper(self.zookeeper)
                wait_for_port(self.zookeeper.port, timeout_s)
            for node in self.nodes:
                self._write_broker_config(node)
                if self.spec.mode == "kraft":
                    self._format_storage(node)
            for node in self.nodes:
                self.start_broker(node.broker_id, wait=False)
            self.wait_until_registered(len(self.nodes), timeout_s)
        except BaseException:
            self.down()
            raise
        return self

    def down(self, timeout_s: float = DOWN_TIMEOUT_S) -> DownReport:
        """Stop every JVM of this cluster, wherever it was started and whether its pid was
        recorded or not: all brokers together (SIGCONT, SIGTERM; SIGKILL to those still
        running after ``timeout_s``), then ZooKeeper the same way. Keeps the folders; the
        report names what had to be killed."""
        report = DownReport(timeout_s)
        for is_zookeeper in (False, True):
            for _ in range(3):  # a broker started meanwhile elsewhere is found by the next scan
                targets = {
                    role: pids
                    for role, pids in find_cluster_processes(self.spec.dir, self.proc).items()
                    if (role == ZOOKEEPER) == is_zookeeper
                }
                if not targets:
                    break
                self._stop(targets, timeout_s, report)
        with self._state_lock():
            self.refresh()
            for role, _ in self._roles():
                self._record(role, None)
        return report

    def any_running(self) -> bool:
        """Whether any JVM of this cluster runs (or is frozen)."""
        self.refresh()
        return bool(self._running)

    def status(self) -> list[BrokerStatus]:
        """Each broker's process state, registration with the cluster, folders and GC log size."""
        self.refresh()
        registered = self.registered_broker_ids(timeout_s=5.0)
        result = []
        for node in self.nodes:
            gc_bytes = node.gc_log.stat().st_size if node.gc_log.exists() else 0
            result.append(
                BrokerStatus(
                    broker_id=node.broker_id,
                    pid=node.pid,
                    process=process_state(node.pid, self.proc),
                    registered=node.broker_id in registered,
                    bootstrap=node.bootstrap,
                    log_dir=str(node.log_dir),
                    gc_log_bytes=gc_bytes,
                )
            )
        return result

    def registered_broker_ids(self, timeout_s: float = 10.0) -> set[int]:
        """Broker ids the cluster's metadata lists as live (empty when none answers)."""
        live = [
            n.bootstrap
            for n in self.nodes
            if process_state(n.pid) == "running" and port_open(n.port)
        ]
        if not live:
            return set()
        from kafka import KafkaAdminClient
        from kafka.errors import KafkaError

        try:
            admin = KafkaAdminClient(
                bootstrap_servers=live,
                request_timeout_ms=int(timeout_s * 1000),
                client_id="kafka-health-devcluster",
            )
        except (KafkaError, OSError, ValueError):
            return set()
        try:
            described = admin.describe_cluster()
            return {
                int(b.get("broker_id", b.get("node_id", -1)))
                for b in described["brokers"]
                if not b.get("is_fenced", False)
            }
        except (KafkaError, OSError, ValueError):
            return set()
        finally:
            admin.close()

    def wait_until_registered(self, count: int, timeout_s: float) -> None:
        """Block until ``count`` brokers are registered, or raise with the brokers' last words."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.pid is not None and process_state(node.pid) == "stopped":
                    raise DevClusterError(
                        f"broker {node.broker_id} exited while starting:\n{self._last_words(node)}"
                    )
            if len(self.registered_broker_ids(timeout_s=5.0)) >= count:
                return
            time.sleep(0.5)
        raise DevClusterError(f"fewer than {count} brokers registered within {timeout_s:.0f} s")

    # ---------------------------------------------------------------- one broker

    def node(self, broker_id: int) -> BrokerNode:
        for node in self.nodes:
            if node.broker_id == broker_id:
                return node
        raise DevClusterError(f"no broker {broker_id} in this cluster")

    def start_broker(self, broker_id: int, wait: bool = True, timeout_s: float = 90.0) -> None:
        """Start (or restart) a broker with its existing identity and data."""
        node = self.node(broker_id)
        self._libs = self._libs or ensure_kafka_runtime(  # a first fetch is slow: before the lock
            self.spec.cache_dir, self.spec.version, self.spec.mode
        )
        node.log_dir.mkdir(parents=True, exist_ok=True)
        self._await_old_registration(node)
        with self._state_lock():  # no second JVM for the broker from a racing 'start'
            self.refresh()
            if node.pid is not None:
                raise DevClusterError(
                    f"broker {broker_id} is already {process_state(node.pid)} (pid {node.pid})"
                )
            node.pid = _spawn(self.broker_command(broker_id), Path(node.dir) / "stdout.log")
            self._record(broker_role(broker_id), node.pid)
        if not wait:
            return
        started = node.pid
        try:
            self._wait_registered(node, timeout_s)
        except BaseException:  # a broker that did not come up (or Ctrl-C) is not left behind
            _send(started, signal.SIGKILL)
            _wait_exit(started, broker_role(broker_id), self.spec.dir, KILL_WAIT_S, self.proc)
            self._forget(broker_role(broker_id))
            raise

    def _await_old_registration(self, node: BrokerNode) -> None:
        """ZooKeeper mode: a broker killed moments ago stays registered under its old session
        until ``zookeeper.session.timeout.ms`` passes, and Kafka refuses to start beside it
        ("node already exists and owner ... does not match current session": seen when the
        fault suite restarted a killed broker 1.5 s after the kill). Wait for it to go, as an
        operator's restart must; give up after the session timeout and 5 s."""
        if self.spec.mode != "zookeeper" or process_state(node.pid) == "running":
            return
        deadline = time.monotonic() + self.spec.zookeeper_session_timeout_ms / 1000.0 + 5.0
        while node.broker_id in self.registered_broker_ids(timeout_s=3.0):
            if time.monotonic() > deadline:
                return
            time.sleep(0.25)

    def _wait_registered(self, node: BrokerNode, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        wait_for_port(node.port, timeout_s)
        while node.broker_id not in self.registered_broker_ids(timeout_s=5.0):
            if process_state(node.pid) == "stopped":
                raise DevClusterError(
                    f"broker {node.broker_id} exited while starting:\n{self._last_words(node)}"
                )
            if time.monotonic() > deadline:
                raise DevClusterError(f"broker {node.broker_id} did not register in {timeout_s} s")
            time.sleep(0.5)

    def broker_command(self, broker_id: int) -> list[str]:
        """The command line that runs this broker's JVM (how ``start_broker`` starts it)."""
        node = self.node(broker_id)
        libs = self._libs or ensure_kafka_runtime(
            self.spec.cache_dir, self.spec.version, self.spec.mode
        )
        return [
            _java(),
            *self._jvm_options(node),
            "-cp",
            str(libs / "*"),
            "kafka.Kafka",
            str(Path(node.dir) / "server.properties"),
        ]

    def stop_broker(self, broker_id: int, timeout_s: float = 60.0) -> None:
        """Controlled shutdown (SIGTERM), waiting for the process to exit (SIGKILL after
        ``timeout_s``)."""
        role = broker_role(broker_id)
        self.node(broker_id)
        self.refresh()
        self._stop({role: self._running.get(role, [])}, timeout_s, DownReport(timeout_s))
        self._forget(role)

    def kill_broker(self, broker_id: int) -> None:
        """Kill a broker at once (SIGKILL): no controlled shutdown."""
        role = broker_role(broker_id)
        self.node(broker_id)
        self.refresh()
        pids = self._running.get(role, [])
        for pid in pids:
            _send(pid, signal.SIGKILL)
        for pid in pids:
            _wait_exit(pid, role, self.spec.dir, KILL_WAIT_S, self.proc)
        self._forget(role)

    def freeze_broker(self, broker_id: int) -> None:
        """Suspend a broker (SIGSTOP), as a long GC pause or a hung host would."""
        self._signal_running(broker_id, signal.SIGSTOP)

    def thaw_broker(self, broker_id: int) -> None:
        """Resume a frozen broker (SIGCONT)."""
        self._signal_running(broker_id, signal.SIGCONT)

    def gc_pause_broker(self, broker_id: int, pause_s: float) -> float:
        """A Full GC in the broker's JVM that pauses it for ``pause_s`` (see ``gc_pause``);
        returns the pause the JVM logged, in seconds."""
        node = self.node(broker_id)
        self.refresh()
        if node.pid is None or process_state(node.pid) != "running":
            raise DevClusterError(f"broker {broker_id} is not running")
        try:
            return full_gc_pause(node.pid, node.gc_log, pause_s)
        except GcPauseError as exc:
            raise DevClusterError(f"broker {broker_id}: {exc}") from exc

    def restart_broker(self, broker_id: int, timeout_s: float = 90.0) -> None:
        """Stop a broker cleanly and start it again."""
        self.stop_broker(broker_id)
        self.start_broker(broker_id, wait=True, timeout_s=timeout_s)

    # ---------------------------------------------------------------- internals

    def _signal_running(self, broker_id: int, sig: signal.Signals) -> None:
        self.node(broker_id)
        self.refresh()
        pids = self._running.get(broker_role(broker_id), [])
        if not pids:
            raise DevClusterError(f"broker {broker_id} is not running")
        for pid in pids:
            os.kill(pid, sig)

    def _stop(self, targets: dict[str, list[int]], timeout_s: float, report: DownReport) -> None:
        """SIGCONT and SIGTERM to every target at once; SIGKILL to those still running after
        ``timeout_s``; each outcome goes into ``report``."""
        pending = [(role, pid) for role, pids in targets.items() for pid in pids]
        for _, pid in pending:
            _send(pid, signal.SIGCONT)
            _send(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for role, pid in pending:
            if _wait_exit(pid, role, self.spec.dir, deadline - time.monotonic(), self.proc):
                report.stopped.append(_describe(role, pid))
                continue
            _send(pid, signal.SIGKILL)
            exited = _wait_exit(pid, role, self.spec.dir, KILL_WAIT_S, self.proc)
            (report.killed if exited else report.survivors).append(_describe(role, pid))

    def _roles(self) -> list[tuple[str, BrokerNode | ZooKeeperNode | None]]:
        roles: list[tuple[str, BrokerNode | ZooKeeperNode | None]] = [
            (broker_role(n.broker_id), n) for n in self.nodes
        ]
        return [*roles, (ZOOKEEPER, self.zookeeper)]

    def _forget(self, role: str) -> None:
        """After stopping ``role``: refresh, and record it as stopped if nothing runs it."""
        with self._state_lock():
            self.refresh()
            self._record(role, None)

    @contextlib.contextmanager
    def _state_lock(self) -> Iterator[None]:
        """Exclusive ``flock`` on ``<dir>/cluster.lock`` (other processes), re-entrant within
        this object (and serialised between its threads)."""
        with self._thread_lock:
            base = self.spec.dir.resolve()
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

    def _state(self) -> dict[str, Any]:
        spec = asdict(self.spec)
        spec["dir"] = str(self.spec.dir.resolve())
        spec["cache_dir"] = str(self.spec.cache_dir)
        return {
            "cluster_id": self.cluster_id,
            "spec": spec,
            "nodes": [asdict(n) for n in self.nodes],
            "zookeeper": asdict(self.zookeeper) if self.zookeeper else None,
        }

    def _read_state(self) -> dict[str, Any] | None:
        """This cluster's saved state (None when missing, unreadable or another cluster's)."""
        try:
            state = json.loads((self.spec.dir.resolve() / STATE_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(state, dict) or state.get("cluster_id") != self.cluster_id:
            return None
        return state

    def _write_state(self, state: dict[str, Any]) -> None:
        base = self.spec.dir.resolve()
        tmp = base / f"{STATE_FILE}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(state, indent=2), encoding="utf-8")
        tmp.replace(base / STATE_FILE)  # readers see the old or the new file, never half

    @staticmethod
    def _entries(state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(role, its entry) for each node in a saved state; the entries are the state's own."""
        entries = [(broker_role(int(n["broker_id"])), n) for n in state.get("nodes") or []]
        if isinstance(state.get("zookeeper"), dict):
            entries.append((ZOOKEEPER, state["zookeeper"]))
        return entries

    def _recorded_pids(self) -> dict[str, int | None]:
        state = self._read_state()
        return {} if state is None else {r: e.get("pid") for r, e in self._entries(state)}

    def _record(self, role: str, pid: int | None) -> None:
        """Record ``role``'s pid in ``cluster.json`` by read-modify-write under the lock, so
        records other processes made meanwhile survive. Recording None never erases a pid
        that still runs that role's JVM (another shell started it)."""
        if not self.spec.dir.resolve().is_dir():
            return
        with self._state_lock():
            state = self._read_state() or self._state()
            for entry_role, entry in self._entries(state):
                if entry_role != role:
                    continue
                old = entry.get("pid")
                still_runs = isinstance(old, int) and role_of(old, self.spec.dir, self.proc) == role
                entry["pid"] = old if pid is None and still_runs else pid
            self._write_state(state)

    def _jvm_options(self, node: BrokerNode) -> list[str]:
        logging = (
            [f"-Dlog4j2.configurationFile={self._log_config('log4j2.properties')}"]
            if self.spec.mode == "kraft"
            else [f"-Dlog4j.configuration=file:{self._log_config('log4j.properties')}"]
        )
        return [
            f"-Xms{self.spec.heap}",
            f"-Xmx{self.spec.heap}",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:TieredStopAtLevel=1",
            "-XX:+IgnoreUnrecognizedVMOptions",
            # The JVM moves the file aside at every start (gc.log.0, .1, ...) and reuses the
            # names past filecount: 10 lost a fault suite's early Full GCs to later restarts
            # (a replay of the run's logs then missed them).
            f"-Xlog:gc*:file={node.gc_log}:time,uptime,level,tags:filecount=100,filesize=20M",
            "-Djava.awt.headless=true",
            f"-Dkafka.logs.dir={node.log_dir}",
            *logging,
        ]

    def _log_config(self, name: str) -> Path:
        target = self.spec.dir.resolve() / name
        if not target.exists():
            text = resources.files("kafka_health.dev.devcluster").joinpath(name).read_text("utf-8")
            target.write_text(text, encoding="utf-8")
        return target

    def _broker_properties(self, node: BrokerNode) -> dict[str, str]:
        n = len(self.nodes)
        rf = str(min(3, n))
        props = {
            "log.dirs": str(node.data_dir),
            "listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            "num.network.threads": "2",
            "num.io.threads": "2",
            "num.partitions": "1",
            "default.replication.factor": rf,
            "offsets.topic.replication.factor": rf,
            "offsets.topic.num.partitions": "6",
            "transaction.state.log.replication.factor": rf,
            "transaction.state.log.min.isr": str(max(1, min(2, n))),
            "group.initial.rebalance.delay.ms": "0",
            "log.cleaner.dedupe.buffer.size": str(8 * 1024 * 1024),
            "log.segment.bytes": str(64 * 1024 * 1024),
        }
        if self.spec.mode == "kraft":
            voters = ",".join(f"{x.broker_id}@127.0.0.1:{x.controller_port}" for x in self.nodes)
            props.update(
                {
                    "process.roles": "broker,controller",
                    "node.id": str(node.broker_id),
                    "controller.quorum.voters": voters,
                    "listeners": (
                        f"PLAINTEXT://127.0.0.1:{node.port},"
                        f"CONTROLLER://127.0.0.1:{node.controller_port}"
                    ),
                    "controller.listener.names": "CONTROLLER",
                    "inter.broker.listener.name": "PLAINTEXT",
                    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                }
            )
        else:
            assert self.zookeeper is not None
            props.update(
                {
                    "broker.id": str(node.broker_id),
                    "zookeeper.connect": f"127.0.0.1:{self.zookeeper.port}",
                    "zookeeper.session.timeout.ms": str(self.spec.zookeeper_session_timeout_ms),
                }
            )
        if self.security is not None and node.secure_port:
            listener = self.security.listener
            props["listeners"] += f",{listener}://127.0.0.1:{node.secure_port}"
            props["advertised.listeners"] = (
                f"PLAINTEXT://127.0.0.1:{node.port},{listener}://127.0.0.1:{node.secure_port}"
            )
            props["inter.broker.listener.name"] = "PLAINTEXT"
            props.pop("security.inter.broker.protocol", None)
            protocols = props.get("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT")
            props["listener.security.protocol.map"] = f"{protocols},{listener}:{listener}"
            props.update(self.security.broker_properties())
        props.update(self.spec.broker_overrides)
        return props

    def _write_broker_config(self, node: BrokerNode) -> None:
        Path(node.dir).mkdir(parents=True, exist_ok=True)
        node.log_dir.mkdir(parents=True, exist_ok=True)
        lines = [f"{k}={v}" for k, v in self._broker_properties(node).items()]
        (Path(node.dir) / "server.properties").write_text("\n".join(lines) + "\n", "utf-8")

    def _format_storage(self, node: BrokerNode) -> None:
        assert self._libs is not None
        command = [
            _java(), "-Xmx128m", "-XX:TieredStopAtLevel=1",
            f"-Dlog4j2.configurationFile={self._log_config('log4j2.properties')}",
            f"-Dkafka.logs.dir={node.log_dir}",
            "-cp", str(self._libs / "*"), "kafka.tools.StorageTool", "format",
            f"--cluster-id={self.cluster_id}",
            "--config", str(Path(node.dir) / "server.properties"),
            "--ignore-formatted",
            *(self.security.format_arguments() if self.security is not None else []),
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise DevClusterError(
                f"formatting broker {node.broker_id}'s storage failed:\n"
                + (result.stdout + result.stderr)[-2000:]
            )

    def _start_zookeeper(self, zk: ZooKeeperNode) -> None:
        assert self._libs is not None
        base = Path(zk.dir)
        (base / "data").mkdir(parents=True, exist_ok=True)
        (base / "logs").mkdir(parents=True, exist_ok=True)
        config = base / "zoo.cfg"
        config.write_text(
            f"dataDir={base / 'data'}\nclientPort={zk.port}\nclientPortAddress=127.0.0.1\n"
            "tickTime=500\nmaxClientCnxns=0\nadmin.enableServer=false\n"
            "4lw.commands.whitelist=*\n",
            encoding="utf-8",
        )
        command = [
            _java(), "-Xmx128m", "-XX:TieredStopAtLevel=1",
            f"-Dlog4j.configuration=file:{self._log_config('log4j.properties')}",
            f"-Dkafka.logs.dir={base / 'logs'}",
            "-cp", str(self._libs / "*"),
            "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(config),
        ]  # fmt: skip
        zk.pid = _spawn(command, base / "stdout.log")
        self._record(ZOOKEEPER, zk.pid)

    @staticmethod
    def _last_words(node: BrokerNode) -> str:
        lines: list[str] = []
        for name in ("stdout.log", "logs/server.log"):
            path = Path(node.dir) / name
            if path.exists():
                lines += path.read_text("utf-8", errors="replace").splitlines()[-20:]
        return "\n".join(lines)


# -------------------------------------------------------------------- process helpers


def _java() -> str:
    """The ``java`` the brokers run on: the JDK whose ``jcmd`` pauses them and whose ``java``
    pyspark starts (``JAVA_HOME``'s, else the PATH's)."""
    java = jdk_tool("java")
    if java is None:
        raise DevClusterError("no java found (JAVA_HOME, PATH): the dev cluster needs JDK 17+")
    return java


def _spawn(command: list[str], output: Path) -> int:
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


def _send(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _pick(recorded: int | None, running: list[int]) -> int | None:
    """The node's pid: the recorded one if it runs the node's JVM, else one that does."""
    if recorded in running:
        return recorded
    return running[0] if running else None


def _describe(role: str, pid: int) -> str:
    return f"{role.replace('-', ' ')} (pid {pid})"


def process_state(pid: int | None, proc: Path = PROC) -> Literal["running", "frozen", "stopped"]:
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


def _wait_exit(pid: int, role: str, base: Path, timeout_s: float, proc: Path = PROC) -> bool:
    """Wait until ``pid`` no longer runs ``role``'s JVM (exited, or the pid was reused)."""
    deadline = time.monotonic() + timeout_s

    def gone() -> bool:
        return process_state(pid, proc) == "stopped" or role_of(pid, base, proc) != role

    while time.monotonic() < deadline:
        if gone():
            return True
        time.sleep(0.1)
    return gone()


def free_ports(count: int) -> list[int]:
    """``count`` distinct free TCP ports on 127.0.0.1."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def port_open(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for_port(port: int, timeout_s: float) -> None:
    """Block until something accepts connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_open(port):
            return
        time.sleep(0.2)
    raise DevClusterError(f"nothing listens on 127.0.0.1:{port} after {timeout_s:.0f} s")
