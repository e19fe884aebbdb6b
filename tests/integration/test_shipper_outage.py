"""On a real cluster: with the topic's broker down for 30 s the shipper loses nothing; its
buffer metric rises to the bound (reading stops there) and drains when the broker is back."""

from __future__ import annotations

import signal
import sys
import time
import uuid
from pathlib import Path

import pytest
from tests.integration.shipper_support import (
    SyntheticLogs,
    TopicReader,
    create_topic,
    scrape,
    total,
    wait_until,
)

from kafka_health.config import MonitorConfig, ShipperBrokerConfig, ShipperFileConfig
from kafka_health.dev.devcluster.ports import free_ports
from kafka_health.dev.shipper_devcluster import start_shipper_process, with_shipper

pytestmark = pytest.mark.integration

KAFKA_HEALTH = [str(Path(sys.executable).parent / "kafka-health")]
DOWN_S = 30.0
BOUND = 300


def test_nothing_is_lost_while_the_brokers_are_down(local_cluster, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cluster = local_cluster(brokers=1)
    servers = cluster.bootstrap_servers
    topic = f"test_shipper_outage_{uuid.uuid4().hex[:8]}"
    create_topic(servers, topic, replication=1)
    logs = SyntheticLogs(tmp_path)
    (port,) = free_ports(1)
    base = MonitorConfig().with_bootstrap(servers)
    config = with_shipper(
        base,
        topic,
        brokers=[
            ShipperBrokerConfig(
                broker_id="1",
                host="kafka-1.example",
                files=[ShipperFileConfig(kind="server", path=str(tmp_path / "server.log"))],
            )
        ],
        positions_file=str(tmp_path / "positions.json"),
        buffer_max_entries=BOUND,
        poll_interval_s=0.1,
        flush_timeout_s=0.5,
        retry_backoff_s=0.2,
        retry_backoff_max_s=2.0,
        metrics_host="127.0.0.1",
        metrics_port=port,
    )
    logs.write("server.log", 100)
    shipper = start_shipper_process(config, tmp_path, command=KAFKA_HEALTH)
    reader = TopicReader(servers, topic)
    sent = "kafka_health_shipper_entries_sent_total"
    try:
        assert wait_until(lambda: _metric(port, sent) >= 100, 60), _tail(tmp_path)

        cluster.stop_broker(1)
        down_since = time.monotonic()
        buffer_seen: list[float] = []
        paused_seen = False
        while time.monotonic() - down_since < DOWN_S:
            logs.write("server.log", 20)
            metrics = scrape(port)
            buffer_seen.append(metrics["kafka_health_shipper_buffer_entries"])
            paused_seen |= metrics["kafka_health_shipper_reading_paused"] == 1
            time.sleep(0.5)
        cluster.start_broker(1)

        written_entries = _entries(logs)
        assert wait_until(
            lambda: (
                _metric(port, sent) >= written_entries
                and _metric(port, "kafka_health_shipper_buffer_entries") == 0
            ),
            120,
        ), _tail(tmp_path)
        assert max(buffer_seen) >= BOUND, f"the buffer did not rise to its bound: {buffer_seen}"
        assert paused_seen, "reading did not pause at the bound"
        errors = total(scrape(port), "kafka_health_shipper_send_errors_total")
        shipper.send_signal(signal.SIGTERM)
        assert shipper.wait(60) == 0

        expected = set(logs.written)

        def all_read() -> bool:
            reader.poll()
            return expected <= set(reader.lines())

        assert wait_until(all_read, 60)
        found = reader.lines()
        assert set(found) == expected
        duplicated = sum(1 for n in found.values() if n > 1)
        print(f"{len(expected)} lines, {max(buffer_seen):.0f} max buffered, "
              f"{errors:.0f} send errors, {duplicated} lines twice")  # fmt: skip
        assert duplicated <= errors, "only a record re-sent after an error may appear twice"
    finally:
        if shipper.poll() is None:
            shipper.kill()
            shipper.wait(10)
        reader.close()


def _metric(port: int, name: str) -> float:
    try:
        return total(scrape(port), name)
    except OSError:
        return -1.0


def _entries(logs: SyntheticLogs) -> int:
    """Entries written: lines that start one (stack-trace lines continue the entry above)."""
    return sum(1 for _i, _o, line in logs.written if line.startswith("["))


def _tail(tmp_path: Path) -> str:
    log = tmp_path / "shipper.log"
    return log.read_text()[-3000:] if log.exists() else "(no shipper log)"
