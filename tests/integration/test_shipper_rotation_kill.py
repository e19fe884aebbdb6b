"""On a real cluster: the brokers' own logs arrive in the topic, and every line of each file
is in the topic exactly once after two rotations of server.log, one GC log rotation and a
SIGKILL of the shipper in the middle (duplicates only for entries not yet acknowledged)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from tests.integration.shipper_support import (
    SyntheticLogs,
    TopicReader,
    create_topic,
    saved_offsets,
    wait_until,
)

from kafka_health.config import MonitorConfig, ShipperBrokerConfig, ShipperFileConfig
from kafka_health.dev.shipper_devcluster import (
    shipper_config_for,
    start_shipper_process,
    with_shipper,
)

pytestmark = pytest.mark.integration

KAFKA_HEALTH = [str(Path(sys.executable).parent / "kafka-health")]


def test_every_line_once_through_rotations_and_a_kill(kafka_cluster, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    topic = f"test_shipper_logs_{uuid.uuid4().hex[:8]}"
    servers = kafka_cluster.bootstrap_servers
    create_topic(servers, topic, replication=min(3, len(servers)))
    synthetic_dir = tmp_path / "synthetic-broker"
    synthetic_dir.mkdir()
    logs = SyntheticLogs(synthetic_dir)
    synthetic = ShipperBrokerConfig(
        broker_id="99",
        host="kafka-99.example",
        files=[
            ShipperFileConfig(kind="server", path=str(synthetic_dir / "server.log")),
            ShipperFileConfig(kind="gc", path=str(synthetic_dir / "gc.log")),
        ],
    )
    base = MonitorConfig().with_bootstrap(servers)
    if kafka_cluster.local is not None:  # the brokers' real logs too
        base = shipper_config_for(kafka_cluster.local, base)
    positions = tmp_path / "positions.json"
    config = with_shipper(
        base,
        topic,
        brokers=[*base.shipper.brokers, synthetic],
        positions_file=str(positions),
        positions_interval_s=0.0,
        poll_interval_s=0.1,
        flush_timeout_s=0.5,
        rotated_grace_s=1.0,
        metrics_port=None,
    )

    logs.write("server.log", 200)
    logs.write("gc.log", 100)
    shipper = start_shipper_process(config, tmp_path, command=KAFKA_HEALTH)
    reader = TopicReader(servers, topic)
    try:
        # running (it acknowledged some of server.log): the first rotation, lines on both sides
        first_server = (synthetic_dir / "server.log").stat().st_ino
        assert wait_until(lambda: saved_offsets(positions).get(first_server, 0) > 0, 60), _tail(
            tmp_path
        )
        logs.write("server.log", 100)
        logs.rotate("server.log", "server.log.2026-11-22-10")
        logs.write("server.log", 100)
        new_server = (synthetic_dir / "server.log").stat().st_ino
        assert wait_until(lambda: saved_offsets(positions).get(new_server, 0) > 0, 60), (
            "the shipper acknowledged nothing of the new server.log: " + _tail(tmp_path)
        )

        # SIGKILL while a writer keeps the shipper busy, so some entries are in flight
        stop_writing = threading.Event()

        def keep_writing() -> None:
            while not stop_writing.is_set():
                logs.write("server.log", 20)
                stop_writing.wait(0.01)

        writer = threading.Thread(target=keep_writing)
        writer.start()
        wait_until(lambda: len(logs.written) > 1500, 30, poll_s=0.05)
        shipper.send_signal(signal.SIGKILL)
        shipper.wait(30)
        stop_writing.set()
        writer.join()
        at_kill = saved_offsets(positions)

        # down: more lines, and the GC log rotates (gc.log -> gc.log.0)
        logs.write("server.log", 50)
        logs.write("gc.log", 50)
        logs.rotate("gc.log", "gc.log.0")
        logs.write("gc.log", 50)

        # restarted: the second rotation of server.log
        shipper = start_shipper_process(config, tmp_path, command=KAFKA_HEALTH)
        assert wait_until(lambda: saved_offsets(positions)[new_server] > at_kill[new_server], 60)
        logs.write("server.log", 100)
        logs.rotate("server.log", "server.log.2026-11-22-11")
        logs.write("server.log", 100)

        expected = set(logs.written)
        inodes = {ino for ino, _o, _l in expected}

        def all_arrived() -> bool:
            reader.poll()
            return expected <= set(reader.lines(inodes))

        assert wait_until(all_arrived, 120, poll_s=0.1), _missing(
            expected - set(reader.lines(inodes)), at_kill, tmp_path
        )
        shipper.send_signal(signal.SIGTERM)
        assert shipper.wait(60) == 0
        reader.poll()

        found = reader.lines(inodes)
        assert set(found) == expected, "a line in the topic that no file holds"
        duplicated = {k: n for k, n in found.items() if n > 1}
        early = [k for k in duplicated if k[1] < at_kill.get(k[0], 0)]
        print(f"{len(expected)} synthetic lines; {len(duplicated)} sent twice (at the kill)")
        assert early == [], "a line acknowledged before the kill was sent again"
        _check_real_logs(kafka_cluster, reader, at_kill, positions)
    finally:
        if shipper.poll() is None:
            shipper.kill()
            shipper.wait(10)
        reader.close()


def _check_real_logs(kafka_cluster, reader: TopicReader, at_kill, positions: Path) -> None:  # type: ignore[no-untyped-def]
    """Each broker's server.log arrived; each real file's acknowledged part arrived whole."""
    if kafka_cluster.local is None:
        pytest.skip("the cluster is not local: its broker logs cannot be read")
    by_broker = {r["broker_id"] for r in reader.records if r["kind"] == "server"}
    assert {str(n.broker_id) for n in kafka_cluster.local.nodes} <= by_broker
    found = reader.lines()
    final = saved_offsets(positions)
    for node in kafka_cluster.local.nodes:
        for name in ("server.log", "controller.log", "gc.log"):
            path = node.log_dir / name
            data = path.read_bytes()
            ino = path.stat().st_ino
            end = final.get(ino, 0)
            offset = 0
            for raw in data[:end].split(b"\n")[:-1]:
                line = raw.decode("utf-8", errors="replace")
                count = found.get((ino, offset, line), 0)
                assert count >= 1, f"{path} line at {offset} missing"
                assert count == 1 or offset >= at_kill.get(ino, 0), f"{path} {offset} twice"
                offset += len(raw) + 1


def _missing(missing: set[tuple[int, int, str]], at_kill: dict[int, int], tmp_path: Path) -> str:
    by_inode: dict[int, list[int]] = {}
    for ino, offset, _line in missing:
        by_inode.setdefault(ino, []).append(offset)
    summary = {i: (len(o), min(o), max(o)) for i, o in by_inode.items()}
    return f"missing (count, first, last offset) by inode {summary}; at kill {at_kill}; " + _tail(
        tmp_path
    )


def _tail(tmp_path: Path) -> str:
    log = tmp_path / "shipper.log"
    return log.read_text()[-3000:] if log.exists() else "(no shipper log)"


__all__ = ["subprocess"]
