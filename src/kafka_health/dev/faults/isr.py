"""How replicated the cluster is right now, from its own metadata (an admin client)."""

from __future__ import annotations

import time

from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.process_control import process_state


def under_replicated_count(cluster: LocalCluster, timeout_s: float = 10.0) -> int | None:
    """Partitions whose ISR is smaller than their replica set; None when no broker answers."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    live = [n.bootstrap for n in cluster.nodes if process_state(n.pid) == "running"]
    if not live:
        return None
    try:
        admin = KafkaAdminClient(
            bootstrap_servers=live,
            request_timeout_ms=int(timeout_s * 1000),
            client_id="kafka-health-faults",
        )
    except (KafkaError, OSError, ValueError):
        return None
    try:
        return sum(
            1
            for topic in admin.describe_topics()
            for p in topic["partitions"]
            if len(p["isr_nodes"]) < len(p["replica_nodes"])
        )
    except (KafkaError, OSError, ValueError, KeyError):
        return None
    finally:
        admin.close()


def wait_fully_replicated(cluster: LocalCluster, timeout_s: float) -> float:
    """Block until no partition is under-replicated; return the seconds it took."""
    started = time.monotonic()
    while under_replicated_count(cluster) != 0:
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(f"partitions still under-replicated after {timeout_s:.0f} s")
        time.sleep(1.0)
    return round(time.monotonic() - started, 1)
