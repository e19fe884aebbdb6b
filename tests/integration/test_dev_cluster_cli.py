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

from kafka_health.devcluster import LocalCluster
from kafka_health.devcluster.cluster import process_state
from kafka_health.devcluster.processes import find_cluster_processes

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


def test_demo_runs_the_whole_pipeline_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    """Cluster, shipper, canary, job and alerts: the canary's availability reaches the
    console through Spark; Ctrl-C stops every part and every broker."""
    directory = tmp_path / "demo"
    process = subprocess.Popen(
        [*CLI, "demo", "--dir", str(directory), "--interval", "5"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    output: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if line.startswith("signals: canary availability"):
                break
        text = "".join(output)
        assert len(broker_lines(text)) == 3, text
        for part in ("log shipper:", "canary: probing", "alerts and signals: http://"):
            assert part in text, part
        assert "signals: canary availability 100.0%" in text, text[-3000:]
        assert "PAGE [firing]" not in text, "a healthy cluster pages nobody"
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=90)
        output.append(rest)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, "".join(output)
    assert "demo cluster stopped" in "".join(output)
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
