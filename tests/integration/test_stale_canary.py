"""A stale signal is reported stale, on real parts: a real broker, the real canary (in this
process), the streaming job (Spark, its write_path query) with its alert service, /metrics and
a real webhook receiver. Stopping the canary leaves its values out of /metrics, reports the
source stale there, and pages MonitorBlind naming it."""

from __future__ import annotations

import dataclasses
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.support.waiting import wait_for

from kafka_health.config import MonitorConfig, ReceiverConfig, TopicsConfig
from kafka_health.dev.devcluster.ports import free_ports
from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver
from kafka_health.job.app import MonitorJob
from kafka_health.job.sinks import build_sinks
from kafka_health.services.canary import CanaryService

pytestmark = [pytest.mark.integration, pytest.mark.spark]

REPO = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return {
        (s.name, tuple(sorted((k, v) for k, v in s.labels.items() if v))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def canary_values(samples: Samples) -> list[float]:
    return [v for (name, _), v in samples.items() if name.startswith("kafka_health_canary_")]


def config_for(servers: list[str], pager_url: str, tmp_path: Path) -> MonitorConfig:
    """Topics of its own, a 2 s trigger (the canary is stale after 20 s: a batch of the
    one-query job takes 3-4 s, more on a loaded machine), alerting to the
    receiver, /metrics on a free port."""
    suffix = uuid.uuid4().hex[:8]
    base = MonitorConfig().with_bootstrap(servers)
    (port,) = free_ports(1)
    return dataclasses.replace(
        base,
        topics=TopicsConfig(
            **{f.name: f"{f.name}-{suffix}" for f in dataclasses.fields(TopicsConfig)}
        ),
        spark=dataclasses.replace(base.spark, checkpoint_dir=str(tmp_path / "checkpoints")),
        job=dataclasses.replace(
            base.job,
            starting_offsets="earliest",
            trigger_interval_s=2.0,
            stale_after_s={"canary": 20.0},
        ),
        canary=dataclasses.replace(
            base.canary,
            state_dir=str(tmp_path / "canary"),
            metrics_port=None,
            cluster_state=False,
        ),
        alerting=dataclasses.replace(
            base.alerting,
            rules_file=str(REPO / "conf" / "alerts.yaml"),
            state_dir=str(tmp_path / "alerting"),
            receivers=[ReceiverConfig(name="pager", url=pager_url, timeout_s=5.0)],
            exporter=dataclasses.replace(base.alerting.exporter, host="127.0.0.1", port=port),
        ),
    )


def test_a_stopped_canary_is_reported_stale_not_repeated(
    local_cluster: Any, spark: Any, tmp_path: Path
) -> None:
    cluster = local_cluster(brokers=1)
    state = ReceiverState()
    with webhook_receiver(state) as url:
        config = config_for(cluster.bootstrap_servers, url + "/pager", tmp_path)
        port = config.alerting.exporter.port
        assert port
        canary = CanaryService(config)
        canary.start()
        job = MonitorJob(spark, config)
        sinks = build_sinks(config, job)
        job.sinks.extend(sinks)
        for sink in sinks:
            sink.start()
        stop = threading.Event()
        runner = threading.Thread(target=job.run, args=(stop,), daemon=True)
        runner.start()
        canary_running = True
        try:
            stale = ("kafka_health_signal_stale", (("source", "canary"),))
            wait_for(
                lambda: canary_values(scrape(port)) and scrape(port).get(stale) == 0.0,
                240,
                "the canary's values on /metrics, fresh",
                poll_s=1.0,
            )
            stopped = time.monotonic()
            canary.stop()  # drains its in-flight probes first
            canary_running = False
            samples = wait_for(
                lambda: (s := scrape(port)).get(stale) == 1.0 and s,
                120,
                "the canary reported stale",
                poll_s=0.5,
            )
            seen_stale = time.monotonic() - stopped
            assert canary_values(samples) == [], "stale values are left out, not repeated"
            age = samples[("kafka_health_signal_age_seconds", (("source", "canary"),))]
            assert age > 20.0

            blind = (
                "kafka_health_alert_active",
                (("alertname", "MonitorBlind"), ("severity", "critical"), ("source", "canary"),
                 ("state", "firing")),
            )  # fmt: skip
            wait_for(lambda: scrape(port).get(blind) == 1.0, 60, "MonitorBlind firing")

            def told() -> list[dict[str, Any]]:
                """Pages saying the canary's data is stale (MonitorBlind)."""
                return [
                    a for body in state.bodies() for a in body["alerts"]
                    if a["status"] == "firing" and a["labels"]["alertname"] == "MonitorBlind"
                ]  # fmt: skip

            [page, *_] = wait_for(told, 60, "a page telling the canary is stale", poll_s=0.5)
            paged = time.monotonic() - stopped
            assert "no new canary data" in page["annotations"]["summary"]
            notes = [(b["status"], [a["labels"]["alertname"] for a in b["alerts"]])
                     for b in state.bodies()]  # fmt: skip
            # The job is idle, not stalled (Spark 4 reports an idle trigger as onQueryIdle).
            assert all(a == "MonitorBlind" for _, names in notes for a in names), notes
            print(f"canary stopped: stale on /metrics after {seen_stale:.1f} s, paged "
                  f"({page['labels']['alertname']}) after {paged:.1f} s; all: {notes}")  # fmt: skip
        finally:
            stop.set()
            runner.join(timeout=120)
            for sink in reversed(sinks):
                sink.stop()
            if canary_running:
                canary.stop()
