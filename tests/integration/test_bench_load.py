"""``kafka-health bench load`` on a real broker: what it says it sent is in the topics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer, TopicPartition
from tests.support.job_support import create_topics, job_config

from kafka_health.config import MonitorConfig
from kafka_health.dev.loadgen.producer import LoadPlan, run_load
from kafka_health.dev.loadgen.traffic import ClusterShape, Traffic
from kafka_health.kafka_clients import python_client_options

pytestmark = pytest.mark.integration


def records_in(config: Any, topic: str) -> int:
    consumer = KafkaConsumer(**python_client_options(config.kafka))
    try:
        parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
        ends, starts = consumer.end_offsets(parts), consumer.beginning_offsets(parts)
        return sum(ends[p] - starts[p] for p in parts)
    finally:
        consumer.close()


def test_the_load_reaches_the_topics_at_its_rate_with_its_storm(
    kafka_cluster: Any, tmp_path: Path
) -> None:
    config = job_config(kafka_cluster, tmp_path)
    create_topics(config, partitions=2)
    plan = LoadPlan(rate=400, seconds=4, storm_every_s=4, storm_seconds=1, storm_factor=5,
                    canary_interval_s=1, snapshot_interval_s=2)  # fmt: skip
    shape = ClusterShape(brokers=6, partitions=120, topics=4)
    stats = run_load(config, Traffic(shape, config.topics, seed=3), plan)
    topics = config.topics
    assert stats.records[topics.broker_logs] == pytest.approx(3 * 400 + 1 * 2000, rel=0.1)
    assert stats.records[topics.cluster_state] in (2 * 127, 3 * 127)  # 120 + 6 + 1 each
    assert stats.records[topics.canary_results] >= 4 * 6
    for topic in (topics.broker_logs, topics.cluster_state, topics.canary_results):
        assert records_in(config, topic) == stats.records[topic], topic


def test_the_load_s_consumer_groups_are_what_the_job_s_poller_sees(local_cluster: Any) -> None:
    """``bench load --groups``: real groups on the monitored cluster, committed every second
    ``lag_s`` behind their partitions' ends, seen by the job's own poller as written. A private
    1-broker cluster: on the session's shared one, a later test's job would watch the groups."""
    import threading

    from kafka_health.consumer_groups.config import ConsumerGroupsConfig
    from kafka_health.consumer_groups.lag import LagTable
    from kafka_health.consumer_groups.poller import GroupsPoller
    from kafka_health.consumer_groups.source import AdminGroupsSource
    from kafka_health.dev.loadgen.group_traffic import (
        GROUP_PREFIX,
        TOPIC,
        GroupTrafficPlan,
        group_name,
        run_group_traffic,
    )  # fmt: skip

    config = MonitorConfig().with_bootstrap(local_cluster(brokers=1).bootstrap_servers)
    plan = GroupTrafficPlan(groups=3, partitions_per_group=2, lag_s=2.0)
    stop = threading.Event()
    stats: list[Any] = []

    def send() -> None:
        try:
            stats.append(run_group_traffic(config, plan, stop))
        except Exception as exc:  # the assertion below says what
            stats.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    try:
        groups_config = ConsumerGroupsConfig(interval_s=1.0, include=[f"{GROUP_PREFIX}.*"])
        poller = GroupsPoller(AdminGroupsSource(config.kafka, groups_config), LagTable(),
                              groups_config)  # fmt: skip
        seen: dict[str, Any] = {}
        for _ in range(30):
            stop.wait(1.0)
            observed = poller.poll_once()
            seen = {g.group: g for g in observed.groups}
            if len(seen) == 3 and all(
                len(g.partitions) == 2 and all((p.committed or 0) >= 3 for p in g.partitions)
                for g in seen.values()
            ):
                break
        poller.stop(5.0)
    finally:
        stop.set()
        sender.join(timeout=60)
    assert stats and not isinstance(stats[0], Exception), stats
    assert set(seen) == {group_name(n) for n in range(3)}, observed
    for n in range(3):
        group = seen[group_name(n)]
        assert group.members == 0 and group.error is None
        assert {(p.topic, p.partition) for p in group.partitions} == {
            (TOPIC, 2 * n),
            (TOPIC, 2 * n + 1),
        }
        for p in group.partitions:  # a record a second, committed 2 s behind: 1-4 behind
            assert p.committed is not None and p.log_end is not None
            assert 1 <= p.log_end - p.committed <= 4, (group.group, p)
    assert stats and stats[0].commit_failures == 0
    assert stats[0].commits >= 3 * 3 and stats[0].records >= 6 * 3
