"""The fault suite's CI-sized subset on real parts, in both layouts, under the whole monitor
(ship-logs, canary and run as their own processes, a real webhook receiver):

- the transport layout (the monitor's own topics on a cluster of their own): a scenario that
  raises at its injection, then one run each of broker-kill, broker-freeze, monitor-kills (the
  job SIGKILLed ten times during an incident) and disk-full (a broker's log directory on a small
  tmpfs, filled until Kafka takes it offline; last, as its broker's two restarts hold back the
  next steady state by a minute and a half);
- the single layout (the default deployment: the monitor's topics on the monitored cluster,
  where the faulty broker leads some of them): controller-kill (the KRaft quorum's active
  controller, a combined node, SIGKILLed: the broker-kill of this layout, and the quorum's
  failover), consumer-stop (a consumer group stopped while its topic is written) and
  rolling-restart.

Two bench runs, judged by the tests below.

They fail when an expected page does not come within its scenario's bound, when an
unexpected or a duplicate page arrives, when the rolling restart pages, and when any process
the bench started outlives it.
"""

from __future__ import annotations

import os
import re
import time
from datetime import datetime
from pathlib import Path

import pytest

from kafka_health.dev.faults.actions_consumers import GROUP, OBJECTIVE_S
from kafka_health.dev.faults.actions_controllers import QUORUM_ALERTS
from kafka_health.dev.faults.actions_disks import DISK_BROKER
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.report import summarize, table, write_json
from kafka_health.dev.faults.runner import BenchOptions, FaultBench, RunResult
from kafka_health.dev.faults.scenarios import SCENARIOS, Scenario
from kafka_health.logs import REPEAT_WINDOW_S, REPEATS_NOTE, is_library, text_shape

pytestmark = [pytest.mark.integration, pytest.mark.spark, pytest.mark.timeout(2400)]
"""The first test runs the whole bench (its module fixture): minutes, not seconds."""

CACHE = Path("~/.cache/kafka-health/kafka").expanduser()


def _raise(ctx: FaultContext) -> None:
    raise RuntimeError("a scenario that fails half-way")


# It fails before touching the cluster: a broken cluster's restoration is the kill's to show,
# and a killed broker would cost the next run a minute of elections settling (CI time).
RAISES = Scenario("raises", "fail at injection", (2,), ("BrokerFailed",), _raise)


class BenchRun:
    """The subset's results and what was left running afterwards."""

    def __init__(
        self, results: dict[str, RunResult], leftovers: list[str], workdir: Path | None = None
    ) -> None:
        self.results = results
        self.leftovers = leftovers
        self.workdir = workdir


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory: pytest.TempPathFactory) -> BenchRun:
    """The transport layout's runs."""
    scenarios = [RAISES, SCENARIOS["broker-kill"], SCENARIOS["broker-freeze"],
                 SCENARIOS["monitor-kills"], SCENARIOS["disk-full"]]  # fmt: skip
    return run_bench(tmp_path_factory.mktemp("faults"), scenarios, "transport")


@pytest.fixture(scope="module")
def single_run(bench_run: BenchRun, tmp_path_factory: pytest.TempPathFactory) -> BenchRun:
    """The single layout's runs (after the transport's: one cluster at a time)."""
    names = ("controller-kill", "consumer-stop", "rolling-restart")
    scenarios = [SCENARIOS[name] for name in names]
    return run_bench(tmp_path_factory.mktemp("faults-single"), scenarios, "single")


def run_bench(workdir: Path, scenarios: list[Scenario], layout: str) -> BenchRun:
    # calm_s 10: the steady state held 10 s (not 20) before each fault, to fit CI's time.
    log = workdir / "bench.log"

    def say(line: str) -> None:  # the bench's console, kept for a failed run's report
        print(line)
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{time.strftime('%H:%M:%S')} {line}\n")

    bench = FaultBench(
        BenchOptions(
            scenarios=scenarios, workdir=workdir, cache_dir=CACHE, calm_s=10.0, layout=layout
        ),
        say,
    )
    groups: list[int] = []
    close = bench.close

    def close_and_remember() -> None:
        if bench.monitor is not None:
            groups.extend(bench.monitor.pids())  # each part leads its own process group
        close()

    bench.close = close_and_remember  # type: ignore[method-assign]
    runs = bench.run()
    write_json(workdir / "results.json", runs, {"mode": "kraft", "layout": layout})
    print(table(summarize(runs)))  # shown with -s, and in the report when a test fails
    results = {r.scenario: r for r in runs}
    leftovers = processes_mentioning(str(workdir)) + processes_in_groups(groups)
    return BenchRun(results, leftovers, workdir)


