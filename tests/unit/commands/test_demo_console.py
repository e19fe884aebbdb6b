"""What the demo prints: the timeline of pages, the status line (unknown or stale values as
``?``), the log file that takes the noise, and the ``--fault`` wiring through the fault runner
(over a real HTTP receiver; no Kafka: the scenarios here touch no broker)."""

from __future__ import annotations

import json
import logging
import time
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import pytest

from kafka_health.commands.demo import Stopped, job_note, run_fault
from kafka_health.commands.demo_console import (
    CAUSE_CHARS,
    FRESH_S,
    Timeline,
    clock_time,
    log_to_file,
    status_line,
    timeline_line,
)
from kafka_health.dev.devcluster.state import BrokerStatus
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.monitor import MonitorProcesses, Sample
from kafka_health.dev.faults.receiver import Page, RecordingReceiver
from kafka_health.dev.faults.runner import BenchOptions, FaultBench
from kafka_health.dev.faults.scenarios import Scenario

AT = 1_700_000_000.0


def alert(name: str, status: str = "firing", broker: str = "", **notes: str) -> dict[str, Any]:
    labels = {"alertname": name, **({"broker_id": broker} if broker else {})}
    return {"status": status, "labels": labels, "annotations": notes, "fingerprint": name + broker}


def page(status: str, *alerts: dict[str, Any], group: str = "g1", at: float = AT) -> Page:
    return Page(at=at, idempotency_key=f"{group}-{at}", group_key=group, status=status,
                alerts=list(alerts))  # fmt: skip


# ---------------------------------------------------------------------- timeline


def test_a_first_page_is_firing_with_names_broker_and_cause() -> None:
    line = timeline_line(
        page("firing", alert("BrokerFailed", broker="3", cause="Broker 3 failed", explains="x"),
             alert("CanaryWriteFailure", broker="3", cause="writes fail")),
        update=False,
    )  # fmt: skip
    assert line == (
        f"{clock_time(AT)} FIRING   BrokerFailed, CanaryWriteFailure (broker 3): Broker 3 failed"
    )


def test_a_later_page_of_an_open_group_is_an_update_and_a_resolution_names_its_alerts() -> None:
    printed: list[str] = []
    timeline = Timeline(printed.append)
    timeline(page("firing", alert("UnderMinIsr")))
    timeline(page("firing", alert("UnderMinIsr"), alert("BrokerFailed", broker="2")))
    timeline(page("resolved", alert("UnderMinIsr", "resolved"),
                  alert("BrokerFailed", "resolved", broker="2")))  # fmt: skip
    timeline(page("firing", alert("UnderMinIsr")))  # the same group opens again
    kinds = [line.split()[1] for line in printed]
    assert kinds == ["FIRING", "UPDATED", "RESOLVED", "FIRING"]
    assert printed[0].endswith("UnderMinIsr (cluster)")
    assert printed[1].endswith("UnderMinIsr, BrokerFailed (broker 2)")
    assert printed[2].endswith("UnderMinIsr, BrokerFailed (broker 2)")


def test_groups_are_tracked_apart_and_a_long_cause_is_cut() -> None:
    printed: list[str] = []
    timeline = Timeline(printed.append)
    timeline(page("firing", alert("BrokerFailed", broker="1"), group="b1"))
    long_cause = "a Full GC of 12.3 s on broker 2 outlasted its 9 s session " * 3
    timeline(page("firing", alert("FullGCPauseOverSessionTimeout", broker="2", cause=long_cause),
                  group="b2"))  # fmt: skip
    assert printed[1].split()[1] == "FIRING"
    cause = printed[1].split(": ", 1)[1]
    assert cause.endswith("...") and len(cause) <= CAUSE_CHARS
    explained = (
        "Full GC on broker {broker_id} froze a follower of other brokers' partitions: acks=all\n"
        "  writes waited for it until it left the ISR"
    )
    timeline(page("firing", alert("UnderMinIsr", broker="1", cause=explained), group="b1"))
    assert printed[2].endswith(
        "UPDATED  UnderMinIsr (broker 1): "
        "Full GC on broker {broker_id} froze a follower of other brokers' partitions"
    ), "the gist of the cause, up to its colon"


def test_only_a_firing_alert_names_the_cause() -> None:
    line = timeline_line(
        page("resolved", alert("BrokerFailed", "resolved", broker="1", cause="Broker 1 failed")),
        update=True,
    )
    assert line == f"{clock_time(AT)} RESOLVED BrokerFailed (broker 1)"


# ---------------------------------------------------------------------- status line


