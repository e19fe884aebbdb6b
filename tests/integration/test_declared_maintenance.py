"""Declared maintenance on real parts (issue 56): ``kafka-health alerts run`` in a process of
its own, paging a real HTTP receiver, fed the job's signals of two brokers that stop answering;
``kafka-health maintenance start`` was issued through the command line for one of them first.
The other pages; the declared one does not, while /metrics shows its alert firing (muted) and
its maintenance; once ``maintenance end`` is issued, the declared one, still down, pages.
Real time, about 15 s."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import yaml
from prometheus_client.parser import text_string_to_metric_families
from tests.support.waiting import wait_for

from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "conf" / "alerts.yaml"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _kafka_health(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kafka_health.cli", *args],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )  # fmt: skip


def _paged(state: ReceiverState) -> list[str]:
    """The broker of each firing BrokerNotAnswering the receiver was told of, in order."""
    return [
        a["labels"]["broker_id"]
        for body in state.bodies()
        for a in body["alerts"]
        if a["status"] == "firing" and a["labels"]["alertname"] == "BrokerNotAnswering"
    ]


def _metric(port: int, name: str, **wanted: str) -> float | None:
    """The value of the sample ``name`` of /metrics whose labels include ``wanted``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and wanted.items() <= sample.labels.items():
                return float(sample.value)
    return None


def test_a_declared_broker_does_not_page_until_its_maintenance_ends(tmp_path: Path) -> None:
    state = ReceiverState()
    metrics_port = _free_port()
    with webhook_receiver(state) as url:
        config = tmp_path / "monitor.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "cluster_name": "it",
                    "alerting": {
                        "rules_file": str(RULES),  # the shipped rules: 5 s without an answer
                        "state_dir": str(tmp_path / "state"),
                        "tick_s": 0.2,
                        "exporter": {"host": "127.0.0.1", "port": metrics_port},
                        "receivers": [{"name": "pager", "url": url, "timeout_s": 2}],
                    },
                }
            )
        )
        started = _kafka_health(
            "maintenance", "--config", str(config), "start", "--broker", "2", "--for", "10m",
            "--comment", "deploy",
        )  # fmt: skip
        assert started.returncode == 0, started.stderr

        proc = subprocess.Popen(
            [sys.executable, "-m", "kafka_health.cli", "alerts", "--config", str(config), "run"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=REPO,
        )  # fmt: skip
        stop = threading.Event()
        assert proc.stdin is not None and proc.stdout is not None
        stdin = proc.stdin
        try:
            assert proc.stdout.readline().strip() == "alert service running"
            last_answer = time.time()

            def feed() -> None:
                """The job's pings, once a second: brokers 2 and 3 refuse from now on."""
                while not stop.is_set():
                    now = time.time()
                    stdin.write(json.dumps([
                        {"name": "broker_unanswered_seconds", "value": now - last_answer,
                         "labels": {"broker_id": b, "reason": "refused"}, "at": now}
                        for b in ("2", "3")
                    ]) + "\n")  # fmt: skip
                    stdin.flush()
                    stop.wait(1.0)

            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
            wait_for(lambda: _paged(state), 20, "broker 3's page", poll_s=0.1)
            wait_for(
                lambda: _metric(metrics_port, "kafka_health_alert_active", broker_id="2",
                                alertname="BrokerNotAnswering", state="firing"),
                10, "broker 2's alert firing (muted)",
            )  # fmt: skip
            maintenance = _metric(
                metrics_port, "kafka_health_broker_maintenance", broker_id="2", source="declared"
            )
            assert maintenance == 1
            time.sleep(1.0)  # a few more evaluations with both alerts firing
            assert _paged(state) == ["3"], "broker 2 is in declared maintenance"

            ended = _kafka_health("maintenance", "--config", str(config), "end", "--broker", "2")
            assert ended.returncode == 0, ended.stderr
            wait_for(lambda: _paged(state) == ["3", "2"], 10, "broker 2's page after the end")
        finally:
            stop.set()
            proc.terminate()
            proc.wait(30)
