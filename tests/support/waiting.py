"""Polling until something happens, for tests on real parts (no timed assertions: the
deadline only bounds a wait, its expiry fails with what was awaited)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal, TypeVar

T = TypeVar("T")


def wait_for(
    condition: Callable[[], T | Literal[False] | None],
    timeout_s: float,
    what: str,
    poll_s: float = 0.5,
) -> T:
    """Poll ``condition`` until it returns something truthy; fail with ``what`` at the deadline.
    The value returned is truthy, so never the ``None`` or ``False`` a condition returns while
    it waits (as in ``lambda: ready() and value()``): typed without them."""
    deadline = time.monotonic() + timeout_s
    last = condition()
    while not last:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(poll_s)
        last = condition()
    return last