def test_the_bench_leaves_no_process_and_records_a_failed_run(
    bench_run: BenchRun, single_run: BenchRun
) -> None:
    assert bench_run.leftovers == []
    assert single_run.leftovers == []
    raised = bench_run.results["raises"]
    assert raised.error == "RuntimeError: a scenario that fails half-way"
    assert raised.missed


@pytest.mark.parametrize("name", ["broker-kill", "broker-freeze"])
def test_the_fault_pages_within_its_bound_once(bench_run: BenchRun, name: str) -> None:
    result = bench_run.results[name]
    summary = (result.error, result.latency_s, result.alerts, result.duplicate_details)
    assert result.error is None, summary
    assert result.latency_s is not None and not result.missed, summary
    assert result.duplicates == 0, summary
    assert result.resolved_after_s is not None, summary


def test_a_frozen_broker_pages_while_frozen_and_its_incident_resolves(bench_run: BenchRun) -> None:
    """Issue 12: the page leaves while the broker is still stopped (SIGSTOP), and after
    SIGCONT the same incident (one group at the receiver) is resolved: every alert that fired
    in it resolved, the last after the thaw."""
    result = bench_run.results["broker-freeze"]
    summary = (result.error, result.latency_s, result.alerts)
    assert result.first_page_at is not None and result.undone_at is not None, summary
    assert result.first_page_at < result.undone_at, f"paged after the thaw: {summary}"
    first = next(a for a in result.alerts if a["status"] == "firing")
    incident = [a for a in result.alerts if a["group_key"] == first["group_key"]]
    fired = {a["alertname"] for a in incident if a["status"] == "firing"}
    resolved = {a["alertname"]: a["at"] for a in incident if a["status"] == "resolved"}
    # An alert of the incident may end before the thaw (the canary's writes succeed again once
    # the frozen broker is fenced and its partitions move); the incident ends after it.
    assert fired <= resolved.keys(), summary
    assert max(resolved.values()) > result.undone_at, summary


def test_ten_sigkills_of_the_job_lose_no_page_and_repeat_none(bench_run: BenchRun) -> None:
    """Issue 15: `kafka-health run` (Spark, the alert service and its outbox) SIGKILLed ten
    times at seeded random points while brokers 2 and 3 are down, started again each time.
    Every alert that fired was notified once (no duplicate by idempotency key) and resolved
    after the brokers came back; no page was unexpected."""
    result = bench_run.results["monitor-kills"]
    summary = (result.error, result.latency_s, result.alerts, result.duplicate_details)
    assert result.error is None, summary
    assert result.notes.get("paged_before_kill") is True, summary
    assert len(result.notes.get("job_killed_after_s", [])) == 10, result.notes
    # One cluster name, whether or not a start could ask the cluster its id (quorum lost): a
    # start named otherwise read other checkpoints and state, and resolved the pages.
    assert len(result.notes["checkpoint_clusters"]) == 1, result.notes
    assert not result.missed and result.latency_s is not None, summary
    assert result.duplicates == 0, summary
    assert result.unexpected_pages == [], result.unexpected_pages
    fired = {a["fingerprint"] for a in result.alerts if a["status"] == "firing"}
    resolved = {a["fingerprint"] for a in result.alerts if a["status"] == "resolved"}
    assert fired and fired <= resolved, summary
    assert result.resolved_after_s is not None, summary


def test_a_full_log_directory_pages_once_naming_the_broker_and_the_directory(
    bench_run: BenchRun,
) -> None:
    """Issue 60.4: broker 3's second log directory, a small tmpfs, filled until Kafka takes it
    offline: LogDirOffline names the broker and that directory, one incident, nothing else
    paged, and it resolves once the broker runs without the directory."""
    r = bench_run.results["disk-full"]
    summary = (r.error, r.latency_s, r.notes, r.alerts, r.unexpected_pages, r.duplicate_details)
    assert r.error is None and not r.missed and r.latency_s is not None, summary
    offline = [a for a in r.alerts if a["alertname"] == "LogDirOffline" and a["status"] == "firing"]
    assert offline and offline[0]["broker_id"] == str(DISK_BROKER), summary
    assert r.notes["offline_dir"] in offline[0]["details"], summary
    assert r.unexpected_pages == [] and r.duplicates == 0 and r.incidents == 1, summary
    assert r.resolved_after_s is not None, summary


