"""The whole loop with a fake producer and a hand-moved clock: envelope, at-least-once
positions, the bounded buffer and the metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from tests.unit.shipper.shipper_fakes import FakeClock, FakeProducer, LogDir

from kafka_health.config import ShipperBrokerConfig, ShipperConfig, ShipperFileConfig
from kafka_health.shipper.metrics import ShipperMetrics
from kafka_health.shipper.service import Shipper

LINE = "[2026-11-22 10:00:00,{:03d}] INFO line {} (kafka.cluster.Partition)"


def config(logs: LogDir, tmp_path: Path, **changes: object) -> ShipperConfig:
    broker = ShipperBrokerConfig(
        broker_id="1",
        host="kafka-1.example",
        files=[ShipperFileConfig(kind="server", path=str(logs.path("server.log")))],
    )
    values: dict[str, object] = {
        "brokers": [broker],
        "positions_file": str(tmp_path / "positions.json"),
        "positions_interval_s": 0.0,
        "flush_timeout_s": 1.0,
        "rotated_grace_s": 1.0,
        **changes,
    }
    return ShipperConfig(**values)  # type: ignore[arg-type]


def make(
    logs: LogDir, tmp_path: Path, producer: FakeProducer, clock: FakeClock, **changes: object
) -> Shipper:
    return Shipper(
        config(logs, tmp_path, **changes), "logs", producer, clock=clock,
        wall_clock=lambda: 1795341600.2,
    )  # fmt: skip


def run(shipper: Shipper, producer: FakeProducer, clock: FakeClock, rounds: int = 4) -> None:
    for _ in range(rounds):
        shipper.step()
        producer.deliver()
        clock.advance(1.0)
    shipper.step()


def values(producer: FakeProducer) -> list[dict[str, object]]:
    return [json.loads(v) for _k, v in producer.delivered]


def test_the_record_is_the_documented_envelope(
    logs: LogDir, tmp_path: Path, producer: FakeProducer, clock: FakeClock
) -> None:
    trace = "java.lang.IllegalStateException: x"
    logs.write("server.log", LINE.format(1, 1), trace, LINE.format(2, 2))
    shipper = make(logs, tmp_path, producer, clock)
    run(shipper, producer, clock)
    inode = logs.path("server.log").stat().st_ino
    assert producer.delivered[0][0] == b"1", "the key is the broker id"
    assert values(producer)[0] == {
        "schema": "kafka-health/log/v1",
        "broker_id": "1",
        "host": "kafka-1.example",
        "kind": "server",
        "path": str(logs.path("server.log")),
        "offset": 0,
        "inode": inode,
        "message": LINE.format(1, 1) + "\n" + trace,
        "shipped_at": "2026-11-22T10:00:00.200Z",
    }
    assert values(producer)[1]["offset"] == len(LINE.format(1, 1)) + len(trace) + 2


def test_positions_move_only_after_acknowledgement(
    logs: LogDir, tmp_path: Path, producer: FakeProducer, clock: FakeClock
) -> None:
    logs.write("server.log", LINE.format(1, 1), LINE.format(2, 2))
    shipper = make(logs, tmp_path, producer, clock)
    for _ in range(3):
        shipper.step()
        clock.advance(1.0)
    assert len(producer.sent) == 2
    assert [p.offset for p in shipper.positions.load()] == [0], "sent is not acknowledged"
    producer.deliver()
    shipper.step()
    size = logs.path("server.log").stat().st_size
    assert [p.offset for p in shipper.positions.load()] == [size]


def test_a_restart_resends_only_what_was_not_acknowledged(
    logs: LogDir, tmp_path: Path, producer: FakeProducer, clock: FakeClock
) -> None:
    logs.write("server.log", *(LINE.format(i, i) for i in range(10)))
    shipper = make(logs, tmp_path, producer, clock)
    run(shipper, producer, clock)
    logs.write("server.log", *(LINE.format(i, i) for i in range(10, 15)))
    for _ in range(3):  # read and sent, never acknowledged: then the process dies
        shipper.step()
        clock.advance(1.0)
    again = FakeProducer()
    restarted = make(logs, tmp_path, again, clock)
    run(restarted, again, clock)
    assert [v["message"] for v in values(again)] == [LINE.format(i, i) for i in range(10, 15)]


def test_a_full_buffer_stops_reading_and_says_so(
    logs: LogDir,
    tmp_path: Path,
    producer: FakeProducer,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    logs.write("server.log", *(LINE.format(i, i) for i in range(50)))
    metrics = ShipperMetrics()
    shipper = Shipper(
        config(logs, tmp_path, buffer_max_entries=5, read_chunk_bytes=1, max_entry_bytes=1024),
        "logs", producer, metrics=metrics, clock=clock,
    )  # fmt: skip
    for _ in range(5):
        shipper.step()
        clock.advance(1.0)
    sample = metrics.registry.get_sample_value
    assert len(producer.sent) < 50
    assert sample("kafka_health_shipper_reading_paused") == 1
    assert sample("kafka_health_shipper_buffer_entries") == len(producer.sent)
    assert "buffer full" in caplog.text
    run(shipper, producer, clock, rounds=60)
    assert len(producer.delivered) == 50, "the files were the buffer: nothing lost"
    assert sample("kafka_health_shipper_reading_paused") == 0
    assert sample("kafka_health_shipper_buffer_entries") == 0


def test_metrics_follow_prometheus_naming_with_bounded_labels(
    logs: LogDir, tmp_path: Path, producer: FakeProducer, clock: FakeClock
) -> None:
    logs.write("server.log", LINE.format(1, 1))
    metrics = ShipperMetrics()
    shipper = Shipper(config(logs, tmp_path), "logs", producer, metrics=metrics, clock=clock)
    run(shipper, producer, clock)
    logs.write("server.log", LINE.format(2, 2))  # read, but its entry may not be complete yet
    shipper.step()
    text = generate_latest(metrics.registry).decode()
    labels = f'broker_id="1",file="{logs.path("server.log")}",kind="server"'
    for line in (
        f"kafka_health_shipper_entries_read_total{{{labels}}} 1.0",
        f"kafka_health_shipper_entries_sent_total{{{labels}}} 1.0",
        f"kafka_health_shipper_sent_bytes_total{{{labels}}} {len(LINE.format(1, 1))}.0",
        f"kafka_health_shipper_lag_bytes{{{labels}}} {len(LINE.format(2, 2)) + 1}.0",
        "kafka_health_shipper_buffer_entries 0.0",
        "kafka_health_shipper_buffer_limit_entries 10000.0",
    ):
        assert line in text
    assert "kafka_health_shipper_send_errors_total" in text.replace("# HELP ", "")
