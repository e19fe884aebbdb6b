"""A secured client listener for the dev cluster: SASL_PLAINTEXT with SCRAM-SHA-512, or TLS
with a CA and a broker certificate made for the run.

The brokers keep their PLAINTEXT listener for each other and for the dev cluster's own tools;
the secured listener is the one a monitor is pointed at (``LocalCluster.secure_bootstrap_servers``).
SCRAM credentials are created when KRaft storage is formatted (``--add-scram``), so SASL is
offered in KRaft mode only. Secrets live in ``<cluster dir>/secrets`` (0600): the SASL
password in ``sasl-password``, the TLS CA in ``ca.pem`` (what clients trust) and the broker's
key and certificate (for 127.0.0.1 and localhost) in ``broker-keystore.pem``. The broker
certificate is valid for ``cert_days`` (default :data:`CERT_DAYS`; a short one makes a
certificate about to expire, as kafka-health's certificate alerts see it).
"""

from __future__ import annotations

import os
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kafka_health.dev.devcluster.errors import DevClusterError

Security = Literal["none", "sasl", "tls"]
SASL_USER = "kafka-health"
SCRAM_MECHANISM = "SCRAM-SHA-512"
LISTENER = {"sasl": "SASL_PLAINTEXT", "tls": "SSL"}
CERT_DAYS = 7


@dataclass(frozen=True)
class ListenerSecurity:
    """The secured listener's material under ``secrets_dir``."""

    kind: Security
    secrets_dir: Path
    cert_days: int = CERT_DAYS
    """How long the broker certificate is valid (the CA: at least as long)."""

    @property
    def listener(self) -> str:
        return LISTENER[self.kind]

    @property
    def password_file(self) -> Path:
        return self.secrets_dir / "sasl-password"

    @property
    def ca_file(self) -> Path:
        return self.secrets_dir / "ca.pem"

    @property
    def keystore_file(self) -> Path:
        return self.secrets_dir / "broker-keystore.pem"

    def prepare(self) -> None:
        """Make the password or the CA and the broker certificate (once per cluster)."""
        self.secrets_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.secrets_dir, 0o700)
        if self.kind == "sasl" and not self.password_file.exists():
            _write_secret(self.password_file, secrets.token_urlsafe(24))
        if self.kind == "tls" and not self.keystore_file.exists():
            self._make_certificates()

    def password(self) -> str:
        return self.password_file.read_text(encoding="utf-8").strip()

    def broker_properties(self) -> dict[str, str]:
        """What each broker's ``server.properties`` needs for the secured listener."""
        if self.kind == "sasl":
            name = self.listener.lower()
            return {
                "sasl.enabled.mechanisms": SCRAM_MECHANISM,
                f"listener.name.{name}.{SCRAM_MECHANISM.lower()}.sasl.jaas.config": (
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;"
                ),
            }
        return {
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(self.keystore_file),
            "ssl.client.auth": "none",
        }

    def format_arguments(self) -> list[str]:
        """Extra ``kafka-storage format`` arguments: the SCRAM credential of the user."""
        if self.kind != "sasl":
            return []
        return ["--add-scram", f"{SCRAM_MECHANISM}=[name={SASL_USER},password={self.password()}]"]

    def client_settings(self) -> dict[str, object]:
        """The ``kafka.client`` section a monitor needs for this listener, as in its config
        file (the password as a file reference, never inline)."""
        if self.kind == "sasl":
            return {
                "security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": SCRAM_MECHANISM,
                "sasl_username": SASL_USER, "sasl_password": {"file": str(self.password_file)},
            }  # fmt: skip
        return {"security_protocol": "SSL", "ssl_cafile": str(self.ca_file)}

    def _make_certificates(self) -> None:
        d = self.secrets_dir
        ca_key, key, csr, cert = d / "ca.key", d / "broker.key", d / "broker.csr", d / "broker.crt"
        san = d / "broker.ext"
        san.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n", encoding="utf-8")
        for command in (
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key),
             "-out", str(self.ca_file), "-days", str(max(CERT_DAYS, self.cert_days)), "-subj",
             "/CN=kafka-health dev cluster CA"],
            ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
             str(csr), "-subj", "/CN=localhost"],
            ["openssl", "x509", "-req", "-in", str(csr), "-CA", str(self.ca_file), "-CAkey",
             str(ca_key), "-CAcreateserial", "-out", str(cert), "-days", str(self.cert_days),
             "-extfile", str(san)],
        ):  # fmt: skip
            result = subprocess.run(command, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                raise DevClusterError(f"{' '.join(command[:3])} failed: {result.stderr[-500:]}")
        _write_secret(
            self.keystore_file,
            key.read_text(encoding="utf-8") + cert.read_text(encoding="utf-8"),
        )


def _write_secret(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
