"""Keep the job's queries running: restart a terminated query from its checkpoint.

A query terminates when Kafka stays unreachable past the source's retries, or when a batch
fails. The supervisor logs why, records it in :class:`~kafka_health.job.health.JobHealth`
(a Kafka error: ``job_kafka_unreachable``, paging ``ClusterUnreachable``; any other error, a
bug: ``job_query_failed`` with the exception's class, paging ``MonitorFailed``) and restarts
the query with capped exponential backoff; a query that stayed up for ``backoff_max`` starts
over from the initial backoff. It stops only when asked (an operator's signal), stopping every
query within Spark's ``spark.sql.streaming.stopTimeout``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.job.health import JobHealth, classify_error

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueryDefinition:
    """A named query and how to start it (from its checkpoint)."""

    name: str
    start: Callable[[], Any]  # returns a started pyspark StreamingQuery
    needs_processing_time: bool = False  # timers on the wall clock: not for available-now runs


@dataclass
class _Slot:
    definition: QueryDefinition
    query: Any = None
    started_at: float = 0.0
    next_start: float = 0.0
    backoff: float = 0.0


class Supervisor:
    """Starts, watches and restarts queries until ``stop`` is set."""

    def __init__(
        self,
        definitions: list[QueryDefinition],
        job: JobConfig,
        health: JobHealth,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._job = job
        self._health = health
        self._clock = clock
        self._slots = [_Slot(d, backoff=job.restart_backoff_initial_s) for d in definitions]

    def run(self, stop: threading.Event, poll_s: float = 1.0) -> None:
        """Supervise until ``stop`` is set; then stop every query."""
        try:
            while not stop.is_set():
                self.check_once()
                stop.wait(poll_s)
        finally:
            self.stop_all()

    def check_once(self) -> None:
        """Start queries that are due; record and schedule restarts of terminated ones."""
        now = self._clock()
        for slot in self._slots:
            name = slot.definition.name
            if slot.query is not None and slot.query.isActive:
                if now - slot.started_at >= self._job.restart_backoff_max_s:
                    slot.backoff = self._job.restart_backoff_initial_s
                continue
            if slot.query is not None:
                exception = slot.query.exception()
                error = _describe(exception)
                log.error("query %s terminated: %s; restart in %.0f s", name, error, slot.backoff)
                failed = classify_error(exception) if exception is not None else None
                self._health.on_terminated(name, error, failed)
                slot.query = None
                slot.next_start = now + slot.backoff
                slot.backoff = min(slot.backoff * 2, self._job.restart_backoff_max_s)
                continue
            if now < slot.next_start:
                continue
            self._start(slot, now)

    def _start(self, slot: _Slot, now: float) -> None:
        name = slot.definition.name
        restarting = slot.started_at > 0
        try:
            slot.query = slot.definition.start()
        except Exception as exc:  # a start failure is retried like a termination
            log.error("query %s could not start: %s", name, exc)
            self._health.on_terminated(name, _describe(exc), classify_error(exc))
            slot.next_start = now + slot.backoff
            slot.backoff = min(slot.backoff * 2, self._job.restart_backoff_max_s)
            slot.started_at = slot.started_at or now
            return
        slot.started_at = now
        if restarting:
            self._health.on_restart(name)
        self._health.on_started(name)
        log.info("query %s %s", name, "restarted" if restarting else "started")

    def stop_all(self) -> None:
        for slot in self._slots:
            try:  # asking, too: a stop signal to the process group may have ended the JVM
                if slot.query is not None and slot.query.isActive:
                    slot.query.stop()
            except Exception as exc:  # stopping is best effort; report and go on
                log.warning("stopping query %s: %s", slot.definition.name, exc)
            slot.query = None

    @property
    def queries(self) -> dict[str, Any]:
        return {s.definition.name: s.query for s in self._slots}


def _describe(error: Any) -> str:
    if error is None:
        return "stopped without an error"
    text = str(error).strip().splitlines()
    return text[0][:500] if text else type(error).__name__