def broker(broker_id: int, process: Any) -> BrokerStatus:
    return BrokerStatus(
        broker_id=broker_id,
        pid=100 + broker_id,
        process=process,
        registered=process == "running",
        bootstrap=f"127.0.0.1:{9000 + broker_id}",
        log_dir="/logs",
        gc_log_bytes=0,
    )


HEALTHY = [broker(1, "running"), broker(2, "running"), broker(3, "running")]


def job_metrics(now: float, batch_age_s: float = 5.0, **overrides: float) -> dict[Sample, float]:
    values = {
        "canary_availability_ratio": 0.987,
        "under_replicated_partitions": 4.0,
        "under_min_isr_partitions": 0.0,
        "leader_elections_per_minute": 2.0,
        **overrides,
    }
    metrics: dict[Sample, float] = {(f"kafka_health_{k}", ()): v for k, v in values.items()}
    metrics[("kafka_health_job_last_batch_timestamp", (("query", "monitor"),))] = now - batch_age_s
    return metrics


def test_the_status_line_shows_brokers_and_the_jobs_headline_values() -> None:
    now = time.time()
    line = status_line(HEALTHY, job_metrics(now), now)
    assert line == (
        f"{clock_time(now)} brokers 1,2,3 up | canary 98.7% | under-replicated 4 | "
        "under min ISR 0 | elections/min 2"
    )


def test_brokers_by_state() -> None:
    now = time.time()
    statuses = [broker(3, "stopped"), broker(1, "running"), broker(2, "frozen")]
    assert status_line(statuses, None, now) == f"{clock_time(now)} brokers 1 up, 2 frozen, 3 down"


def test_a_value_the_job_does_not_report_is_a_question_mark() -> None:
    now = time.time()
    metrics = job_metrics(now)
    del metrics[("kafka_health_under_min_isr_partitions", ())]
    line = status_line(HEALTHY, metrics, now)
    assert "under min ISR ? |" in line and "under-replicated 4" in line
    assert status_line(HEALTHY, {}, now, "job starting").endswith(
        "canary ? | under-replicated ? | under min ISR ? | elections/min ? | job starting"
    )


def test_a_value_whose_query_stopped_completing_batches_is_stale_and_shown_as_a_question_mark(
) -> None:  # fmt: skip
    now = time.time()
    metrics = job_metrics(now)
    metrics[("kafka_health_job_last_batch_timestamp", (("query", "monitor"),))] = now - FRESH_S - 1
    assert status_line(HEALTHY, metrics, now).count("?") == 4, "the job's query is stale"
    del metrics[("kafka_health_job_last_batch_timestamp", (("query", "monitor"),))]
    assert status_line(HEALTHY, metrics, now).count("?") == 4, "no batch of its query"
    assert "canary 98.7%" in status_line(HEALTHY, job_metrics(now), now)


def test_a_source_the_job_reports_stale_is_a_question_mark_and_named() -> None:
    now = time.time()
    metrics = job_metrics(now)
    metrics[("kafka_health_signal_stale", (("source", "canary"),))] = 1.0
    metrics[("kafka_health_signal_age_seconds", (("source", "canary"),))] = 31.5
    metrics[("kafka_health_signal_stale", (("source", "cluster_state"),))] = 0.0
    line, detail = status_line(HEALTHY, metrics, now).split("\n")
    assert "canary ? |" in line, "the job still had a value: a stale one"
    assert "under-replicated 4" in line, "cluster_state is not stale"
    assert detail == " " * 9 + "stale: canary 32 s"


def test_the_status_line_fits_a_terminal_with_every_source_stale() -> None:
    """Seen in CI under load: three stale sources made the status line 130+ characters."""
    now = time.time()
    metrics = job_metrics(now)
    for source, age in (("canary", 31.5), ("cluster_state", 55.0), ("canary_topic", 130.0)):
        metrics[("kafka_health_signal_stale", (("source", source),))] = 1.0
        metrics[("kafka_health_signal_age_seconds", (("source", source),))] = age
    line, detail = status_line(HEALTHY, metrics, now, "job starting").split("\n")
    assert len(line) <= 120, line
    assert detail.strip() == "stale: canary 32 s, canary_topic 130 s, cluster_state 55 s"


def test_the_job_note_says_which_monitor_process_exited(tmp_path: Path) -> None:
    monitor = MonitorProcesses(tmp_path / "monitor.yaml", tmp_path / "logs")
    assert job_note(monitor, {}, seen=False) == (
        f"exited: ship-logs, canary, run (see {tmp_path / 'logs'}/)"
    )


# ---------------------------------------------------------------------- the noise


