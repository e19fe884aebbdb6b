"""The monitor on a secured listener (SASL_PLAINTEXT with SCRAM-SHA-512, and TLS with a CA made
for the run): the canary, the prober, the shipper and the job connect with credentials from
files the config references, and a killed broker is paged; the password is nowhere in what the
run wrote (logs, checkpoints, state, Spark's event log, /metrics, the pages); a wrong password
or an untrusted certificate is a clear error naming the listener, within seconds, with no
secret in it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.integration.test_gc_incident import JobProcess, firing, monitored
from tests.support.system_tools import self_signed_ca
from tests.support.waiting import wait_for

from kafka_health.config import KafkaClientConfig, MonitorConfig, ReceiverConfig, parse_section
from kafka_health.dev.demo import demo_config
from kafka_health.dev.devcluster import LocalCluster
from kafka_health.dev.devcluster.ports import free_ports
from kafka_health.dev.faults.monitor import scrape
from kafka_health.dev.shipper_devcluster import write_config
from kafka_health.dev.webhook_receiver import ReceiverState, webhook_receiver

pytestmark = [pytest.mark.integration, pytest.mark.spark]

REPO = Path(__file__).resolve().parents[2]


def secured_config(cluster: LocalCluster, pager_url: str, client: dict[str, Any]) -> MonitorConfig:
    """The demo's config pointed at the cluster's secured listener with ``client`` settings."""
    base = demo_config(MonitorConfig(), cluster, pager_url)
    kafka = dataclasses.replace(
        base.kafka,
        bootstrap_servers=cluster.secure_bootstrap_servers,
        client=parse_section(KafkaClientConfig, client, "kafka.client"),
    )
    (port,) = free_ports(1)
    return dataclasses.replace(
        base,
        kafka=kafka,
        spark=dataclasses.replace(base.spark, master="local[2]", shuffle_partitions=2),
        alerting=dataclasses.replace(
            base.alerting,
            receivers=[ReceiverConfig(name="pager", url=pager_url, timeout_s=5.0)],
            exporter=dataclasses.replace(base.alerting.exporter, port=port),
        ),
    )


@pytest.mark.parametrize("security", ["sasl", "tls"])
def test_the_whole_pipeline_pages_through_a_secured_listener(
    local_cluster: Any, tmp_path: Path, security: str
) -> None:
    cluster = local_cluster(brokers=1, security=security)
    assert cluster.security is not None
    state = ReceiverState()
    events = tmp_path / "spark-events"
    events.mkdir()
    with webhook_receiver(state) as url:
        config = secured_config(cluster, url + "/pager", cluster.security.client_settings())
        spark_conf = {"spark.eventLog.enabled": "true", "spark.eventLog.dir": events.as_uri()}
        config = dataclasses.replace(
            config, spark=dataclasses.replace(config.spark, conf=spark_conf)
        )
        config_file = write_config(config, tmp_path / "monitor.yaml")
        if security == "sasl":
            assert cluster.security.password() not in config_file.read_text(), (
                "the config refers to the password file, it does not hold the password"
            )
        port = config.alerting.exporter.port
        assert port
        job = JobProcess(config_file, tmp_path / "job.log")
        with monitored(cluster, config):
            job.start()
            try:
                wait_for(
                    lambda: scrape(port).get(("kafka_health_canary_availability_ratio", ()))
                    == 1.0,
                    300, "the canary's results through the secured listener", poll_s=1.0,
                )  # fmt: skip
                answered = ("kafka_health_broker_unanswered_seconds",
                            (("broker_id", "1"), ("reason", "answered")))  # fmt: skip
                wait_for(
                    lambda: scrape(port).get(answered) == 0.0,
                    60, "the job's pings answered through the secured listener", poll_s=1.0,
                )  # fmt: skip
                metrics = scrape_text(port)
                cluster.kill_broker(1)
                wait_for(lambda: firing(state), 120, "a page", poll_s=1.0)
            finally:
                job.stop()
        payloads = [r.raw.decode(errors="replace") for r in state.requests]
    if security == "sasl":
        secret = cluster.security.password()
        # Everything the run wrote: the job's log, its checkpoints and detector state, the
        # alert service's state, the canary's, Spark's event log, /metrics, the pages.
        written = [tmp_path, Path(config.spark.checkpoint_dir), Path(config.alerting.state_dir),
                   Path(config.canary.state_dir), events]  # fmt: skip
        leaks = [
            str(f) for root in written for f in _files(root) if secret.encode() in f.read_bytes()
        ]
        assert leaks == [], f"the SASL password is in {leaks}"
        assert any(_files(events)), "Spark's event log was written (and searched)"
        assert secret not in metrics and not any(secret in body for body in payloads)


def _files(root: Path) -> list[Path]:
    return [f for f in root.rglob("*") if f.is_file()] if root.exists() else []


def scrape_text(port: int) -> str:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return str(r.read().decode())


def run_canary(config: MonitorConfig, tmp_path: Path) -> tuple[int, str, float]:
    config_file = write_config(config, tmp_path / "wrong.yaml")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "kafka_health.cli", "canary", "--config", str(config_file),
         "--duration", "60"],
        capture_output=True, text=True, timeout=120, env=env, cwd=REPO, check=False,
    )  # fmt: skip
    return result.returncode, result.stderr, time.monotonic() - started


def test_a_wrong_password_or_an_untrusted_certificate_is_a_clear_error_at_once(
    local_cluster: Any, tmp_path: Path
) -> None:
    sasl = local_cluster(brokers=1, security="sasl")
    assert sasl.security is not None
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not-the-password\n")
    client = {**sasl.security.client_settings(), "sasl_password": {"file": str(wrong)}}
    code, err, took = run_canary(secured_config(sasl, "http://127.0.0.1:9/", client), tmp_path)
    assert code == 2, err[-2000:]
    listener = f"SASL_PLAINTEXT listener {sasl.secure_bootstrap_servers[0]}"
    assert listener in err and "refused the credentials" in err, err[-2000:]
    assert "not-the-password" not in err and sasl.security.password() not in err
    assert took < 30, f"{took:.0f} s"

    tls = local_cluster(brokers=1, security="tls")
    other_ca = self_signed_ca(tmp_path, "other")
    client = {"security_protocol": "SSL", "ssl_cafile": str(other_ca)}
    code, err, took = run_canary(secured_config(tls, "http://127.0.0.1:9/", client), tmp_path)
    assert code == 2, err[-2000:]
    assert f"SSL listener {tls.secure_bootstrap_servers[0]}" in err and "TLS" in err, err[-2000:]
    assert took < 30, f"{took:.0f} s"
