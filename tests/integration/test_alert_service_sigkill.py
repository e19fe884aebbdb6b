"""The alert service killed with SIGKILL ten times during an incident (issue 15.7): a real
``kafka-health alerts run`` process on the shipped rules, fed the incident's signals in real
time, killed at random points (mid-evaluation, mid-write, mid-delivery) and started again on the
same state folder each time; a real HTTP receiver that dedups by ``Idempotency-Key`` as a
pager does. No page is missing, none is sent twice under a new key, and the incident ends
resolved. (The whole job killed mid-incident: the fault suite's ``monitor-kill``.)"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
KILLS = 10
INCIDENT_S = 40.0
"""Broker 3's canary writes fail from 0 s, the controller reports it from 6 s, both until
40 s; the kills fall between 1 s and 55 s (resolutions included)."""


def incident(t: float, now: float) -> list[dict[str, Any]]:
    sick = 0 <= t < INCIDENT_S
    return [
        {"name": "canary_availability_ratio", "labels": {"broker_id": "3"},
         "value": 0.0 if sick else 1.0, "at": now},
        {"name": "canary_send_failures", "labels": {"broker_id": "3", "error_class": "Timeout"},
         "value": 20.0 if sick else 0.0, "at": now},
        {"name": "broker_failures", "labels": {"broker_id": "3"},
         "value": 1.0 if 6 <= t < INCIDENT_S else 0.0, "at": now},
    ]  # fmt: skip


class AlertProcess:
    """One ``kafka-health alerts run`` process, fed the incident's signals every 0.5 s."""

    def __init__(self, config: Path, log: Path, began: float) -> None:
        cli = shutil.which("kafka-health", path=str(Path(sys.executable).parent))
        assert cli is not None
        self.out = log.open("ab")
        self.process = subprocess.Popen(
            [cli, "alerts", "--config", str(config), "run"],
            stdin=subprocess.PIPE, stdout=self.out, stderr=subprocess.STDOUT, cwd=REPO,
        )  # fmt: skip
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._feed, args=(began,), daemon=True)
        self._thread.start()

    def _feed(self, began: float) -> None:
        assert self.process.stdin is not None
        while not self._stop.is_set():
            now = time.time()
            try:
                self.process.stdin.write((json.dumps(incident(now - began, now)) + "\n").encode())
                self.process.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                return
            self._stop.wait(0.5)

    def kill(self) -> None:
        self._stop.set()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.out.close()

    def stop(self) -> None:
        self._stop.set()
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.out.close()


def kill_times(seed: int) -> list[float]:
    """``KILLS`` random points between 1 s and 55 s, at least 3 s apart (a process must
    have started to be killed mid-work)."""
    rng = random.Random(seed)
    while True:
        times = sorted(rng.uniform(1.0, 55.0) for _ in range(KILLS))
        if all(b - a >= 3.0 for a, b in itertools.pairwise(times)):
            return times


def test_ten_sigkills_during_an_incident_lose_no_page_and_send_none_twice(
    tmp_path: Path,
) -> None:
    seed = int(os.environ.get("KH_SIGKILL_SEED", "7"))
    state = ReceiverState()
    with webhook_receiver(state) as url:
        config = tmp_path / "monitor.yaml"
        config.write_text(
            yaml.safe_dump({
                "alerting": {
                    "rules_file": str(REPO / "conf" / "alerts.yaml"),
                    "state_dir": str(tmp_path / "state"),
                    "receivers": [{"name": "pager", "url": f"{url}/pager", "timeout_s": 2.0,
                                   "backoff_initial_s": 0.5, "backoff_max_s": 2.0}],
                    "exporter": {"port": None},
                }
            })
        )  # fmt: skip
        log = tmp_path / "alerts.log"
        began = time.time()
        process = AlertProcess(config, log, began)
        try:
            for at in kill_times(seed):
                time.sleep(max(0.0, began + at - time.time()))
                process.kill()
                process = AlertProcess(config, log, began)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not incident_over(state):
                time.sleep(0.5)
        finally:
            process.stop()

    processed = list(state.processed.values())
    context = (seed, [(r.key[:8], summary(r.body)) for r in processed], log.read_text()[-3000:])
    fired = {(a["labels"]["alertname"], a["fingerprint"]) for r in processed
             for a in r.body["alerts"] if a["status"] == "firing"}  # fmt: skip
    assert {name for name, _ in fired} == {"CanaryWriteFailure", "BrokerFailed"}, context
    assert incident_over(state), f"every alert that fired is resolved: {context}"
    starts: dict[str, set[str]] = {}
    for r in processed:
        for a in r.body["alerts"]:
            starts.setdefault(a["fingerprint"], set()).add(a["startsAt"])
    assert all(len(s) == 1 for s in starts.values()), f"an alert paged as new again: {context}"
    contents = [content(r.body) for r in processed]
    assert len(contents) == len(set(contents)), f"a notification sent under two keys: {context}"
    assert {r.body["groupKey"] for r in processed} == {'{broker_id="3"}'}, context
    # Sent again after the receiver accepted it (killed before the outbox recorded the
    # answer): the same key, which the pager dedups, at most once per kill.
    assert len(state.resent_after_ack) <= KILLS, (state.resent_after_ack, context)


def incident_over(state: ReceiverState) -> bool:
    """Every alert of the incident that was notified firing has been notified resolved."""
    latest: dict[str, str] = {}
    with state.lock:
        for r in state.processed.values():
            for a in r.body["alerts"]:
                latest[a["fingerprint"]] = a["status"]
    return bool(latest) and all(s == "resolved" for s in latest.values())


def content(body: dict[str, Any]) -> tuple[Any, ...]:
    """What a notification says, whatever its key: each alert's state, start and cause."""
    return tuple(sorted(
        (a["fingerprint"], a["status"], a["startsAt"], a["annotations"].get("cause", ""))
        for a in body["alerts"]
    ))  # fmt: skip


def summary(body: dict[str, Any]) -> list[str]:
    return [f"{a['labels']['alertname']}:{a['status']}" for a in body["alerts"]]
