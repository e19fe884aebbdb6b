"""A shipper for the local dev cluster's brokers, so the demo and the tests get broker logs in
Kafka without extra steps.

``shipper_config_for(cluster)`` lists every broker's server, controller, state-change,
log-cleaner and GC logs and points the producer at the cluster itself (or at a separate
transport cluster);
``start_shipper_thread`` runs it in this process, ``start_shipper_process`` as
``kafka-health ship-logs`` (which can be killed like a real agent).
"""

from __future__ import annotations

import dataclasses
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

from kafka_health.config import MonitorConfig
from kafka_health.dev.devcluster import LocalCluster
from kafka_health.services.shipper import run_shipper
from kafka_health.shipper.config import ShipperBrokerConfig, ShipperFileConfig, ShipperFileKind
from kafka_health.shipper.metrics import ShipperMetrics

BROKER_FILES: tuple[tuple[ShipperFileKind, str], ...] = (
    ("server", "server.log"),
    ("controller", "controller.log"),
    ("state-change", "state-change.log"),
    ("other", "log-cleaner.log"),
    ("gc", "gc.log"),
)


def shipper_config_for(
    cluster: LocalCluster,
    base: MonitorConfig | None = None,
    *,
    positions_file: Path | None = None,
    metrics_port: int | None = 0,
    host: str | None = None,
    transport: LocalCluster | None = None,
) -> MonitorConfig:
    """``base`` (default: built-in defaults) shipping every broker's logs to the cluster, or
    to ``transport`` (a separate cluster for the monitor's own topics) when given.

    Positions default to ``<cluster dir>/shipper/positions.json``; ``metrics_port`` 0 picks a
    free port, None turns the endpoint off.
    """
    base = base or MonitorConfig()
    brokers = [
        ShipperBrokerConfig(
            broker_id=str(node.broker_id),
            host=host or socket.gethostname(),
            files=[ShipperFileConfig(kind=k, path=str(node.log_dir / n)) for k, n in BROKER_FILES],
        )
        for node in cluster.nodes
    ]
    positions = positions_file or cluster.spec.dir.resolve() / "shipper" / "positions.json"
    shipper = dataclasses.replace(
        base.shipper, brokers=brokers, positions_file=str(positions), metrics_port=metrics_port
    )
    config = base.with_bootstrap(cluster.bootstrap_servers)
    if transport is not None:
        config = config.with_transport(transport.bootstrap_servers)
    return dataclasses.replace(config, shipper=shipper)


def with_shipper(config: MonitorConfig, topic: str | None = None, **changes: Any) -> MonitorConfig:
    """A copy of ``config`` with some ``shipper`` settings (and the log topic) changed."""
    if topic is not None:
        config = dataclasses.replace(
            config, topics=dataclasses.replace(config.topics, broker_logs=topic)
        )
    return dataclasses.replace(config, shipper=dataclasses.replace(config.shipper, **changes))


class BackgroundShipper:
    """A shipper running in a daemon thread of this process."""

    def __init__(self, config: MonitorConfig) -> None:
        self.config = config
        self.metrics = ShipperMetrics()
        self.metrics_port: int | None = None
        self._stop = threading.Event()
        self._port_known = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kafka-health-shipper", daemon=True)

    def start(self) -> BackgroundShipper:
        self._thread.start()
        if self.config.shipper.metrics_port is not None:
            self._port_known.wait(timeout=10.0)
        return self

    def stop(self, timeout_s: float = 20.0) -> None:
        """Deliver what was read, save positions and stop."""
        self._stop.set()
        self._thread.join(timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        run_shipper(self.config, self._stop, metrics=self.metrics, on_metrics_port=self._port)

    def _port(self, port: int) -> None:
        self.metrics_port = port
        self._port_known.set()


def start_shipper_thread(config: MonitorConfig) -> BackgroundShipper:
    """Run the shipper of ``config`` in a background thread; ``.stop()`` ends it cleanly."""
    return BackgroundShipper(config).start()


def write_config(config: MonitorConfig, path: Path) -> Path:
    """Write ``config`` as YAML that ``load_config`` reads back (secrets stay references)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(dataclasses.asdict(config), sort_keys=False), "utf-8")
    return path


def start_shipper_process(
    config: MonitorConfig, workdir: Path, *, command: list[str] | None = None
) -> subprocess.Popen[bytes]:
    """Run ``kafka-health ship-logs`` for ``config`` as a child process (log in workdir)."""
    config_path = write_config(config, workdir / "shipper.yaml")
    command = command or [sys.executable, "-m", "kafka_health.cli"]
    with (workdir / "shipper.log").open("ab") as out:
        return subprocess.Popen(
            [*command, "ship-logs", "--config", str(config_path)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
