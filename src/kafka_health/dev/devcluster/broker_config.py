"""A dev cluster broker's configuration: its ``server.properties`` and its JVM's options.

Each broker writes ``server.log``, ``controller.log``, ``state-change.log`` and a JVM GC log
(``-Xlog:gc*`` with time and uptime decorators, rotated) into its own folder.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from kafka_health.dev.devcluster.security import ListenerSecurity
from kafka_health.dev.devcluster.spec import ClusterSpec
from kafka_health.dev.devcluster.state import BrokerNode, ZooKeeperNode


def log_config_file(spec: ClusterSpec, name: str) -> Path:
    """The packaged log4j configuration ``name``, copied into the cluster's folder once."""
    target = spec.dir.resolve() / name
    if not target.exists():
        text = resources.files("kafka_health.dev.devcluster").joinpath(name).read_text("utf-8")
        target.write_text(text, encoding="utf-8")
    return target


def jvm_options(spec: ClusterSpec, node: BrokerNode) -> list[str]:
    """The broker JVM's heap, GC, GC log and logging options."""
    logging = (
        [f"-Dlog4j2.configurationFile={log_config_file(spec, 'log4j2.properties')}"]
        if spec.mode == "kraft"
        else [f"-Dlog4j.configuration=file:{log_config_file(spec, 'log4j.properties')}"]
    )
    return [
        f"-Xms{spec.heap}",
        f"-Xmx{spec.heap}",
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


def broker_properties(
    spec: ClusterSpec,
    nodes: list[BrokerNode],
    node: BrokerNode,
    zookeeper: ZooKeeperNode | None,
    security: ListenerSecurity | None,
) -> dict[str, str]:
    """``node``'s ``server.properties`` in a cluster of ``nodes``."""
    n = len(nodes)
    rf = str(min(3, n))
    props = {
        "log.dirs": ",".join([str(node.data_dir), *filter(None, [node.extra_log_dir])]),
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
    if spec.mode == "kraft":
        props.update(_kraft_properties(nodes, node))
    else:
        assert zookeeper is not None
        props.update(
            {
                "broker.id": str(node.broker_id),
                "zookeeper.connect": f"127.0.0.1:{zookeeper.port}",
                "zookeeper.session.timeout.ms": str(spec.zookeeper_session_timeout_ms),
            }
        )
    if security is not None and node.secure_port:
        _add_secure_listener(props, node, security)
    props.update(spec.broker_overrides)
    return props


def _kraft_properties(nodes: list[BrokerNode], node: BrokerNode) -> dict[str, str]:
    voters = ",".join(f"{x.broker_id}@127.0.0.1:{x.controller_port}" for x in nodes)
    return {
        "process.roles": "broker,controller",
        "node.id": str(node.broker_id),
        "controller.quorum.voters": voters,
        "listeners": (
            f"PLAINTEXT://127.0.0.1:{node.port},CONTROLLER://127.0.0.1:{node.controller_port}"
        ),
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    }


def _add_secure_listener(
    props: dict[str, str], node: BrokerNode, security: ListenerSecurity
) -> None:
    listener = security.listener
    props["listeners"] += f",{listener}://127.0.0.1:{node.secure_port}"
    props["advertised.listeners"] = (
        f"PLAINTEXT://127.0.0.1:{node.port},{listener}://127.0.0.1:{node.secure_port}"
    )
    props["inter.broker.listener.name"] = "PLAINTEXT"
    props.pop("security.inter.broker.protocol", None)
    protocols = props.get("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT")
    props["listener.security.protocol.map"] = f"{protocols},{listener}:{listener}"
    props.update(security.broker_properties())


def write_broker_config(node: BrokerNode, properties: dict[str, str]) -> None:
    """Write ``server.properties`` into the broker's folder (made with its log folder)."""
    Path(node.dir).mkdir(parents=True, exist_ok=True)
    node.log_dir.mkdir(parents=True, exist_ok=True)
    lines = [f"{k}={v}" for k, v in properties.items()]
    (Path(node.dir) / "server.properties").write_text("\n".join(lines) + "\n", "utf-8")
