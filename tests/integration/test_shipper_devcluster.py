"""The dev cluster starts a shipper for its own brokers: their logs arrive without extra steps."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tests.integration.shipper_support import TopicReader, wait_until

from kafka_health.dev.shipper_devcluster import (
    shipper_config_for,
    start_shipper_thread,
    with_shipper,
)

pytestmark = pytest.mark.integration


def test_a_background_shipper_ships_every_brokers_logs(kafka_cluster, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    if kafka_cluster.local is None:
        pytest.skip("the cluster is not local: no broker log files to ship")
    topic = f"test_shipper_dev_{uuid.uuid4().hex[:8]}"
    config = with_shipper(
        shipper_config_for(kafka_cluster.local, positions_file=tmp_path / "positions.json"),
        topic,
        poll_interval_s=0.1,
    )
    shipper = start_shipper_thread(config)
    reader = TopicReader(kafka_cluster.bootstrap_servers, topic)
    wanted = {
        (str(n.broker_id), kind) for n in kafka_cluster.local.nodes for kind in ("server", "gc")
    }
    try:
        assert shipper.metrics_port is not None, "metrics_port 0 picks a free port"

        def arrived() -> bool:
            reader.poll()
            return wanted <= {(r["broker_id"], r["kind"]) for r in reader.records}

        assert wait_until(arrived, 60)
        assert set(reader.keys) == {str(n.broker_id).encode() for n in kafka_cluster.local.nodes}
    finally:
        shipper.stop()
        reader.close()
    assert not shipper.alive
    assert (tmp_path / "positions.json").exists(), "positions are saved on stop"
