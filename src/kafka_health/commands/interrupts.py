"""SIGTERM and SIGINT as ``KeyboardInterrupt``, for commands that start processes: the signal
unwinds the command's ``finally`` clauses, which stop what it started. Without it SIGTERM ends
the Python process at once and leaves its brokers and Spark job running."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextmanager
def interrupted_by_signals(signals: tuple[signal.Signals, ...] = STOP_SIGNALS) -> Iterator[None]:
    """Within the block, the first of ``signals`` raises ``KeyboardInterrupt`` (named after
    it) and the rest are ignored until the block is left: a wrapper forwarding the signal
    again, or a second Ctrl-C, must not interrupt the cleanup. The handlers that were set
    before are put back on the way out."""

    def interrupt(signum: int, _frame: FrameType | None) -> None:
        for sig in signals:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, interrupt) for sig in signals}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
