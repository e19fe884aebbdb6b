"""A plan's cost as the cost benchmarks report it: the fastest of several collects, in core
time a record on Spark ``local[2]``'s two cores."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

CORES = 2


def collect_seconds(build: Callable[[], Any], runs: int) -> list[float]:
    """Seconds each of ``runs`` collects took, of a plan ``build`` makes anew for each."""
    times = []
    for _ in range(runs):
        df = build()
        started = time.monotonic()
        df.collect()
        times.append(time.monotonic() - started)
    return times


def cost_line(name: str, seconds: float, records: int, width: int) -> str:
    """``name``, the seconds, the records a second and the core microseconds a record."""
    return (f"{name:{width}s} {seconds:5.2f} s {records / seconds:12,.0f} records/s "
            f"{CORES * seconds / records * 1e6:6.1f} us/record")  # fmt: skip
