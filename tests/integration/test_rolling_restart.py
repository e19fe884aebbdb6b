"""A rolling restart of the local 3-broker cluster, under the whole monitor, pages nobody.

Real parts end to end: brokers writing real logs, the shipper, the canary and prober, the
streaming job on Spark, the alert service and a real webhook receiver (the demo's pager).
Each broker is stopped cleanly (it logs its controlled shutdown: maintenance) and started
again, one after the other, waiting for its partitions to be back in sync.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from tests.waiting import wait_for

from kafka_health.commands.demo import demo_config, start_monitor
from kafka_health.commands.demo_pager import ConsolePager
from kafka_health.config import MonitorConfig
from kafka_health.model import labels

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def all_in_sync(config: MonitorConfig) -> bool:
    """Every partition of every topic has its full replica set in sync (AdminClient)."""
    from kafka import KafkaAdminClient

    from kafka_health.kafka_clients import python_client_options

    admin = KafkaAdminClient(**python_client_options(config.kafka))
    try:
        return all(
            len(p["isr_nodes"]) == len(p["replica_nodes"])
            for t in admin.describe_topics()
            for p in t["partitions"]
        )
    except Exception:
        return False
    finally:
        admin.close()


def test_a_rolling_restart_pages_nobody(local_cluster: Any, spark: Any) -> None:
    cluster = local_cluster(brokers=3)
    pager = ConsolePager()
    stack: list[Any] = []
    try:
        base = MonitorConfig()
        job = start_monitor(base, cluster, stack, pager=pager)
        config = demo_config(base, cluster, pager.url)

        def signal(name: str, scope: Any = None) -> float | None:
            found = [s for s in job.signals() if s.name == name and s.labels == (scope or labels())]
            return found[0].value if found else None

        wait_for(
            lambda: signal("canary_availability_ratio") == 1.0,
            240,
            "a healthy baseline",
            poll_s=1.0,
        )
        for broker in (1, 2, 3):
            cluster.restart_broker(broker)
            # As an operator would: the next broker only once every partition is in sync
            # again (the cluster's own answer), then once the monitor has seen it too.
            wait_for(
                lambda: all_in_sync(config),
                180,
                f"broker {broker}'s partitions in sync",
                poll_s=1.0,
            )
            time.sleep(config.cluster_state.interval_s + config.job.trigger_interval_s)
            wait_for(
                lambda: signal("under_replicated_partitions") == 0,
                120,
                "the monitor to agree",
                poll_s=1.0,
            )
        # Long enough for every `for` duration of the rules that could fire (120 s at most).
        time.sleep(150)
        assert signal("canary_lost_writes") is None, "no acknowledged write was lost"
        firing = [a for a in pager.alerts if a.get("status") == "firing"]
        assert firing == [], f"paged during a rolling restart: {firing}"
        assert config.alerting.receivers[0].url == pager.url

    finally:
        for stop in reversed(stack):
            stop()
