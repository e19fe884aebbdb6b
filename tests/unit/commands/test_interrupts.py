"""interrupted_by_signals: a stop signal unwinds the block once, a second one does not
interrupt its cleanup, and the handlers set before come back."""

from __future__ import annotations

import os
import signal

import pytest

from kafka_health.commands.interrupts import interrupted_by_signals


def test_sigterm_raises_keyboard_interrupt_once_and_the_cleanup_runs_whole() -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    cleaned = []
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"), interrupted_by_signals():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            raise AssertionError("the signal did not interrupt the block")
        finally:
            os.kill(os.getpid(), signal.SIGTERM)  # forwarded again by a wrapper: ignored
            os.kill(os.getpid(), signal.SIGINT)  # a second Ctrl-C: ignored
            cleaned.append("stopped what it started")
    assert cleaned == ["stopped what it started"]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_only_the_named_signals_are_taken() -> None:
    before = signal.getsignal(signal.SIGINT)
    with interrupted_by_signals((signal.SIGTERM,)):
        assert signal.getsignal(signal.SIGINT) == before
        assert callable(signal.getsignal(signal.SIGTERM))
    assert signal.getsignal(signal.SIGINT) == before
