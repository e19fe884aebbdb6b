"""The dev cluster's secured listener: broker properties, SCRAM credentials, a TLS chain."""

from __future__ import annotations

import ssl
import stat
from pathlib import Path

import pytest

from kafka_health.dev.devcluster import ClusterSpec, LocalCluster
from kafka_health.dev.devcluster.errors import DevClusterError


def test_sasl_adds_a_scram_listener_beside_plaintext(tmp_path: Path) -> None:
    cluster = LocalCluster.create(ClusterSpec(dir=tmp_path, brokers=3, security="sasl"))
    assert cluster.security is not None
    cluster.security.prepare()
    node = cluster.nodes[0]
    props = cluster._broker_properties(node)
    assert props["listeners"].endswith(f",SASL_PLAINTEXT://127.0.0.1:{node.secure_port}")
    assert "SASL_PLAINTEXT:SASL_PLAINTEXT" in props["listener.security.protocol.map"]
    assert props["inter.broker.listener.name"] == "PLAINTEXT"
    assert props["sasl.enabled.mechanisms"] == "SCRAM-SHA-512"
    assert cluster.secure_bootstrap_servers == [f"127.0.0.1:{n.secure_port}" for n in cluster.nodes]
    password = cluster.security.password()
    assert len(password) >= 24
    assert cluster.security.format_arguments() == [
        "--add-scram",
        f"SCRAM-SHA-512=[name=kafka-health,password={password}]",
    ]
    mode = stat.S_IMODE(cluster.security.password_file.stat().st_mode)
    assert mode == 0o600
    settings = cluster.security.client_settings()
    assert settings["sasl_password"] == {"file": str(cluster.security.password_file)}


def test_sasl_needs_kraft(tmp_path: Path) -> None:
    with pytest.raises(DevClusterError, match="KRaft"):
        LocalCluster.create(ClusterSpec(dir=tmp_path, mode="zookeeper", security="sasl"))


def test_tls_makes_a_ca_and_a_certificate_for_127_0_0_1(tmp_path: Path) -> None:
    cluster = LocalCluster.create(ClusterSpec(dir=tmp_path, brokers=1, security="tls"))
    assert cluster.security is not None
    cluster.security.prepare()
    props = cluster._broker_properties(cluster.nodes[0])
    assert props["ssl.keystore.type"] == "PEM"
    keystore = Path(props["ssl.keystore.location"]).read_text()
    assert "BEGIN PRIVATE KEY" in keystore and "BEGIN CERTIFICATE" in keystore
    context = ssl.create_default_context(cafile=str(cluster.security.ca_file))
    context.load_cert_chain(str(cluster.security.keystore_file))  # key and cert belong together
    assert cluster.security.client_settings() == {
        "security_protocol": "SSL",
        "ssl_cafile": str(cluster.security.ca_file),
    }
