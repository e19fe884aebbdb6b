"""Sub-commands of ``kafka-health``. Each module has NAME, HELP, add_arguments(p) and run(args)."""

from __future__ import annotations

from types import ModuleType

from kafka_health.commands import (
    alerts,
    canary,
    check_config,
    cluster_state,
    demo,
    dev_cluster,
    fetch_jars,
    parse,
    ship_logs,
    silence,
)

COMMANDS: list[ModuleType] = [
    check_config,
    dev_cluster,
    demo,
    fetch_jars,
    ship_logs,
    parse,
    canary,
    cluster_state,
    alerts,
    silence,
]