def test_logging_and_warnings_go_to_the_file_not_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        log_to_file(tmp_path / "logs" / "demo.log")
        logging.getLogger("kafka.conn").warning("<BrokerConnection node_id=3> connect failed")
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("a kafka-python deprecation", DeprecationWarning, stacklevel=1)
        for handler in root.handlers:
            handler.flush()
    finally:
        logging.captureWarnings(False)
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    written = (tmp_path / "logs" / "demo.log").read_text()
    assert "WARNING kafka.conn: <BrokerConnection node_id=3> connect failed" in written
    assert "a kafka-python deprecation" in written
    out, err = capsys.readouterr()
    assert out == "" and err == ""


# ---------------------------------------------------------------------- --fault


class NoCluster:
    def __init__(self) -> None:
        self.nodes: list[Any] = []

    def down(self) -> None:
        pass


def post(url: str, key: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Idempotency-Key": key})  # fmt: skip
    with urllib.request.urlopen(request, timeout=5):
        pass


def bench_and_context(
    tmp_path: Path, receiver: RecordingReceiver
) -> tuple[FaultBench, FaultContext]:
    options = BenchOptions(scenarios=[], workdir=tmp_path, resolve_timeout_s=5.0, calm_s=0.0)
    bench = FaultBench(options, say=lambda line: None)
    bench.healthy = lambda: None  # type: ignore[method-assign]
    ctx = FaultContext(cluster=NoCluster(), receiver=receiver, monitor=None,  # type: ignore[arg-type]
                       config_file=tmp_path / "monitor.yaml", workdir=tmp_path)  # fmt: skip
    return bench, ctx


def test_fault_runs_the_scenario_through_the_runner_and_prints_its_latency(
    tmp_path: Path,
) -> None:
    printed: list[str] = []
    receiver = RecordingReceiver(on_page=Timeline(printed.append)).start()
    firing = {"groupKey": "b3", "status": "firing",
              "alerts": [alert("BrokerFailed", broker="3", cause="Broker 3 failed")]}  # fmt: skip
    resolved = {"groupKey": "b3", "status": "resolved",
                "alerts": [alert("BrokerFailed", "resolved", broker="3")]}  # fmt: skip
    scenario = Scenario(
        "fake-kill", "a broker that pages at once", (3,), ("BrokerFailed",),
        inject=lambda ctx: post(receiver.url, "k1", firing),
        undo=lambda ctx: post(receiver.url, "k2", resolved),
        cause="BrokerFailed", bound_s=10.0,
    )  # fmt: skip
    try:
        bench, ctx = bench_and_context(tmp_path, receiver)
        run_fault(bench, ctx, scenario, printed.append)
    finally:
        receiver.stop()
    assert printed[0].endswith(
        "fault fake-kill (a broker that pages at once) once the monitor is healthy"
    )
    assert printed[1].split()[1:] == ["FIRING", "BrokerFailed", "(broker", "3):", "Broker", "3",
                                      "failed"]  # fmt: skip
    assert printed[2].split()[1] == "RESOLVED"
    assert printed[3].startswith("fault fake-kill: page after ")
    assert "1 incident(s)" in printed[3] and "resolved " in printed[3]


def test_a_stop_during_the_fault_unwinds_through_its_cleanup(tmp_path: Path) -> None:
    """Ctrl-C in the middle of a scenario is not a failed run: it reaches the demo, after the
    scenario's cleanup ran (what it restarts, the demo's shutdown then stops)."""
    cleaned: list[bool] = []

    def interrupted(ctx: FaultContext) -> None:
        raise Stopped("Ctrl-C")

    scenario = Scenario("stopped", "stopped half-way", (3,), ("BrokerFailed",), interrupted,
                        cleanup=lambda ctx: cleaned.append(True))  # fmt: skip
    receiver = RecordingReceiver().start()
    printed: list[str] = []
    try:
        bench, ctx = bench_and_context(tmp_path, receiver)
        with pytest.raises(Stopped):
            run_fault(bench, ctx, scenario, printed.append)
    finally:
        receiver.stop()
    assert cleaned == [True]
    assert len(printed) == 1, "no latency line for a run that was stopped"
    assert not (tmp_path / "errors.log").exists()


def test_a_long_job_note_goes_under_the_status_line() -> None:
    """Seen in CI under load: '| job /metrics not answering' made the line 122 characters."""
    now = time.time()
    note = "exited: run (see /tmp/a/rather/long/folder/of/the/demo/logs/)"
    line, detail = status_line(HEALTHY, job_metrics(now), now, note).split("\n")
    assert len(line) <= 120 and note not in line
    assert detail == " " * 9 + note
    assert status_line(HEALTHY, job_metrics(now), now, "job silent").endswith("| job silent")