def test_a_killed_active_controller_pages_its_broker_and_nothing_of_the_quorum(
    single_run: BenchRun,
) -> None:
    """Issue 60.5: SIGKILL the KRaft quorum's active controller (a combined node), down 15 s: a
    new leader is elected within the quorum's timeouts, so the page is the dead broker's
    (BrokerNotAnswering, then BrokerFailed as its cause), one incident, and no quorum alert."""
    r = single_run.results["controller-kill"]
    summary = (r.error, r.latency_s, r.notes, r.alerts, r.unexpected_pages, r.duplicate_details)
    assert r.error is None and not r.missed and r.latency_s is not None, summary
    victim = str(r.notes["active_controller"])
    first = next(a for a in r.alerts if a["status"] == "firing")
    assert first["broker_id"] == victim, summary
    assert r.notes.get("quorum_elected") and r.notes.get("recovered_within_timeouts"), summary
    assert r.notes["quorum_pages"] == [], summary
    assert not {a["alertname"] for a in r.alerts} & set(QUORUM_ALERTS), summary
    assert r.unexpected_pages == [] and r.duplicates == 0 and r.incidents == 1, summary


def test_a_rolling_restart_pages_nobody(single_run: BenchRun) -> None:
    rolling = single_run.results["rolling-restart"]
    assert rolling.error is None
    assert rolling.alerts == [], rolling.alerts


def test_in_the_single_layout_a_kill_pages_once_without_waiting_for_the_logs(
    single_run: BenchRun,
) -> None:
    """Issue 56.3: the killed broker (controller-kill's: the active controller, a combined
    node) leads partitions of the monitor's own log topic there, so the job's reads stall on
    them. The metadata's verdict at the first refused ping (a crash) is the evidence the page
    would otherwise wait for: the alert service never held the page for the logs (it logs each
    hold), and it came once, with nothing unexpected."""
    result = single_run.results["controller-kill"]
    summary = (result.error, result.latency_s, result.alerts, result.duplicate_details)
    assert result.error is None, summary
    assert result.latency_s is not None and not result.missed, summary
    assert result.duplicates == 0 and result.unexpected_pages == [], summary
    victim = str(result.notes["active_controller"])
    first = next(a for a in result.alerts if a["status"] == "firing")
    assert first["alertname"] == "BrokerNotAnswering" and first["broker_id"] == victim, summary
    assert single_run.workdir is not None
    run_log = (single_run.workdir / "monitor" / "run.log").read_text(errors="replace")
    assert f"of broker {victim} held: awaiting the broker logs" not in run_log


@pytest.mark.parametrize("name", ["broker-kill", "broker-freeze"])
def test_no_page_names_a_broker_the_fault_did_not_touch(bench_run: BenchRun, name: str) -> None:
    """No unexpected page: none about brokers 1 and 2 (their acks=all probes held back by the
    faulted follower are follower waits, their NotLeader refusals leadership moving), none of
    the monitor's own health. An xfail until the acks=1 attribution; clean in every run since."""
    result = bench_run.results[name]
    assert result.error is None
    assert result.unexpected_pages == [], result.unexpected_pages


LOG_LINE = re.compile(r"(?P<at>\S+ \S+) (?P<level>[A-Z]+) (?P<name>\S+): (?P<message>.*)")


def test_the_canarys_log_writes_a_library_message_once_a_minute(bench_run: BenchRun) -> None:
    """The canary's kafka-python lines through the faults (each broker down or frozen makes it
    log every refused connection and expired batch: 780 lines in one such run before): a
    message of the same shape is written again within the window only as the count of its
    repeats, and there were repeats to count."""
    assert bench_run.workdir is not None
    log = bench_run.workdir / "monitor" / "canary.log"
    last: dict[tuple[str, str, str], datetime] = {}
    counted = 0
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("canary metrics:"):  # the canary (re)started
            last = {}
        parts = LOG_LINE.fullmatch(line)
        if parts is None or not is_library(parts["name"]):
            continue
        note = REPEATS_NOTE.search(parts["message"])
        shape = (
            parts["name"], parts["level"], text_shape(REPEATS_NOTE.sub("", parts["message"]))
        )  # fmt: skip
        at = datetime.strptime(parts["at"], "%Y-%m-%d %H:%M:%S,%f")
        if note is not None:
            counted += int(note[1])
        elif shape in last:
            assert (at - last[shape]).total_seconds() >= REPEAT_WINDOW_S - 1, line
        last[shape] = at
    assert counted > 0


@pytest.fixture(scope="module")
def replayed(bench_run: BenchRun) -> list[tuple[str, float, str, str]]:
    return replay_firing(bench_run)


