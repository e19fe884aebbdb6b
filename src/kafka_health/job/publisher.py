"""The job's publications of its signals, off the batch thread.

A batch asks (:meth:`Publisher.soon`) and goes on; the publisher thread computes every
detector's signals and hands them to the sinks at once, while the next batch reads and
parses in the JVM. In an election storm (20,000 log records/s, 228,000 elections in the
window) the batch thread had spent 0.5-0.6 s a batch publishing, a third of it waiting for
the tick's own publication. The thread also publishes every ``tick_s`` without an ask: absence
alerts, the pings' verdicts and staleness move with the clock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Publisher:
    """Calls ``publish`` when asked and at least every ``tick_s``, from the thread that
    :meth:`start` runs; asked while no thread runs, publishes in the asking thread."""

    def __init__(self, publish: Callable[[], None]) -> None:
        self._publish = publish
        self._wanted = threading.Event()
        self._running = False

    def soon(self) -> None:
        """Publish now: from the publisher thread while it runs, else here."""
        if self._running:
            self._wanted.set()
        else:
            self._publish()

    def start(self, stop: threading.Event, tick_s: float) -> threading.Thread:
        """Publish on each ask (asks made during a publication are served by one more) and
        each ``tick_s`` without one, on a daemon thread, until ``stop``."""
        self._running = True
        thread = threading.Thread(target=self._loop, args=(stop, tick_s), daemon=True)
        thread.start()
        return thread

    def finish(self, thread: threading.Thread, timeout_s: float = 5.0) -> None:
        """Wait for the thread, then serve an ask it did not (a batch ended after it)."""
        thread.join(timeout=timeout_s)
        self._running = False
        if self._wanted.is_set():
            self._wanted.clear()
            self._publish_logged()

    def _loop(self, stop: threading.Event, tick_s: float) -> None:
        while True:
            asked = self._wanted.wait(tick_s)
            self._wanted.clear()
            if stop.is_set() and not asked:
                return
            self._publish_logged()
            if stop.is_set():  # an ask made before the stop was served
                return

    def _publish_logged(self) -> None:
        try:
            self._publish()
        except Exception:  # the next ask or tick tries again
            log.exception("publishing the signals failed")
