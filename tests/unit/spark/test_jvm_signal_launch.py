"""The child of a launch under ``gateway_ignores_sigterm`` ignores SIGTERM; the parent and later
launches are untouched. (The real JVM: ``tests/spark/test_jvm_signals.py``.)"""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from pyspark import java_gateway

from kafka_health.spark.jvm_signals import LAUNCH, gateway_ignores_sigterm, ignoring_sigterm

# Prints the child's dispositions of SIGTERM and SIGINT: "ignored", "default" or "handled".
PROBE = """
import signal
names = {signal.SIG_IGN: "ignored", signal.SIG_DFL: "default"}
print(*(names.get(signal.getsignal(s), "handled") for s in (signal.SIGTERM, signal.SIGINT)))
"""


def probe(**kwargs: object) -> list[str]:
    """The dispositions a child started through pyspark's ``Popen`` name reports."""
    launch: Any = getattr(java_gateway, LAUNCH)
    out: str = launch(
        [sys.executable, "-c", PROBE], stdout=subprocess.PIPE, text=True, **kwargs
    ).communicate(timeout=60)[0]
    return out.split()


def test_the_child_ignores_sigterm_after_pysparks_own_preexec() -> None:
    with gateway_ignores_sigterm() as arranged:
        assert arranged
        dispositions = probe(preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert dispositions == ["ignored", "ignored"]


def test_the_parent_and_later_launches_keep_their_handlers() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with gateway_ignores_sigterm():
        assert signal.getsignal(signal.SIGTERM) is before
    assert signal.getsignal(signal.SIGTERM) is before
    assert probe()[0] == "default"


def test_the_launch_is_restored_when_the_session_fails() -> None:
    launch = getattr(java_gateway, LAUNCH)
    try:
        with gateway_ignores_sigterm():
            assert getattr(java_gateway, LAUNCH) is not launch
            raise RuntimeError("the JVM did not start")
    except RuntimeError:
        pass
    assert getattr(java_gateway, LAUNCH) is launch


def test_a_preexec_that_is_none_is_skipped() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        preexec_fn=ignoring_sigterm(None),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["ignored", "handled"]
