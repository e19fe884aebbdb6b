"""The brokers' TLS certificates on real parts: a TLS dev cluster whose broker certificate
expires in 3 days, pinged by the job's :class:`BrokerPings` into a :class:`SignalBoard` as the
job wires them, judged by the shipped rules: the expiry is reported and
BrokerCertificateExpiringSoon fires, critical. The same broker pinged by a monitor that trusts
another CA: BrokerNotAnswering fires, its details and description saying why."""

from __future__ import annotations

import ssl
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.support.system_tools import self_signed_ca
from tests.support.waiting import wait_for

from kafka_health.alerting.engine import Alert, AlertState, Engine
from kafka_health.alerting.rule_config import load_rules
from kafka_health.alerting.store import SignalStore
from kafka_health.config import MonitorConfig, from_mapping
from kafka_health.dev.devcluster import LocalCluster
from kafka_health.job.board import SignalBoard
from kafka_health.model import Signal
from kafka_health.reachability.ping import address
from kafka_health.reachability.pinger import BrokerPings

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SIGNAL = "broker_certificate_expiry_timestamp_seconds"


class Monitor:
    """The job's pings of ``cluster``'s TLS listener with ``client`` settings, and the
    shipped rules over the board's signals (the alert service's engine, on its own)."""

    def __init__(
        self, cluster: LocalCluster, client: dict[str, object], listed: bool = True
    ) -> None:
        config: MonitorConfig = from_mapping(
            {"kafka": {"bootstrap_servers": cluster.secure_bootstrap_servers, "client": client}}
        )
        self.board = SignalBoard(config.job, live=True)
        secured = {n.broker_id: address(f"127.0.0.1:{n.secure_port}") for n in cluster.nodes}
        # listed: from the metadata, over TLS; else (a CA the broker's is not) as given
        self.pings = BrokerPings(config, self.board, lister=None if listed else lambda: secured,
                                 evidence=False, watch=False)  # fmt: skip
        self.engine = Engine(load_rules(REPO / "conf" / "alerts.yaml"))
        self.store = SignalStore(ttl_s=60)

    def signal(self, name: str) -> list[Signal]:
        return [s for s in self.board.signals() if s.name == name]

    def firing(self, rule: str) -> Alert | None:
        now = time.time()
        self.store.replace(self.board.signals(), now, keep=())
        self.engine.evaluate(self.store, now)
        found = [a for a in self.engine.alerts.values() if a.rule == rule]
        return found[0] if found and found[0].state == AlertState.FIRING else None


def not_after(certificate: Path) -> float:
    out = subprocess.run(["openssl", "x509", "-noout", "-enddate", "-in", str(certificate)],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return ssl.cert_time_to_seconds(out.strip().removeprefix("notAfter="))


def test_a_certificate_about_to_expire_pages_and_an_untrusted_one_says_why(
    local_cluster: Callable[..., LocalCluster], tmp_path: Path
) -> None:
    cluster = local_cluster(brokers=1, security="tls", cert_days=3)
    assert cluster.security is not None
    (node,) = cluster.nodes

    trusting = Monitor(cluster, cluster.security.client_settings())
    trusting.pings.start()
    try:
        (expiry,) = wait_for(lambda: trusting.signal(SIGNAL), 60, "the certificate's expiry")
    finally:
        trusting.pings.stop()
    assert expiry.label("broker_id") == str(node.broker_id)
    assert expiry.value == not_after(cluster.security.secrets_dir / "broker.crt")
    assert 2.9 < expiry.details["days_left"] <= 3.0, expiry.details
    assert expiry.details["subject"] == "CN=localhost"
    assert expiry.details["issuer"] == "CN=kafka-health dev cluster CA"
    page = trusting.firing("BrokerCertificateExpiringSoon")
    assert page is not None and page.labels["severity"] == "critical"
    assert page.labels["broker_id"] == str(node.broker_id)
    assert "days left)" in page.annotations["summary"], page.annotations
    assert trusting.firing("BrokerCertificateExpiring") is None, "the page, not a warning too"

    other_ca = self_signed_ca(tmp_path, "other")
    distrusting = Monitor(
        cluster, {"security_protocol": "SSL", "ssl_cafile": str(other_ca)}, listed=False
    )
    distrusting.pings.list_once()
    distrusting.pings.start()
    try:
        page = wait_for(
            lambda: distrusting.firing("BrokerNotAnswering"), 30, "BrokerNotAnswering (tls)"
        )
    finally:
        distrusting.pings.stop()
    assert page.details["outcome"] == "tls", page.details
    assert page.details["tls_failure"] == "unknown_authority", page.details
    assert "not signed by a CA the monitor trusts" in page.annotations["description"]
    assert distrusting.signal(SIGNAL) == [], "no handshake completed: no certificate"
