"""What one mode of dev cluster needs besides its brokers: KRaft formats each broker's
storage first; ZooKeeper mode runs a ZooKeeper server."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kafka_health.dev.devcluster.broker_config import log_config_file
from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.dev.devcluster.process_control import java_executable, spawn_detached
from kafka_health.dev.devcluster.security import ListenerSecurity
from kafka_health.dev.devcluster.spec import ClusterSpec
from kafka_health.dev.devcluster.state import BrokerNode, ZooKeeperNode


def format_storage(
    spec: ClusterSpec,
    libs: Path,
    cluster_id: str,
    node: BrokerNode,
    security: ListenerSecurity | None,
) -> None:
    """KRaft: format the broker's storage for ``cluster_id`` (with SCRAM credentials)."""
    command = [
        java_executable(), "-Xmx128m", "-XX:TieredStopAtLevel=1",
        f"-Dlog4j2.configurationFile={log_config_file(spec, 'log4j2.properties')}",
        f"-Dkafka.logs.dir={node.log_dir}",
        "-cp", str(libs / "*"), "kafka.tools.StorageTool", "format",
        f"--cluster-id={cluster_id}",
        "--config", str(Path(node.dir) / "server.properties"),
        "--ignore-formatted",
        *(security.format_arguments() if security is not None else []),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise DevClusterError(
            f"formatting broker {node.broker_id}'s storage failed:\n"
            + (result.stdout + result.stderr)[-2000:]
        )


def start_zookeeper(spec: ClusterSpec, libs: Path, zk: ZooKeeperNode) -> int:
    """Write ``zoo.cfg`` and start the ZooKeeper server detached; returns its pid."""
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
        java_executable(), "-Xmx128m", "-XX:TieredStopAtLevel=1",
        f"-Dlog4j.configuration=file:{log_config_file(spec, 'log4j.properties')}",
        f"-Dkafka.logs.dir={base / 'logs'}",
        "-cp", str(libs / "*"),
        "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(config),
    ]  # fmt: skip
    return spawn_detached(command, base / "stdout.log")
