"""Time as an injected dependency: wall time for records, monotonic time for durations."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    """The two clocks the canary and the prober read; tests pass a fake."""

    def time(self) -> float:
        """Wall-clock seconds since the epoch (record timestamps)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never jumps (latencies, schedules)."""
        ...


class SystemClock:
    """The real clocks."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


SYSTEM_CLOCK: Clock = SystemClock()


def run_every(
    interval_s: float, stop: threading.Event, clock: Clock, body: Callable[[], object]
) -> int:
    """Call ``body`` at a fixed rate until ``stop`` is set; return the rounds skipped.

    Rounds missed while ``body`` was slow are skipped, not made up. ``body`` must not raise.
    """
    skipped = 0
    next_at = clock.monotonic()
    while not stop.is_set():
        body()
        next_at += interval_s
        now = clock.monotonic()
        if now > next_at:
            missed = int((now - next_at) // interval_s) + 1
            skipped += missed
            next_at += missed * interval_s
        stop.wait(max(0.0, next_at - now))
    return skipped
