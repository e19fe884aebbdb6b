"""`kafka-health dev-cluster` and `demo` start, report, fault and stop real brokers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev.devcluster.processes import find_cluster_processes

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "kafka_health.cli"]
REPO = Path(__file__).resolve().parents[2]


def kh(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def broker_lines(status_output: str) -> dict[int, str]:
    return {
        int(m.group(1)): m.group(0)
        for m in re.finditer(r"^broker (\d+) .*$", status_output, flags=re.MULTILINE)
    }


def wait_until(condition, timeout_s: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return False


def test_up_status_faults_down(tmp_path: Path) -> None:
    directory = tmp_path / "cluster"
    up = kh("dev-cluster", "up", "--brokers", "3", "--dir", str(directory))
    try:
        assert up.returncode == 0, up.stderr
        status = kh("dev-cluster", "status", "--dir", str(directory))
        assert status.returncode == 0, status.stderr
        lines = broker_lines(status.stdout)
        assert sorted(lines) == [1, 2, 3]
        for broker_id, line in lines.items():
            assert "running" in line and " live " in line, line
            assert f"logs={directory.resolve()}/broker-{broker_id}/logs" in line

        cluster = LocalCluster.load(directory)
        for node in cluster.nodes:
            for name in ("server.log", "controller.log", "state-change.log"):
                assert (node.log_dir / name).exists(), name
        sizes = {n.broker_id: n.gc_log.stat().st_size for n in cluster.nodes}
        assert all(size > 0 for size in sizes.values())
        # The GC logs are being written: a forced collection appends to each.
        for node in cluster.nodes:
            subprocess.run(["jcmd", str(node.pid), "GC.run"], capture_output=True, check=True)
        assert wait_until(
            lambda: all(n.gc_log.stat().st_size > sizes[n.broker_id] for n in cluster.nodes)
        )

        # Fault injection through the CLI: kill, freeze, thaw, start again.
        assert kh("dev-cluster", "kill", "2", "--dir", str(directory)).returncode == 0
        assert process_state(cluster.node(2).pid) == "stopped"
        assert kh("dev-cluster", "freeze", "3", "--dir", str(directory)).returncode == 0
        frozen = broker_lines(kh("dev-cluster", "status", "--dir", str(directory)).stdout)
        assert "frozen" in frozen[3] and "stopped" in frozen[2]
        assert kh("dev-cluster", "thaw", "3", "--dir", str(directory)).returncode == 0
        assert kh("dev-cluster", "start", "2", "--dir", str(directory)).returncode == 0
        assert wait_until(lambda: LocalCluster.load(directory).registered_broker_ids() == {1, 2, 3})
    finally:
        down = kh("dev-cluster", "down", "--dir", str(directory))
    assert down.returncode == 0, down.stderr
    assert not LocalCluster.load(directory).any_running()


def test_zookeeper_mode_runs_kafka_3_9_with_the_session_timeout(tmp_path: Path) -> None:
    directory = tmp_path / "zk"
    up = kh(
        "dev-cluster", "up", "--mode", "zookeeper", "--brokers", "1",
        "--zk-session-timeout-ms", "6000", "--dir", str(directory),
    )  # fmt: skip
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        assert "Kafka 3.9" in up.stdout
        cluster = LocalCluster.load(directory)
        assert cluster.zookeeper is not None
        assert cluster.registered_broker_ids() == {1}
        props = (Path(cluster.node(1).dir) / "server.properties").read_text()
        assert "zookeeper.session.timeout.ms=6000" in props
        server_log = (cluster.node(1).log_dir / "server.log").read_text()
        assert "zookeeper" in server_log.lower()
        running = find_cluster_processes(directory)
        assert running == {"broker-1": [cluster.node(1).pid], "zookeeper": [cluster.zookeeper.pid]}
    finally:
        down = kh("dev-cluster", "down", "--dir", str(directory))
    assert down.returncode == 0, down.stderr
    assert find_cluster_processes(directory) == {}


def processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, command line)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            args = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        found[int(stat.parent.name)] = (parent, args.strip())
    return found


def descendants(root: int) -> dict[int, str]:
    """The processes under ``root`` (children, their children...): pid -> command line."""
    table = processes()
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, args) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = args
                frontier.append(pid)
    return found


STATUS_LINE = re.compile(r"^\d\d:\d\d:\d\d brokers .*$", flags=re.MULTILINE)
NOISE = ("WARN", "Traceback", "Exception", "\tat ", "Python worker", "py4j", "log4j")


@pytest.mark.timeout(900)
def test_demo_tells_the_story_and_sends_spark_to_a_log_file(tmp_path: Path) -> None:
    """The console shows the cluster and short status lines (a value Spark computed once the
    job serves it, ``?`` before), none of Spark's, Python workers' or Kafka clients' output,
    which goes to log files under the demo folder; Ctrl-C stops every process the demo
    started, Spark's JVM and the brokers included."""
    directory = tmp_path / "demo"
    process = subprocess.Popen(
        [*CLI, "demo", "--dir", str(directory), "--interval", "10", "--duration", "600"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    output: list[str] = []
    started: dict[int, str] = {}
    try:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if re.search(r"\| canary \d", line):  # the job's value reached the console
                started = descendants(process.pid)
                break
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=240)
        output.append(rest)
    finally:
        if process.poll() is None:
            process.kill()
    text = "".join(output)
    assert started, f"no status line with the canary's availability:\n{text[-3000:]}"
    assert process.returncode == 0, text[-3000:]
    assert len(broker_lines(text)) == 3, text
    status = STATUS_LINE.findall(text)
    assert status and all(len(line) <= 120 for line in status), status
    assert "canary ? |" in status[0], "before the job serves its values they are unknown"
    assert re.search(r"brokers 1,2,3 up \| canary \d+\.\d% \| ", text), text
    for noise in NOISE:
        assert noise not in text, f"{noise!r} on the console:\n{text}"
    logs = directory.resolve() / "logs"
    assert text.count(str(logs)) == 1, "the console says once where the logs are"
    run_log = (logs / "run.log").read_text()
    assert "Using incubator modules" in run_log, "the Spark JVM's output is in run.log"
    assert "kafka-health job on" in run_log
    assert (logs / "canary.log").exists() and (logs / "ship-logs.log").exists()
    assert "Ctrl-C: stopping" in text and "demo stopped" in text

    javas = {pid: args for pid, args in started.items() if args.split(" ", 1)[0].endswith("java")}
    assert len(javas) >= 4, f"3 brokers and Spark's JVM under the demo: {started}"
    now = processes()
    # An empty command line is a process that has exited and awaits reaping (a zombie), not
    # one that outlived the demo (seen once as `{pid: ''}` in a clean-clone run).
    left = {pid: args for pid, args in started.items() if args and now.get(pid, (0, ""))[1] == args}
    assert not left, f"outlived the demo: {left}"
    assert not [args for _, args in now.values() if str(directory.resolve()) in args]
    assert not LocalCluster.load(directory).any_running()


def test_check_config_names_a_misspelt_key(tmp_path: Path) -> None:
    config = tmp_path / "monitor.yaml"
    config.write_text("kafka:\n  bootstrap_server: [localhost:9092]\n")
    result = kh("check-config", str(config), timeout=60)
    assert result.returncode == 2
    assert "kafka.bootstrap_server: unknown key" in result.stderr


def test_check_config_prints_the_effective_config_redacted(tmp_path: Path) -> None:
    config = tmp_path / "monitor.yaml"
    config.write_text(
        "kafka:\n  client:\n    security_protocol: SASL_SSL\n    sasl_mechanism: PLAIN\n"
        "    sasl_username: monitor\n    sasl_password: {env: KH_CHECK_PW}\n"
    )
    result = kh("check-config", str(config), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "sasl_password: <redacted> (env KH_CHECK_PW)" in result.stdout
    assert "shuffle_partitions: 4" in result.stdout