def replay_firing(bench_run: BenchRun) -> list[tuple[str, float, str, str]]:
    """The brokers' own logs of the whole run, replayed (``kafka-health replay``'s code: the
    job's parser, detectors and rules on event time): each alert notified firing, as (group
    key, its start, alertname, broker)."""
    from kafka_health.alerting.rule_config import load_rules
    from kafka_health.config import load_config
    from kafka_health.parsing.offline import check_files
    from kafka_health.replay.engine import replay_events
    from kafka_health.replay.inputs import read_events
    from kafka_health.spark import build_spark_session

    assert bench_run.workdir is not None
    config = load_config(bench_run.workdir / "monitor.yaml")
    logs = sorted(str(p) for p in (bench_run.workdir / "cluster").glob("broker-*/logs/*.log*"))
    sourced = read_events(build_spark_session(config.spark), check_files(logs), config)
    replay = replay_events(
        [s.event for s in sourced], config, load_rules(config.alerting.rules_file)
    )
    return [
        (n.group_key, a["starts_at"], a["alertname"], a["labels"].get("broker_id", ""))
        for n in replay.notifications for a in n.alerts if a["status"] == "firing"
    ]  # fmt: skip


@pytest.mark.parametrize("name", ["broker-kill", "broker-freeze"])
def test_the_clusters_logs_replay_into_the_incident_that_paged(
    bench_run: BenchRun, replayed: list[tuple[str, float, str, str]], name: str
) -> None:
    """Issue 16: the replay gives each fault's incident too: broker 3's group, BrokerFailed
    starting when the live monitor saw it start (the controller's fencing line), give or take
    the live path's shipping and batching. (The canary's alerts are not in the logs.)"""
    result = bench_run.results[name]
    live = [
        a for a in result.alerts
        if a["alertname"] == "BrokerFailed" and a["broker_id"] == "3" and a["starts_at"]
    ]  # fmt: skip
    failures = [(start, key) for key, start, alert, broker in replayed
                if alert == "BrokerFailed" and broker == "3"]  # fmt: skip
    if not live:
        # Restarted before the controller fenced it (KRaft: 9 s; the page now comes at ~4 s
        # and the bench restarts the broker then): no report in the logs, live or replayed.
        assert result.injected_at is not None and result.undone_at is not None, result.alerts
        during = [f for f in failures if result.injected_at <= f[0] <= result.undone_at + 30]
        assert during == [], (during, result.alerts)
        return
    live_start = live[0]["starts_at"]
    nearest = min(failures, key=lambda r: abs(r[0] - live_start), default=None)
    assert nearest is not None, replayed
    assert nearest[1] == live[0]["group_key"] == '{broker_id="3"}'
    assert abs(nearest[0] - live_start) <= 15, nearest[0] - live_start


def test_the_rolling_restart_replays_into_no_page(single_run: BenchRun) -> None:
    """Silent live, silent replayed: the controlled shutdowns in the logs open the same
    maintenance windows. (It is the last scenario: nothing after its start is another's.)"""
    rolling = single_run.results["rolling-restart"]
    assert rolling.injected_at is not None
    during = [r for r in replay_firing(single_run) if r[1] >= rolling.injected_at]
    assert during == [], during


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that mention ``text`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue
        if state != "Z" and text in cmdline:
            found.append(f"{entry.name}: {cmdline[:200]}")
    return found


def processes_in_groups(groups: list[int]) -> list[str]:
    """Live processes whose process group is one of ``groups``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) in groups:
            found.append(f"{entry.name} (group {fields[2]})")
    return found


def test_a_stopped_consumer_group_pages_within_its_objective_plus_10_s(
    single_run: BenchRun,
) -> None:
    """Issue 58's consumer-stop, in the layout operators deploy: two real consumers of
    faultsuite-orders-reader (objective 20 s, critical, team fault-suite) are closed while the
    producer keeps writing: ConsumerGroupLagging about the cluster, within the objective + 10 s
    of the stop and not before the lag could pass it, naming the group, its lag in seconds and
    its owners; nothing else, nothing twice; resolved once they caught up again."""
    r = single_run.results["consumer-stop"]
    summary = (r.error, r.latency_s, r.notes, r.alerts, r.unexpected_pages, r.duplicate_details)
    assert r.error is None and not r.missed and r.latency_s is not None, summary
    assert OBJECTIVE_S - 5.0 <= r.notes["page_after_stop_s"] <= OBJECTIVE_S + 10.0, summary
    assert r.notes.get("page_group") == GROUP, summary
    assert r.notes.get("page_names_lag_s") is True, summary
    assert (r.notes.get("page_severity"), r.notes.get("page_team")) == ("critical", "fault-suite")
    first = next(a for a in r.alerts if a["status"] == "firing")
    assert first["alertname"] == "ConsumerGroupLagging" and first["broker_id"] == "", summary
    assert r.unexpected_pages == [] and r.duplicates == 0 and r.incidents == 1, summary
    assert r.resolved_after_s is not None and "load_errors" not in r.notes, summary
