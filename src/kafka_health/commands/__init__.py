"""Sub-commands of ``kafka-health``. Each module has NAME, HELP, add_arguments(p) and run(args)."""

from __future__ import annotations

from types import ModuleType

from kafka_health.commands import (
    alerts,
    bench,
    canary,
    check_config,
    cluster_state,
    connector_jars,
    demo,
    dev_cluster,
    fetch_jars,
    maintenance,
    parse,
    replay,
    run,
    ship_logs,
    silence,
)

COMMANDS: list[ModuleType] = [
    check_config,
    dev_cluster,
    demo,
    run,
    fetch_jars,
    connector_jars,
    ship_logs,
    parse,
    replay,
    canary,
    cluster_state,
    alerts,
    silence,
    maintenance,
    bench,
]
