"""What a fault scenario acts on: the cluster, the receiver, the monitor's processes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.process_control import process_state
from kafka_health.dev.faults.monitor import MonitorProcesses
from kafka_health.dev.faults.receiver import Page, RecordingReceiver

DEFAULT_BOUND_S = 180.0
"""Seconds from the injection within which the expected page must come (today's monitor)."""


@dataclass
class FaultContext:
    """Handles a scenario needs; ``notes`` collects what it observed, for the report."""

    cluster: LocalCluster
    receiver: RecordingReceiver
    monitor: MonitorProcesses | None
    config_file: Path
    workdir: Path
    say: Callable[[str], None] = print
    transport: LocalCluster | None = None
    """The cluster of the monitor's own topics (None: the single-cluster layout)."""
    notes: dict[str, Any] = field(default_factory=dict)
    handles: dict[str, Any] = field(default_factory=dict)
    """Live objects a scenario's steps share (its producer and consumers): not reported."""
    wrong: list[str] = field(default_factory=list)
    """What the scenario's ground truth found wrong with the monitor's pages or figures (a
    page before its condition held or too long after it, a count that disagrees): the run
    fails with it (``RunResult.wrong``)."""
    targets: tuple[int, ...] | None = None
    """The brokers the fault touched, when the scenario chooses them at its injection (the
    active controller); None: the scenario's own ``targets``."""
    injected_at: float = 0.0
    metrics_port: int = 0
    """The job's /metrics (the alert service's exporter) on 127.0.0.1 (0: not known)."""

    def wait_for_page(
        self, accept: Callable[[Page], bool], timeout_s: float, poll_s: float = 0.2
    ) -> Page | None:
        """The first page since the injection that ``accept``s, waiting up to ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            for page in self.receiver.pages_since(self.injected_at):
                if accept(page):
                    return page
            if time.monotonic() >= deadline:
                return None
            time.sleep(poll_s)

    def wait_for_firing(self, timeout_s: float) -> Page | None:
        return self.wait_for_page(lambda p: p.status == "firing", timeout_s)

    def start_brokers(self, broker_ids: list[int], timeout_s: float = 120.0) -> None:
        """Start the brokers (any that already run are left alone) and wait for all."""
        self.cluster.refresh()
        for broker_id in broker_ids:
            if process_state(self.cluster.node(broker_id).pid) == "stopped":
                self.cluster.start_broker(broker_id, wait=False)
        self.cluster.wait_until_registered(len(self.cluster.nodes), timeout_s)


Action = Callable[[FaultContext], None]
"""What a scenario does at one of its steps (inject, undo, prepare, ...)."""
