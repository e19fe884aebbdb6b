"""Delivery workers: a thread per receiver, each attempting only its own receiver's due outbox
entries, so a receiver that hangs, refuses or cannot even be asked holds back no other one's
pages. Each request is bounded by its receiver's ``timeout_s`` (:mod:`.http_exchange`), so a
worker, and ``stop()``, waits at most that long for an attempt in flight.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)

MIN_WAIT_S = 0.01


class DeliveryWorkers:
    """``deliver(name)`` attempts receiver ``name``'s due entries once; ``next_at(name)`` is
    when its next one is due (None: none pending). A worker runs them in a loop, sleeping
    until that time, the tick, or a :meth:`wake`, whichever comes first."""

    def __init__(
        self,
        names: Iterable[str],
        deliver: Callable[[str], object],
        next_at: Callable[[str], float | None],
        clock: Callable[[], float],
        tick_s: float,
    ) -> None:
        self._deliver = deliver
        self._next_at = next_at
        self._clock = clock
        self._tick_s = tick_s
        self._wakes = {name: threading.Event() for name in names}
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for name, wake in self._wakes.items():
            thread = threading.Thread(
                target=self._run, args=(name, wake), name=f"kafka-health-delivery-{name}",
                daemon=True,
            )  # fmt: skip
            thread.start()
            self._threads.append(thread)

    def wake(self, names: Iterable[str]) -> None:
        """Have these receivers' workers look at the outbox now (new notifications)."""
        for name in names:
            wake = self._wakes.get(name)
            if wake is not None:
                wake.set()

    def stop(self, timeout_s: float) -> None:
        """Stop every worker; each ends once its attempt in flight (if any) ends."""
        self._stopping.set()
        for wake in self._wakes.values():
            wake.set()
        for thread in self._threads:
            thread.join(timeout_s)
        self._threads.clear()

    def _run(self, name: str, wake: threading.Event) -> None:
        while not self._stopping.is_set():
            wake.clear()  # before the attempt: a wake during it is not lost
            wait = self._tick_s
            try:
                self._deliver(name)
                due = self._next_at(name)
                if due is not None:
                    wait = min(max(due - self._clock(), MIN_WAIT_S), self._tick_s)
            except Exception:  # a bug or the disk: logged, tried again a tick later
                log.exception("notification delivery to %s failed", name)
            wake.wait(wait)
