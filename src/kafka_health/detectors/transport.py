"""Whether the transport cluster answers at all: the job's pings of its brokers, when the
monitor's own topics travel through a cluster of their own (``transport``).

The transport carries everything the monitor reads but its pings: the broker logs, the canary's
results and the cluster-state snapshots. When none of its brokers answers, the job is blind,
and its batches say so only seconds later (no batch: ``MonitorStalled``; the Kafka source
gives up: ``ClusterUnreachable``). The pings say it at once, and name the transport.

The brokers pinged are the transport's bootstrap servers (known before any metadata, so a
transport down when the job starts is still judged) and the brokers its metadata lists. One
broker down of several is no outage (a client needs one): the signal is the least of their
``unanswered`` seconds.

Signal ``transport_unanswered_seconds{reason}``: 0 with reason ``answered`` while any
transport broker answers; otherwise the seconds since the last of them answered, reason the
failure of the broker that answered last (``refused``, ``timeout``, ...). None before the
first ping's outcome (unknown).
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.reachability import Reachability, Unanswered
from kafka_health.model import Signal, labels
from kafka_health.reachability.config import ReachabilityConfig
from kafka_health.reachability.ping import Address, Ping, address

SIGNAL = "transport_unanswered_seconds"


def bootstrap_addresses(servers: list[str]) -> dict[int, Address]:
    """The bootstrap servers as pseudo brokers -1, -2, ... (a real broker id is never
    negative), each ``host:port`` (``[v6]:port`` too)."""
    return {-1 - i: address(server) for i, server in enumerate(servers)}


class TransportReachability:
    """The transport's brokers' pings, judged as one cluster (see the module docstring)."""

    name = "transport_reachability"

    def __init__(self, bootstrap_servers: list[str], config: ReachabilityConfig | None = None):
        self._seeds = bootstrap_addresses(bootstrap_servers)
        self._brokers = Reachability(config)
        self._brokers.listed(self._seeds, 0.0)

    # ------------------------------------------------------------------ inputs

    def listed(self, brokers: dict[int, Address], now: float) -> None:
        """The transport's metadata: its brokers, beside the bootstrap servers."""
        self._brokers.listed({**brokers, **self._seeds}, now)

    def answered(self, pings: list[Ping]) -> None:
        self._brokers.answered(pings)

    def fold(self, batch: Batch, now: float) -> None:
        """Nothing: the batches' snapshots are the monitored cluster's, not the transport's."""

    # ------------------------------------------------------------------ outputs

    def targets(self) -> dict[int, Address]:
        return self._brokers.targets()

    def signals(self, now: float) -> list[Signal]:
        pinged = self._brokers.unanswered(now)
        if not pinged:
            return []
        freshest = min(pinged.values(), key=lambda u: (u.seconds, u.address))
        details = {
            **freshest.details(),
            "addresses": ", ".join(sorted({u.address for u in pinged.values()})),
            "outcomes": _outcomes(pinged),
        }
        scope = labels(reason=freshest.outcome)
        return [Signal(SIGNAL, scope, freshest.seconds, now, details)]

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        return self._brokers.state()

    def restore(self, state: dict[str, Any]) -> None:
        """As :meth:`Reachability.restore`; the bootstrap servers are this config's."""
        self._brokers.restore(state)
        saved = self._brokers.targets()
        self._brokers.forget({b for b, a in saved.items() if b < 0 and self._seeds.get(b) != a})
        known = self._brokers.targets()
        self._brokers.listed({b: a for b, a in self._seeds.items() if b not in known}, 0.0)


def _outcomes(pinged: dict[int, Unanswered]) -> str:
    """Each address's last outcome, for the page: ``host:9092 refused, host:9093 timeout``."""
    by_address = {u.address: u.outcome for u in pinged.values()}
    return ", ".join(f"{address} {outcome}" for address, outcome in sorted(by_address.items()))
