"""The soak's figures: memory by role in a process tree, and the verdict after minute 5."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

from kafka_health.dev.loadgen.soak import rss_by_role, verdict


def test_rss_of_a_process_tree_by_role() -> None:
    """A driver whose child is a Python worker holding 50 MB: each counted in its role (the
    tree is the test's own, so a Spark JVM of the test process does not count)."""
    worker = "import time; x = bytearray(50_000_000); time.sleep(30)"
    driver = (
        "import subprocess, sys, time; "
        f"subprocess.Popen([sys.executable, '-c', {worker!r}, 'pyspark.daemon']); time.sleep(30)"
    )
    root = subprocess.Popen([sys.executable, "-c", driver])
    try:
        found = rss_by_role(root.pid)
        for _ in range(100):  # until the worker has its 50 MB
            if found["workers"] > 50_000_000:
                break
            subprocess.run(["sleep", "0.05"], check=True)
            found = rss_by_role(root.pid)
        assert found["driver"] > 1_000_000 and found["workers"] > 50_000_000
        assert found["jvm"] == 0
    finally:
        for pid in [root.pid, *_children(root.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        root.wait()


def _children(pid: int) -> list[int]:
    path = f"/proc/{pid}/task/{pid}/children"
    return [int(c) for c in open(path).read().split()] if os.path.exists(path) else []


def test_the_verdict_holds_every_sample_after_minute_5_to_it() -> None:
    samples = [{"minute": m, "jvm": 100 + m, "state_views": 50} for m in range(1, 5)]
    samples += [{"minute": 5, "jvm": 500, "state_views": 50},
                {"minute": 6, "jvm": 540, "state_views": 50},
                {"minute": 7, "jvm": 560, "state_views": 50}]  # fmt: skip
    found = verdict(samples, ("jvm", "state_views"))
    assert found["jvm"] == {"at_minute_5": 500, "min_after": 540, "max_after": 560,
                            "within_10_percent": False}  # fmt: skip
    assert found["state_views"]["within_10_percent"]
