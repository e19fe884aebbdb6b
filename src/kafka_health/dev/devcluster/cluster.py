"""A real Apache Kafka cluster on loopback, as local JVM processes, for the demo and the tests.

``LocalCluster.create(spec).up()`` fetches Kafka's jars (once), writes each broker's
properties (``broker_config``), formats KRaft storage or starts ZooKeeper
(``kraft_zookeeper``) and starts the brokers on free ports; the cluster's state (ports, pids,
folders) is saved in ``<dir>/cluster.json`` (``state``) so that another process can find it
again with ``LocalCluster.load(dir)`` (``status``, ``down``, fault injection). Faults: a broker
can be stopped cleanly (SIGTERM), killed (SIGKILL), frozen and thawed (SIGSTOP/SIGCONT) and
started again with the same identity and data.

Several processes act on one cluster at once (a running demo, ``dev-cluster start 3`` from
another shell), so a ``LocalCluster`` never trusts the pids it remembers: before ``status``,
``down`` and every fault it re-reads ``cluster.json`` and looks for this cluster's JVMs in the
process table by their command lines (``processes``), which also guards against pid reuse.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import time
import uuid
from pathlib import Path
from typing import Any

from kafka_health.dev.devcluster.broker_config import (
    broker_properties,
    jvm_options,
    write_broker_config,
)
from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.dev.devcluster.gc_pause import GcPauseError, full_gc_pause
from kafka_health.dev.devcluster.kraft_zookeeper import format_storage, start_zookeeper
from kafka_health.dev.devcluster.ports import free_ports, port_open, wait_for_port
from kafka_health.dev.devcluster.process_control import (
    KILL_WAIT_S,
    describe_process,
    java_executable,
    pick_pid,
    process_state,
    send_signal,
    spawn_detached,
    wait_exit,
)
from kafka_health.dev.devcluster.processes import (
    PROC,
    ZOOKEEPER,
    broker_role,
    find_cluster_processes,
)
from kafka_health.dev.devcluster.runtime import ensure_kafka_runtime
from kafka_health.dev.devcluster.security import ListenerSecurity
from kafka_health.dev.devcluster.spec import ClusterSpec
from kafka_health.dev.devcluster.state import (
    STATE_FILE,
    BrokerNode,
    BrokerStatus,
    ClusterStateFile,
    DownReport,
    ZooKeeperNode,
    spec_from_record,
    state_record,
)

DOWN_TIMEOUT_S = 30.0
"""How long ``down`` waits for SIGTERM to stop the cluster's JVMs before it sends SIGKILL."""


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
        self.killed_at: dict[int, float] = {}
        """Per broker, when this object SIGKILLed it (monotonic s): its ZooKeeper session
        outlives it (:meth:`_await_old_registration`)."""
        self._libs: Path | None = None
        self._running: dict[str, list[int]] = {}
        self._state_file = ClusterStateFile(spec.dir, cluster_id)

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
        spec = spec_from_record(state)
        nodes = [BrokerNode(**n) for n in state["nodes"]]
        zookeeper = ZooKeeperNode(**state["zookeeper"]) if state.get("zookeeper") else None
        return cls(spec, state["cluster_id"], nodes, zookeeper).refresh()

    def save(self) -> None:
        """Write the cluster's whole state file (as planned by ``create``), under the lock."""
        base = self.spec.dir.resolve()
        base.mkdir(parents=True, exist_ok=True)
        with self._state_file.lock():
            self._state_file.write(self._state())

    def refresh(self) -> LocalCluster:
        """Bring every node's pid up to date: what ``cluster.json`` records now (other
        processes write it too), kept only if that pid still runs this node's JVM, else the
        node's JVM found in the process table (also one whose pid was never recorded), else
        None. Returns ``self``."""
        recorded = self._state_file.recorded_pids()
        running = find_cluster_processes(self.spec.dir, self.proc)
        for role, node in self._roles():
            if node is None:
                continue
            before = node.pid
            node.pid = pick_pid(recorded.get(role, node.pid), running.get(role, []))
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
        libs = self._libs = ensure_kafka_runtime(
            self.spec.cache_dir, self.spec.version, self.spec.mode
        )
        if self.security is not None:
            self.security.prepare()
        self.save()
        try:
            if self.zookeeper is not None:
                self.zookeeper.pid = start_zookeeper(self.spec, libs, self.zookeeper)
                self._record(ZOOKEEPER, self.zookeeper.pid)
                wait_for_port(self.zookeeper.port, timeout_s)
            for node in self.nodes:
                write_broker_config(node, self._broker_properties(node))
                if self.spec.mode == "kraft":
                    format_storage(self.spec, libs, self.cluster_id, node, self.security)
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
        with self._state_file.lock():
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
        with self._state_file.lock():  # no second JVM for the broker from a racing 'start'
            self.refresh()
            if node.pid is not None:
                raise DevClusterError(
                    f"broker {broker_id} is already {process_state(node.pid)} (pid {node.pid})"
                )
            node.pid = spawn_detached(self.broker_command(broker_id), Path(node.dir) / "stdout.log")
            self._record(broker_role(broker_id), node.pid)
        if not wait:
            return
        started = node.pid
        try:
            self._wait_registered(node, timeout_s)
        except BaseException:  # a broker that did not come up (or Ctrl-C) is not left behind
            send_signal(started, signal.SIGKILL)
            wait_exit(started, broker_role(broker_id), self.spec.dir, KILL_WAIT_S, self.proc)
            self._forget(broker_role(broker_id))
            raise

    def _await_old_registration(self, node: BrokerNode) -> None:
        """ZooKeeper mode: a broker killed moments ago stays registered under its old session
        until ``zookeeper.session.timeout.ms`` passes, and Kafka refuses to start beside it
        ("node already exists and owner ... does not match current session": seen when the
        fault suite restarted a killed broker 1.5 s after the kill). Wait out the session, as
        an operator's restart must. (Asking the metadata whether it is still registered is
        no help: the admin client may ask the dead broker itself and get no answer.)"""
        killed = self.killed_at.pop(node.broker_id, None)
        if self.spec.mode != "zookeeper" or killed is None:
            return
        session_s = self.spec.zookeeper_session_timeout_ms / 1000.0
        time.sleep(max(0.0, killed + session_s + 1.0 - time.monotonic()))

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
            java_executable(),
            *jvm_options(self.spec, node),
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
            send_signal(pid, signal.SIGKILL)
        for pid in pids:
            wait_exit(pid, role, self.spec.dir, KILL_WAIT_S, self.proc)
        self.killed_at[broker_id] = time.monotonic()
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

    def set_extra_log_dir(self, broker_id: int, directory: Path | None) -> None:
        """Give a stopped broker a second log directory (None: take it away) for its next
        start: its ``server.properties`` written again and, in KRaft, the new directory
        formatted (``--ignore-formatted`` leaves the others as they are)."""
        node = self.node(broker_id)
        self.refresh()
        if node.pid is not None:
            raise DevClusterError(f"broker {broker_id} must be stopped to change its log dirs")
        node.extra_log_dir = None if directory is None else str(directory.resolve())
        write_broker_config(node, self._broker_properties(node))
        if directory is not None and self.spec.mode == "kraft":
            libs = self._libs = self._libs or ensure_kafka_runtime(
                self.spec.cache_dir, self.spec.version, self.spec.mode
            )
            format_storage(self.spec, libs, self.cluster_id, node, self.security)
        self.save()

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
            send_signal(pid, signal.SIGCONT)
            send_signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for role, pid in pending:
            if wait_exit(pid, role, self.spec.dir, deadline - time.monotonic(), self.proc):
                report.stopped.append(describe_process(role, pid))
                continue
            send_signal(pid, signal.SIGKILL)
            exited = wait_exit(pid, role, self.spec.dir, KILL_WAIT_S, self.proc)
            (report.killed if exited else report.survivors).append(describe_process(role, pid))

    def _roles(self) -> list[tuple[str, BrokerNode | ZooKeeperNode | None]]:
        roles: list[tuple[str, BrokerNode | ZooKeeperNode | None]] = [
            (broker_role(n.broker_id), n) for n in self.nodes
        ]
        return [*roles, (ZOOKEEPER, self.zookeeper)]

    def _forget(self, role: str) -> None:
        """After stopping ``role``: refresh, and record it as stopped if nothing runs it."""
        with self._state_file.lock():
            self.refresh()
            self._record(role, None)

    def _state(self) -> dict[str, Any]:
        return state_record(self.spec, self.cluster_id, self.nodes, self.zookeeper)

    def _record(self, role: str, pid: int | None) -> None:
        """Record ``role``'s pid in ``cluster.json`` (see ``ClusterStateFile.record``)."""
        self._state_file.record(role, pid, self._state(), self.proc)

    def _broker_properties(self, node: BrokerNode) -> dict[str, str]:
        return broker_properties(self.spec, self.nodes, node, self.zookeeper, self.security)

    @staticmethod
    def _last_words(node: BrokerNode) -> str:
        lines: list[str] = []
        for name in ("stdout.log", "logs/server.log"):
            path = Path(node.dir) / name
            if path.exists():
                lines += path.read_text("utf-8", errors="replace").splitlines()[-20:]
        return "\n".join(lines)
