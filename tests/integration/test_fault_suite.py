"""The fault suite's CI-sized subset on real parts: one run each of broker-kill,
broker-freeze and rolling-restart under the whole monitor (ship-logs, canary and run as their
own processes, a real webhook receiver), plus a scenario that raises in the middle.

It fails when an expected page does not come within its scenario's bound, when an unexpected
or duplicate page arrives, and when any process the bench started outlives it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kafka_health.faults.context import FaultContext
from kafka_health.faults.runner import BenchOptions, FaultBench, RunResult
from kafka_health.faults.scenarios import SCENARIOS, Scenario

pytestmark = [pytest.mark.integration, pytest.mark.spark]

CACHE = Path("~/.cache/kafka-health/kafka").expanduser()


def _kill_then_raise(ctx: FaultContext) -> None:
    ctx.cluster.kill_broker(2)
    raise RuntimeError("a scenario that fails half-way")


RAISES = Scenario("raises", "kill broker 2, then fail", (2,), ("BrokerFailed",), _kill_then_raise)


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that mention ``text`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] != "Z" and text in cmdline:
            found.append(f"{entry.name}: {cmdline[:200]}")
    return found


def test_ci_subset_pages_in_bound_with_no_unexpected_or_duplicate_page(tmp_path: Path) -> None:
    scenarios = [SCENARIOS["broker-kill"], SCENARIOS["broker-freeze"], RAISES,
                 SCENARIOS["rolling-restart"]]  # fmt: skip
    bench = FaultBench(BenchOptions(scenarios=scenarios, workdir=tmp_path, cache_dir=CACHE))
    pgids: list[int] = []
    original_close = bench.close

    def close_and_remember() -> None:
        if bench.monitor is not None:
            pgids.extend(bench.monitor.pids())
        original_close()

    bench.close = close_and_remember  # type: ignore[method-assign]
    results = {r.scenario: r for r in bench.run()}

    leftovers = processes_mentioning(str(tmp_path))
    in_groups = [
        p for p in Path("/proc").iterdir()
        if p.name.isdigit() and _pgid(p) in pgids
    ]  # fmt: skip
    assert leftovers == [] and in_groups == [], (leftovers, in_groups)

    raised = results["raises"]
    assert raised.error == "RuntimeError: a scenario that fails half-way"
    for name in ("broker-kill", "broker-freeze"):
        _assert_paged_cleanly(results[name])
    rolling = results["rolling-restart"]
    assert rolling.error is None
    assert rolling.alerts == [], "a rolling restart pages nobody"


def _assert_paged_cleanly(result: RunResult) -> None:
    summary = (result.scenario, result.error, result.latency_s, result.unexpected_pages,
               result.duplicate_details)  # fmt: skip
    assert result.error is None, summary
    assert result.latency_s is not None and not result.missed, summary
    assert result.unexpected_pages == [], summary
    assert result.duplicates == 0, summary
    assert result.resolved_after_s is not None, summary


def _pgid(proc: Path) -> int | None:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None
