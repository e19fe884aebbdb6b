"""Finding a dev cluster's JVMs in a (fake) process table, and sharing cluster.json safely."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.devcluster.processes import find_cluster_processes, role_of

JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
BROKER = "kafka.Kafka"
ZOOKEEPER = "org.apache.zookeeper.server.quorum.QuorumPeerMain"


class FakeProc:
    """A /proc with the processes a test puts in it (cmdline, stat, cwd)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()

    def add(self, pid: int, *args: str, cwd: Path | None = None, state: str = "S") -> None:
        folder = self.root / str(pid)
        folder.mkdir()
        (folder / "cmdline").write_bytes(b"".join(a.encode() + b"\0" for a in args))
        (folder / "stat").write_text(f"{pid} ({Path(args[0]).name if args else 'x'}) {state} 1")
        if cwd is not None:
            (folder / "cwd").symlink_to(cwd)

    def remove(self, pid: int) -> None:
        for name in ("cmdline", "stat", "cwd"):
            (self.root / str(pid) / name).unlink(missing_ok=True)
        (self.root / str(pid)).rmdir()


def broker_args(base: Path, broker_id: int) -> list[str]:
    return [
        JAVA,
        "-Xmx256m",
        "-cp",
        "/libs/*",
        BROKER,
        f"{base}/broker-{broker_id}/server.properties",
    ]


def test_finds_brokers_and_zookeeper_by_command_line_only(tmp_path: Path) -> None:
    base = tmp_path / "cluster"
    proc = FakeProc(tmp_path / "proc")
    proc.add(101, *broker_args(base, 1))
    proc.add(102, "java", "-cp", "x", BROKER, "broker-3/server.properties", cwd=base)  # relative
    proc.add(103, JAVA, "-cp", "x", ZOOKEEPER, f"{base}/zookeeper/zoo.cfg")
    proc.add(104, *broker_args(base, 2), state="T")  # frozen: still the broker
    # Not this cluster's JVMs:
    proc.add(201, *broker_args(tmp_path / "other", 1))  # another cluster
    proc.add(202, JAVA, "-cp", "x", "kafka.tools.StorageTool", "format", "--config",
             f"{base}/broker-1/server.properties")  # fmt: skip
    proc.add(203, "tail", "-f", BROKER, f"{base}/broker-1/server.properties")  # not java
    proc.add(204)  # a zombie: empty command line
    proc.add(205, *broker_args(base, 1)[:-1], f"{base}/broker-1/other.properties")
    proc.add(206, JAVA, "-cp", "x", BROKER, f"{base}/zookeeper/server.properties")

    assert find_cluster_processes(base, proc.root) == {
        "broker-1": [101],
        "broker-2": [104],
        "broker-3": [102],
        "zookeeper": [103],
    }
    assert role_of(999, base, proc.root) is None  # no such process


def planned_cluster(tmp_path: Path, proc: FakeProc, mode: str = "kraft") -> LocalCluster:
    cluster = LocalCluster.create(ClusterSpec(dir=tmp_path / "cluster", brokers=3, mode=mode))  # type: ignore[arg-type]
    cluster.proc = proc.root
    cluster.save()
    return cluster


def loaded(directory: Path, proc: FakeProc) -> LocalCluster:
    cluster = LocalCluster.load(directory)
    cluster.proc = proc.root
    return cluster.refresh()


def test_refresh_sees_a_broker_another_process_started_and_ignores_a_reused_pid(
    tmp_path: Path,
) -> None:
    proc = FakeProc(tmp_path / "proc")
    cluster = planned_cluster(tmp_path, proc)
    base = cluster.spec.dir.resolve()
    for broker_id, pid in ((1, 301), (2, 302), (3, 303)):
        proc.add(pid, *broker_args(base, broker_id))
    holder = loaded(base, proc)  # e.g. the demo, holding the cluster
    assert [n.pid for n in holder.nodes] == [301, 302, 303]

    # Another shell: kill broker 3, start it again (recorded in cluster.json as pid 403).
    other = loaded(base, proc)
    proc.remove(303)
    proc.add(403, *broker_args(base, 3))
    other._record("broker-3", 403)
    # Broker 1's pid is reused by an unrelated program; broker 2's JVM was never recorded.
    proc.remove(301)
    proc.add(301, "sleep", "1000")
    proc.remove(302)
    proc.add(502, *broker_args(base, 2))

    holder.refresh()
    assert [n.pid for n in holder.nodes] == [None, 502, 403]
    assert holder.any_running()
    for pid in (403, 502):
        proc.remove(pid)
    assert not holder.any_running()


def test_refresh_finds_zookeeper(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    cluster = planned_cluster(tmp_path, proc, mode="zookeeper")
    proc.add(601, JAVA, "-cp", "x", ZOOKEEPER, f"{cluster.spec.dir.resolve()}/zookeeper/zoo.cfg")
    zookeeper = cluster.refresh().zookeeper  # refresh() returns the cluster itself
    assert zookeeper is not None
    assert zookeeper.pid == 601


def recorded(directory: Path) -> dict[str, int | None]:
    state = json.loads((directory / "cluster.json").read_text())
    return {f"broker-{n['broker_id']}": n["pid"] for n in state["nodes"]}


def test_records_from_two_holders_do_not_overwrite_each_other(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    base = planned_cluster(tmp_path, proc).spec.dir.resolve()
    first, second = loaded(base, proc), loaded(base, proc)
    second._record("broker-3", 703)
    first._record("broker-1", 701)  # first's memory still says broker 3 has no pid
    assert recorded(base) == {"broker-1": 701, "broker-2": None, "broker-3": 703}

    # Recording "stopped" never erases a pid that still runs the broker's JVM.
    proc.add(703, *broker_args(base, 3))
    first._record("broker-3", None)
    first._record("broker-1", None)
    assert recorded(base) == {"broker-1": None, "broker-2": None, "broker-3": 703}


RECORD_FROM_ANOTHER_PROCESS = """
import sys, time
from pathlib import Path
from kafka_health.dev.devcluster import LocalCluster
cluster = LocalCluster.load(Path(sys.argv[1]))
print("loaded", flush=True)
cluster._record("broker-2", 802)
print("recorded", flush=True)
"""


def test_a_record_waits_for_the_lock_another_holder_has(tmp_path: Path) -> None:
    proc = FakeProc(tmp_path / "proc")
    holder = planned_cluster(tmp_path, proc)
    base = holder.spec.dir.resolve()
    with holder._state_file.lock():
        other = subprocess.Popen(
            [sys.executable, "-c", RECORD_FROM_ANOTHER_PROCESS, str(base)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert other.stdout is not None
        assert other.stdout.readline().strip() == "loaded"
        time.sleep(1.0)  # time enough for the other process to write, were it not locked out
        assert other.poll() is None
        assert recorded(base)["broker-2"] is None
        holder._record("broker-1", 801)
    out, _ = other.communicate(timeout=30)
    assert other.returncode == 0 and "recorded" in out
    assert recorded(base) == {"broker-1": 801, "broker-2": 802, "broker-3": None}
