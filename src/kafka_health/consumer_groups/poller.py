"""The consumer-group poller: a source's round, the lag table fed, each partition's time lag.

:meth:`GroupsPoller.poll_once` asks the source for a round, records every partition's log
end offset in the :class:`~kafka_health.consumer_groups.lag.LagTable` at the round's end
(the log ends are its last reads), then estimates each committed offset's time lag from it.
A round that fails as a whole is a :class:`GroupsRound` with ``error`` (never an exception).
:meth:`start` runs rounds every ``interval_s`` on a thread of its own and hands each to
``on_round``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from kafka_health.clock import SYSTEM_CLOCK, Clock, run_every
from kafka_health.consumer_groups.config import ConsumerGroupsConfig
from kafka_health.consumer_groups.lag import LagTable, LagView, LogEnds
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
)
from kafka_health.consumer_groups.source import GroupsSource, why

log = logging.getLogger(__name__)

DURATION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class PollerMetrics:
    """The poller's own series (``kafka_health_consumer_groups_*``)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        ns = "kafka_health_consumer_groups"
        self.rounds = Counter(
            f"{ns}_rounds", "Poll rounds by outcome (ok, failed).", ["outcome"], registry=registry
        )
        self.duration = Histogram(
            f"{ns}_round_duration_seconds",
            "How long a poll round took.",
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.watched = Gauge(
            f"{ns}_watched", "Groups observed in the last complete round.", registry=registry
        )
        self.over_cap = Counter(
            f"{ns}_over_cap",
            "Watched groups left out of a round because max_groups were already taken.",
            registry=registry,
        )
        self.group_errors = Counter(
            f"{ns}_group_errors",
            "Groups a round could not describe or read the offsets of.",
            registry=registry,
        )


class GroupsPoller:
    """Rounds of a :class:`GroupsSource`, with time lag from a :class:`LagTable`."""

    def __init__(
        self,
        source: GroupsSource,
        table: LagTable,
        config: ConsumerGroupsConfig,
        clock: Clock = SYSTEM_CLOCK,
        metrics: PollerMetrics | None = None,
        on_round: Callable[[GroupsRound], object] | None = None,
    ) -> None:
        self.source = source
        self.table = table
        self.config = config
        self.clock = clock
        self.metrics = metrics
        self.on_round = on_round
        self.last: GroupsRound | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll_once(self) -> GroupsRound:
        """One round: never raises; a failed round carries its ``error``."""
        started = self.clock.monotonic()
        at_ms = int(self.clock.time() * 1000)
        lagged = getattr(self.source, "poll_lagged", None)
        try:
            if lagged is not None:  # the source sets the time lags as it builds the round
                result: GroupsRound = lagged(at_ms, self._lags)
            else:
                raw = self.source.poll(at_ms)
                # The log ends were read last in the round: they are sampled at its end.
                result = dataclasses.replace(
                    raw, groups=self._with_lag(raw.groups, self.clock.time())
                )
        except Exception as exc:
            log.warning("consumer-group round failed: %s", why(exc))
            result = GroupsRound(at_ms=at_ms, error=why(exc))
        result = dataclasses.replace(result, duration_s=self.clock.monotonic() - started)
        self._count(result)
        self.last = result
        return result

    def _lags(self, ends: LogEnds) -> LagView:
        """The round's log end offsets (its last reads) sampled now; the table to estimate
        the time lags from (what :meth:`_with_lag` does, for a source that builds the
        observations itself)."""
        now = self.clock.time()
        self.table.record_ends(ends, now)
        self.table.forget(now)
        return self.table.view(now)

    def _with_lag(
        self, groups: tuple[GroupObservation, ...], now: float
    ) -> tuple[GroupObservation, ...]:
        """Record every partition's log end (once), then set each partition's time lag."""
        ends: dict[tuple[str, int], int] = {}
        for g in groups:
            for p in g.partitions:
                if p.log_end is not None:
                    ends[(p.topic, p.partition)] = p.log_end
        record = self.table.record
        for (topic, partition), end in ends.items():
            record(topic, partition, end, now)
        self.table.forget(now)
        lag_of = self.table.lag_of
        out = []
        for g in groups:
            parts = []
            for p in g.partitions:
                lag_s, basis = lag_of(p.topic, p.partition, p.committed, p.log_start, p.log_end,
                                      now)  # fmt: skip
                parts.append(p.with_lag(lag_s, basis))
            out.append(g.with_partitions(tuple(parts)))
        return tuple(out)

    def _count(self, result: GroupsRound) -> None:
        if self.metrics is None:
            return
        self.metrics.rounds.labels("failed" if result.error else "ok").inc()
        self.metrics.duration.observe(result.duration_s)
        if result.error is None:
            self.metrics.watched.set(len(result.groups))
            self.metrics.over_cap.inc(result.over_cap)
            self.metrics.group_errors.inc(sum(g.error is not None for g in result.groups))

    # ------------------------------------------------------------------ thread

    def start(self) -> None:
        """Rounds every ``interval_s`` on a thread of its own, each handed to ``on_round``."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, name="kafka-health-consumer-groups", daemon=True
        )
        self._thread.start()

    def stop(self, timeout_s: float | None = None) -> None:
        """Stop the thread (a round under way finishes: its requests are bounded) and close
        the source."""
        self._stop.set()
        if self._thread is not None:
            wait = timeout_s if timeout_s is not None else 4 * self.config.request_timeout_s + 5
            self._thread.join(wait)
            self._thread = None
        self.source.close()

    def _run(self) -> None:
        run_every(self.config.interval_s, self._stop, self.clock, self._round)

    def _round(self) -> None:
        result = self.poll_once()
        if self.on_round is None:
            return
        try:
            self.on_round(result)
        except Exception:
            log.exception("the consumer-group round's handler failed")
