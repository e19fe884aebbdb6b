"""The real Prometheus tools the tests run (Debian packages prometheus and
prometheus-alertmanager; scripts/install-system-deps.sh installs them)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def tool(name: str) -> str:
    """The path of a system tool; the test fails (not skips) when it is missing."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: run scripts/install-system-deps.sh (as root)")
    return path


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)
