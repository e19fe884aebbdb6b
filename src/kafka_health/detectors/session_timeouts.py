"""Each broker's session timeout: what its own log says, else the configuration.

A broker's log states the timeout it runs with (``session_timeout`` events, see
``kafka_health.parsing.patterns``): the ZooKeeper client's "Initiating client connection ...
sessionTimeout=N" line and the start-up KafkaConfig dump. The dump lists both keys in Kafka 3.x;
the one used is the one its mode enforces: in ZooKeeper mode (``process.roles`` unset or empty)
``zookeeper.session.timeout.ms``, in KRaft (``process.roles`` set) ``broker.session.timeout.ms``,
which the controller enforces on the broker's heartbeats (a combined node logs the same
value; a controller-only node has no broker session of its own and is compared with the
timeout it enforces on brokers). The newest statement of a broker wins
(a restart with a new setting logs it again); a broker whose log said nothing yet gets
``job.session_timeout_ms_by_broker`` or ``job.session_timeout_ms``.
"""

from __future__ import annotations

from typing import Any, Literal

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import LogEvent
from kafka_health.detectors.inventory import Inventory

SESSION_TIMEOUT_EVENT = "session_timeout"

Source = Literal["log", "config"]


class SessionTimeouts:
    """The latest session timeout each broker's log stated, with the configuration behind it."""

    def __init__(self, job: JobConfig) -> None:
        self._job = job
        self._seen: dict[str, tuple[int, int]] = {}  # broker -> (timeout_ms, event_ms)

    def observe(self, events: list[LogEvent]) -> None:
        """Remember the newest stated timeout per broker (by the log's own time)."""
        for e in events:
            ms = e.session_timeout_ms
            if e.type != SESSION_TIMEOUT_EVENT or not e.broker_id or ms is None or ms <= 0:
                continue
            at = e.event_ms if e.event_ms is not None else 0
            known = self._seen.get(e.broker_id)
            if known is None or at >= known[1]:
                self._seen[e.broker_id] = (int(ms), at)

    def timeout_s(self, broker: str) -> tuple[float, Source]:
        """The broker's session timeout in seconds and where it came from."""
        seen = self._seen.get(broker)
        if seen is not None:
            return seen[0] / 1000.0, "log"
        ms = self._job.session_timeout_ms_by_broker.get(broker, self._job.session_timeout_ms)
        return ms / 1000.0, "config"

    def prune(self, inventory: Inventory, now: float) -> bool:
        """Forget the brokers that left the cluster (by the time their log stated it)."""
        gone = [b for b, (_ms, at) in self._seen.items()
                if inventory.broker_left(b, at / 1000.0, now)]  # fmt: skip
        for broker in gone:
            del self._seen[broker]
        return bool(gone)

    def state(self) -> dict[str, Any]:
        return {broker: list(seen) for broker, seen in self._seen.items()}

    def restore(self, state: dict[str, Any]) -> None:
        self._seen = {str(b): (int(v[0]), int(v[1])) for b, v in state.items()}
