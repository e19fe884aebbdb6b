"""GC pauses per broker over the log window: Full GC count, pause sum and maximum, Full GC
pauses longer than the broker's session timeout (a pause past it loses the broker's session:
fencing or a ZooKeeper expiry follows; the timeout is the one the broker's own log states, else
the configured one: :mod:`kafka_health.detectors.session_timeouts`), and young/mixed pause
time.

The session timeout a broker's log stated is forgotten once the broker left the cluster
(:meth:`prune`); its pauses leave with the log window."""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.inventory import Inventory
from kafka_health.detectors.logwindow import LogWindow
from kafka_health.detectors.session_timeouts import SessionTimeouts
from kafka_health.model import Signal, labels


class Gc:
    name = "gc"

    def __init__(self, job: JobConfig) -> None:
        self._window = LogWindow(job, ("full_gc", "young_gc"))
        self._timeouts = SessionTimeouts(job)

    def fold(self, batch: Batch, now: float) -> None:
        self._timeouts.observe(batch.events)
        self._window.add(batch.events, lambda e: [e.pause_s])

    def prune(self, inventory: Inventory, now: float) -> bool:
        return self._timeouts.prune(inventory, now)

    def signals(self, now: float) -> list[Signal]:
        at = self._window.end_ms() / 1000.0
        full: dict[str, list[float]] = {}
        young: dict[str, float] = {}
        for _ms, broker, kind, pause in self._window.current():
            if kind == "full_gc":
                full.setdefault(broker, []).append(pause)
            else:
                young[broker] = young.get(broker, 0.0) + (pause or 0.0)
        out = []
        for broker, pauses in sorted(full.items()):
            scope = labels(broker_id=broker)
            known = [p for p in pauses if p is not None]
            timeout, source = self._timeouts.timeout_s(broker)
            over = sum(1 for p in known if p > timeout)
            out += [
                Signal("full_gc_count", scope, float(len(pauses)), at),
                Signal("full_gc_pause_seconds_sum", scope, float(sum(known)), at),
                Signal("full_gc_pause_seconds_max", scope, float(max(known, default=0.0)), at),
                Signal("full_gc_over_session_timeout", scope, float(over), at,
                       {"session_timeout_s": timeout, "session_timeout_source": source}),
            ]  # fmt: skip
        for broker, total in sorted(young.items()):
            out.append(Signal("young_gc_pause_seconds_sum", labels(broker_id=broker), total, at))
        return out

    def state(self) -> dict[str, Any]:
        return {**self._window.state(), "session_timeouts": self._timeouts.state()}

    def restore(self, state: dict[str, Any]) -> None:
        self._window.restore(state)
        self._timeouts.restore(state.get("session_timeouts", {}))
