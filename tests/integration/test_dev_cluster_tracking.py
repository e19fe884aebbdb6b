"""A ``LocalCluster`` held by one process (as the demo holds it) sees and stops brokers that
another shell started with ``kafka-health dev-cluster``, and ``down`` SIGKILLs a broker that
ignores SIGTERM once the bound has passed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.processes import ignores_sigterm
from tests.support.waiting import wait_for

from kafka_health.commands.dev_cluster import print_status
from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.devcluster.processes import find_cluster_processes

pytestmark = pytest.mark.integration

DOWN_BOUND_S = 15.0
"""A shorter SIGTERM bound than the default (30 s) keeps the test short; the path is the same."""


def kh(*args: str) -> subprocess.CompletedProcess[str]:
    """``kafka-health`` in a process of its own: another shell."""
    return subprocess.run(
        [sys.executable, "-m", "kafka_health.cli", *args],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def cluster_processes_listed(base: Path) -> list[str]:
    """Every process whose command line names the cluster folder (``ps``, not /proc parsing)."""
    listing = subprocess.run(
        ["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True
    ).stdout
    return [line for line in listing.splitlines() if str(base) in line and "java" in line]


@pytest.fixture(scope="module")
def holder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A 3-broker cluster and the object that started it (what a running demo holds)."""
    cache = Path(os.environ.get("KAFKA_HEALTH_CACHE", "~/.cache/kafka-health")).expanduser()
    spec = ClusterSpec(dir=tmp_path_factory.mktemp("tracked"), brokers=3, cache_dir=cache / "kafka")
    cluster = LocalCluster.create(spec).up()
    try:
        yield cluster
    finally:
        cluster.down(timeout_s=DOWN_BOUND_S)


def started_count(base: Path) -> int:
    """How often broker 2 has logged that it started (its registration outlives a kill).

    Counted over ``server.log`` and its hourly rollovers (``server.log.YYYY-MM-DD-HH``): a run
    that crosses the hour finds the earlier starts in the rolled file, not in ``server.log``."""
    logs = sorted((base / "broker-2" / "logs").glob("server.log*"))
    text = "".join(log.read_text("utf-8", errors="replace") for log in logs)
    return text.count("Transition from STARTING to STARTED")


def states(cluster: LocalCluster) -> dict[int, str]:
    return {s.broker_id: s.process for s in cluster.status()}


def test_a_broker_restarted_from_another_shell_is_seen_by_the_holder(
    holder: LocalCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = str(holder.spec.dir)
    old_pid = holder.node(3).pid
    assert kh("dev-cluster", "kill", "3", "--dir", directory).returncode == 0
    assert states(holder)[3] == "stopped"

    started = kh("dev-cluster", "start", "3", "--dir", directory)
    assert started.returncode == 0, started.stderr
    assert states(holder) == {1: "running", 2: "running", 3: "running"}
    new_pid = holder.node(3).pid
    assert new_pid is not None and new_pid != old_pid
    assert find_cluster_processes(holder.spec.dir)["broker-3"] == [new_pid]
    wait_for(lambda: holder.registered_broker_ids() == {1, 2, 3}, 60, "broker 3 registered")
    print_status(holder)  # the demo's periodic status print
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("broker 3 "))
    assert "running" in line and " live " in line, line


def test_down_stops_every_jvm_and_kills_one_that_ignores_sigterm(holder: LocalCluster) -> None:
    """Broker 2 is restarted by hand, unrecorded, in a JVM that ignores SIGTERM (inherited
    SIG_IGN, which the JVM keeps): ``down`` on the holder still finds it and SIGKILLs it."""
    base = holder.spec.dir.resolve()
    assert kh("dev-cluster", "kill", "2", "--dir", str(base)).returncode == 0
    started_before = started_count(base)
    with (base / "broker-2" / "stdout.log").open("ab") as out:
        stubborn = subprocess.Popen(
            holder.broker_command(2),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN),
        )
    try:
        wait_for(lambda: started_count(base) > started_before, 90, "broker 2 started again")
        assert ignores_sigterm(stubborn.pid)
        assert holder.refresh().node(2).pid == stubborn.pid  # found though nobody recorded it
        assert states(holder)[2] == "running"

        report = holder.down(timeout_s=DOWN_BOUND_S)

        # down() reaps the JVM (this process is its parent), so Popen sees no exit status.
        stubborn.wait(timeout=15)
        assert report.killed == [f"broker 2 (pid {stubborn.pid})"], report
        assert report.survivors == []
        assert any("broker 2" in line and "SIGKILL" in line for line in report.lines())
        assert cluster_processes_listed(base) == []
        assert not holder.any_running()
        assert all(n.pid is None for n in holder.nodes)
        assert not LocalCluster.load(base).any_running()
    finally:
        if stubborn.poll() is None:
            os.kill(stubborn.pid, signal.SIGKILL)
            stubborn.wait()
