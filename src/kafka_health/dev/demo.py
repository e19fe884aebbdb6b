"""The monitor's config for a demo cluster: ``kafka-health demo`` and the fault suite
(``faults.runner``) both run the whole monitor on a fresh local cluster with it."""

from __future__ import annotations

import dataclasses

from kafka_health.alerting.config import ReceiverConfig
from kafka_health.config import MonitorConfig
from kafka_health.consumer_groups.config import GroupObjective
from kafka_health.dev.devcluster import LocalCluster

KRAFT_BROKER_SESSION_TIMEOUT_MS = 9000
"""broker.session.timeout.ms, Kafka's default, which the dev cluster keeps."""

FAULT_SUITE_OBJECTIVE = GroupObjective(
    match="faultsuite-.*", lag_objective_s=20.0, severity="critical", labels={"team": "fault-suite"}
)
"""The fault suite's consumer groups (``consumer-stop``): a short objective, paged critical to
their owners' label, so a stopped group pages within a scenario's time."""


def demo_config(
    base: MonitorConfig,
    cluster: LocalCluster,
    pager_url: str,
    transport: LocalCluster | None = None,
) -> MonitorConfig:
    """The monitor's config for a fresh demo cluster: state under its folder, pages to the
    console pager, metrics on free ports, GC pauses judged against its brokers' session
    timeout; the monitor's own topics on ``transport`` when given (else on ``cluster``); the
    fault suite's consumer groups with their short objective (``FAULT_SUITE_OBJECTIVE``) before
    any the base config has."""
    home = cluster.spec.dir.resolve()
    config = base.with_bootstrap(cluster.bootstrap_servers)
    if transport is not None:
        config = config.with_transport(transport.bootstrap_servers)
    receiver = ReceiverConfig(name="console", url=pager_url, timeout_s=5.0)
    session_ms = (
        cluster.spec.zookeeper_session_timeout_ms
        if cluster.spec.mode == "zookeeper"
        else KRAFT_BROKER_SESSION_TIMEOUT_MS
    )
    return dataclasses.replace(
        config,
        spark=dataclasses.replace(config.spark, checkpoint_dir=str(home / "checkpoints")),
        job=dataclasses.replace(
            config.job, starting_offsets="earliest", session_timeout_ms=session_ms
        ),
        canary=dataclasses.replace(config.canary, state_dir=str(home / "canary"), metrics_port=0),
        alerting=dataclasses.replace(
            config.alerting,
            state_dir=str(home / "alerting"),
            receivers=[receiver],
            exporter=dataclasses.replace(config.alerting.exporter, port=0),
        ),
        consumer_groups=dataclasses.replace(
            config.consumer_groups,
            objectives=[FAULT_SUITE_OBJECTIVE, *config.consumer_groups.objectives],
        ),
    )
