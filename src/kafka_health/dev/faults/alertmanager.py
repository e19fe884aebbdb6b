"""A real Alertmanager in the fault bench (``bench faults --via-alertmanager``): Debian's
``prometheus-alertmanager`` (``scripts/install-system-deps.sh`` installs it), run with the
README's example (``conf/alertmanager.example.yml``) whose receivers are swapped for a webhook
receiver of the bench, so that the route measured is the one documented: its ``group_by``,
``group_wait``, ``group_interval`` and ``repeat_interval``, and anything else it says.

The monitor hands its alerts to it through a receiver of format ``alertmanager_api``, beside
the bench's direct webhook receiver; both record the first page from the same fault instant.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from kafka_health.config import MonitorConfig, ReceiverConfig
from kafka_health.dev.faults.monitor import scrape

EXAMPLE = Path(__file__).resolve().parents[4] / "conf" / "alertmanager.example.yml"
"""The README's example, which the bench runs by default."""
TIMING = ("group_by", "group_wait", "group_interval", "repeat_interval")
"""The root route's settings a page's time depends on (reported with the bench's results)."""
READY_TIMEOUT_S = 30.0
STOP_WAIT_S = 10.0
GROUPS_METRIC = "alertmanager_dispatcher_aggregation_groups"
"""Alertmanager's aggregation groups, empty ones included until its cleanup (every 30 s)."""


def binary() -> str | None:
    """Debian's ``prometheus-alertmanager``, else an ``alertmanager`` on the PATH."""
    return shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")


def load(path: Path) -> dict[str, Any]:
    """An Alertmanager config file with a root route and at least one receiver."""
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not YAML ({exc})") from exc
    if not isinstance(config, dict):
        raise ValueError(f"{path}: not an Alertmanager config (a mapping)")
    route = config.get("route")
    if not isinstance(route, dict) or not route.get("receiver"):
        raise ValueError(f"{path}: no root route with a receiver")
    receivers = config.get("receivers")
    if not isinstance(receivers, list) or not all(
        isinstance(r, dict) and r.get("name") for r in receivers
    ):
        raise ValueError(f"{path}: receivers must be a list of named receivers")
    return config


def bench_config(example: dict[str, Any], hook_url: str) -> dict[str, Any]:
    """``example`` with every receiver replaced by a webhook to ``hook_url`` that is told the
    resolutions too (the bench's steady state waits for them): its routes, grouping, timing and
    inhibit rules untouched. Templates go (they only shaped the replaced receivers' messages)."""
    config = copy.deepcopy(example)
    config.pop("templates", None)
    config["receivers"] = [
        {"name": r["name"], "webhook_configs": [{"url": hook_url, "send_resolved": True}]}
        for r in example["receivers"]
    ]
    return config


def route_timing(config: dict[str, Any]) -> dict[str, Any]:
    """The root route's ``TIMING`` settings as written (Alertmanager's defaults where absent:
    ``group_by`` none, 30s, 5m, 4h)."""
    defaults: dict[str, Any] = {
        "group_by": [],
        "group_wait": "30s",
        "group_interval": "5m",
        "repeat_interval": "4h",
    }
    route = config["route"]
    return {key: route.get(key, defaults[key]) for key in TIMING}


def version(path: str) -> str:
    """``alertmanager, version 0.25.0 (...)``: the first line of ``--version``."""
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"
    lines = (out.stdout or out.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


class Alertmanager:
    """One Alertmanager process on 127.0.0.1:``port``, no gossip (``--cluster.listen-address``
    empty), its config, storage and log under ``workdir``; in a session of its own, stopped by
    ``stop`` (SIGTERM, then SIGKILL)."""

    def __init__(self, binary: str, config: dict[str, Any], workdir: Path, port: int) -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = port
        self.config_file = workdir / "alertmanager.yml"
        self.log_file = workdir / "alertmanager.log"
        self.proc: subprocess.Popen[bytes] | None = None
        workdir.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Alertmanager:
        """Start it (again: same storage, so its notification log and silences are kept) and
        wait until it is ready; raises with the end of its log if it is not."""
        if self.alive():
            return self
        with self.log_file.open("ab") as log:
            self.proc = subprocess.Popen(
                [self.binary, f"--config.file={self.config_file}",
                 f"--storage.path={self.workdir / 'data'}",
                 f"--web.listen-address=127.0.0.1:{self.port}", "--cluster.listen-address="],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.alive():
                break
            if self._ready():
                return self
            time.sleep(0.2)
        self.stop()
        tail = self.log_file.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"Alertmanager did not become ready on {self.url}:\n{tail}")

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def groups(self) -> float | None:
        """Its aggregation groups now (from its /metrics; None when it does not answer or its
        answer cannot be read: a diagnostic, never a reason to fail a run)."""
        try:
            return scrape(self.port).get((GROUPS_METRIC, ()))
        except ValueError:
            return None

    def stop(self) -> None:
        """SIGTERM, SIGKILL after ``STOP_WAIT_S`` (safe to call twice)."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(STOP_WAIT_S)
        if proc.poll() is None:
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(STOP_WAIT_S)


RECEIVER_NAME = "alertmanager"


def with_alertmanager(config: MonitorConfig, url: str) -> MonitorConfig:
    """``config`` with a receiver of format ``alertmanager_api`` handing every alert to the
    Alertmanager at ``url``, after its own receivers (the bench's direct one), shipped
    settings otherwise (``resend_s`` 60 s)."""
    receiver = ReceiverConfig(name=RECEIVER_NAME, url=url, format="alertmanager_api", timeout_s=5.0)
    alerting = config.alerting
    return dataclasses.replace(
        config,
        alerting=dataclasses.replace(alerting, receivers=[*alerting.receivers, receiver]),
    )
