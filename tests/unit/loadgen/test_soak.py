"""The soak's figures: memory by role in a process tree, and the verdict after minute 5."""

from __future__ import annotations

import os
import subprocess
import sys

from kafka_health.loadgen.soak import rss_by_role, verdict


def test_rss_of_a_process_tree_by_role() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; x = bytearray(50_000_000); time.sleep(30)",
         "pyspark.daemon"],
    )  # fmt: skip
    try:
        for _ in range(100):  # until the child has its 50 MB
            found = rss_by_role(os.getpid())
            if found["workers"] > 50_000_000:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert found["driver"] > 10_000_000 and found["workers"] > 50_000_000
        assert found["jvm"] == 0
    finally:
        child.kill()
        child.wait()


def test_the_verdict_holds_every_sample_after_minute_5_to_it() -> None:
    samples = [{"minute": m, "jvm": 100 + m, "state_views": 50} for m in range(1, 5)]
    samples += [{"minute": 5, "jvm": 500, "state_views": 50},
                {"minute": 6, "jvm": 540, "state_views": 50},
                {"minute": 7, "jvm": 560, "state_views": 50}]  # fmt: skip
    found = verdict(samples, ("jvm", "state_views"))
    assert found["jvm"] == {"at_minute_5": 500, "min_after": 540, "max_after": 560,
                            "within_10_percent": False}  # fmt: skip
    assert found["state_views"]["within_10_percent"]
