"""The real system tools the tests run: Prometheus (Debian packages prometheus and
prometheus-alertmanager; scripts/install-system-deps.sh installs them) and openssl (test
certificates)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tool(name: str) -> str:
    """The path of a system tool; the test fails (not skips) when it is missing."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: run scripts/install-system-deps.sh (as root)")
    return path


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)


def openssl(*args: str | Path) -> None:
    """Run ``openssl`` with ``args``; it must succeed."""
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=60)


def signed_certificates(directory: Path, ca_name: str, alt_names: dict[str, str]) -> Path:
    """A test CA (``ca.crt``, ``ca.key``) in ``directory`` and, signed by it, a certificate
    ``<name>.crt`` with key ``<name>.key`` for each name, valid for its ``subjectAltName``
    (``"IP:127.0.0.1,DNS:localhost"``); returns ``directory``."""
    d = directory
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d / "ca.key",
            "-out", d / "ca.crt", "-days", "2", "-subj", f"/CN={ca_name}")  # fmt: skip
    for name, san in alt_names.items():
        (d / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", d / f"{name}.key",
                "-out", d / f"{name}.csr", "-subj", f"/CN={name}")  # fmt: skip
        openssl("x509", "-req", "-in", d / f"{name}.csr", "-CA", d / "ca.crt", "-CAkey",
                d / "ca.key", "-CAcreateserial", "-out", d / f"{name}.crt", "-days", "2",
                "-extfile", d / f"{name}.ext")  # fmt: skip
    return d


def self_signed_ca(directory: Path, name: str) -> Path:
    """A self-signed CA certificate ``<name>-ca.pem`` (key ``<name>.key``) in ``directory``,
    valid a day: one the brokers' certificates are not from."""
    ca = directory / f"{name}-ca.pem"
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory / f"{name}.key",
            "-out", ca, "-days", "1", "-subj", f"/CN={name}")  # fmt: skip
    return ca
