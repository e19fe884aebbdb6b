"""One lifecycle for every long-running part of the monitor, as Burrow's modules have it:
configure (build from the config: validate, connect to nothing), start (return once running),
stop (stop its threads, flush, idempotent).

:func:`configure` builds each part by name: ``alerts`` (the alert service), ``canary`` (the
canary, with its prober unless the config turns it off), ``cluster-state`` (the prober alone),
``shipper`` and ``job``. Parts whose work is a blocking loop (the shipper, the job) run it in
a thread of their own (:class:`ThreadedPart`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from kafka_health.config import MonitorConfig

log = logging.getLogger(__name__)

PARTS = ("alerts", "canary", "cluster-state", "shipper", "job")


@runtime_checkable
class Part(Protocol):
    """A long-running part: ``start`` returns once it runs, ``stop`` ends it (idempotent)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class ThreadedPart:
    """A part whose work is ``run(stop_event)``, blocking until the event is set."""

    def __init__(
        self, name: str, run: Callable[[threading.Event], Any], join_timeout_s: float = 120.0
    ) -> None:
        self.name = name
        self._run = run
        self._join_timeout_s = join_timeout_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        """What ended the work, if it did not end because it was asked to."""

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._work, name=f"kafka-health-{self.name}",
                                        daemon=True)  # fmt: skip
        self._thread.start()

    def _work(self) -> None:
        try:
            self._run(self._stop)
        except BaseException as exc:  # kept for the owner: the part ended on its own
            self.error = exc
            log.exception("%s ended with an error", self.name)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self._join_timeout_s)
            if self._thread.is_alive():
                log.error("%s did not stop within %.0f s", self.name, self._join_timeout_s)


def configure(name: str, config: MonitorConfig) -> Part:
    """The part called ``name`` (one of :data:`PARTS`), built from ``config``."""
    if name == "alerts":
        from kafka_health.alerting.service import AlertService

        return AlertService.from_config(config)
    if name == "canary":
        from kafka_health.canary.service import CanaryService

        return CanaryService(config)
    if name == "cluster-state":
        from prometheus_client import CollectorRegistry

        from kafka_health.canary.service import ClusterStateService

        return ClusterStateService(config, CollectorRegistry())
    if name == "shipper":
        from kafka_health.shipper.runner import run_shipper

        return ThreadedPart(name, lambda stop: run_shipper(config, stop))
    if name == "job":
        from kafka_health.job.main import run as run_job

        return ThreadedPart(name, lambda stop: run_job(config, stop))
    raise ValueError(f"unknown part {name!r}: one of {', '.join(PARTS)}")
