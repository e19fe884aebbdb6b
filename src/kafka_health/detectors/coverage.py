"""Coverage and silences: what must keep happening, judged on the clock.

- A canary partition (acks=all) must keep reporting: silent once no result arrived for
  ``canary_silence_s``; its value is then the age of its newest result, else 0.
- Each broker's log kinds (server, controller, state-change, gc) must keep arriving: their
  age is the time since the job last received a record of that stream. A live broker (per the
  prober) that never sent a kind is reported with the time since the broker was first seen.
- A ``__consumer_offsets`` load that started and did not finish within
  ``coordinator_load_stuck_s`` is stuck.

Arrival is judged by the time the job folded the record (``now`` of :meth:`fold`), the
silence by ``now`` of :meth:`signals`: the driver evaluates it on every tick, with no new data.

Subjects that left the cluster are forgotten (:meth:`prune`, against the board's
:class:`~kafka_health.detectors.inventory.Inventory`): a canary partition with no result for
``job.inventory_ttl_s`` that the canary topic no longer has; a broker's log streams, pending
coordinator loads and snapshot entry once the broker has neither logged nor been described
for that long and is no longer a member (not registered, no replica). Their series are then
gone: an alert on them resolves.

After a restart (state restored) nothing is judged until the job has folded a batch again,
and each silence counts from that batch at the earliest: the job's own downtime is not the
brokers' silence (seen: a kill -9 of the job paged brokers 1 and 2 for canary partitions
"silent" 37 s, the time the job was down).
"""

from __future__ import annotations

from typing import Any

from kafka_health.detectors.config import JobConfig
from kafka_health.detectors.inputs import Batch
from kafka_health.detectors.inventory import Inventory
from kafka_health.model import Signal, labels

LOGGED_KINDS = ("server", "controller", "state-change", "gc")


class Coverage:
    name = "coverage"

    def __init__(self, job: JobConfig, canary_topic: str | None = None) -> None:
        self._job = job
        self._canary_topic = canary_topic  # the canary's partitions are this topic's
        # partition -> [newest result (s), last arrival (s), leader]
        self._canary: dict[int, list[Any]] = {}
        self._streams: dict[tuple[str, str], float] = {}  # (broker, kind) -> last arrival
        # (broker, partition) -> [armed at, last news (s)]
        self._loads: dict[tuple[str, int], list[float]] = {}
        self._brokers: dict[str, list[Any]] = {}  # broker -> [live, first seen, last seen]
        self._resumed = False  # state restored, no batch folded since

    def fold(self, batch: Batch, now: float) -> None:
        if self._resumed:
            self._resumed = False
            for entry in self._canary.values():
                entry[1] = max(entry[1], now)
            self._streams = {key: max(at, now) for key, at in self._streams.items()}
            self._brokers = {b: [live, max(first, now), last]
                             for b, (live, first, last) in self._brokers.items()}  # fmt: skip
        for o in sorted(batch.outcomes, key=lambda o: o.done_ms or 0):
            if o.acks != "all":
                continue
            seen = (o.done_ms / 1000.0) if o.done_ms is not None else now
            entry = self._canary.setdefault(o.partition, [seen, now, None])
            entry[0], entry[1] = max(entry[0], seen), now
            if o.leader is not None:
                entry[2] = str(o.leader)
        for stream in batch.streams:
            self._streams[(stream.broker_id, stream.kind)] = now
        for e in sorted(batch.events, key=lambda e: e.event_ms or 0):
            if e.broker_id is None or e.partition is None:
                continue
            key = (e.broker_id, int(e.partition))
            if e.type == "coordinator_load_start":
                self._loads.setdefault(key, [now, now])[1] = now
            elif e.type == "coordinator_load_finish":
                self._loads.pop(key, None)
        for r in sorted(batch.cluster, key=lambda r: r.at_ms):  # the newest snapshot decides
            if r.kind == "broker" and r.broker_id is not None:
                broker = str(r.broker_id)
                first = self._brokers.get(broker, [False, now, now])[1]
                self._brokers[broker] = [bool(r.live), first, now]

    def signals(self, now: float) -> list[Signal]:
        if self._resumed:
            return []  # unknown until the job reads again (MonitorStalled covers a job stuck)
        out = []
        for partition, (seen, arrived, leader) in sorted(self._canary.items()):
            age = max(0.0, now - seen)
            silent = now - arrived >= self._job.canary_silence_s
            out.append(
                Signal(
                    "canary_partition_silent_seconds",
                    labels(broker_id=leader or "unknown", partition=partition),
                    age if silent else 0.0,
                    now,
                    {"last_result_age_s": age, "state": "expired" if silent else "alive"},
                )
            )
        for (broker, kind), arrived in sorted(self._streams.items()):
            age = max(0.0, now - arrived)
            state = "expired" if age >= self._job.log_silence_s else "alive"
            out.append(
                Signal("log_stream_age_seconds", labels(broker_id=broker, kind=kind), age, now,
                       {"state": state})
            )  # fmt: skip
        out += self._never_seen_logs(now)
        stuck: dict[str, list[int]] = {}
        for (broker, partition), (armed, _news) in self._loads.items():
            if now - armed >= self._job.coordinator_load_stuck_s:
                stuck.setdefault(broker, []).append(partition)
        for broker, partitions in sorted(stuck.items()):
            out.append(
                Signal("coordinator_loads_stuck", labels(broker_id=broker), float(len(partitions)),
                       now, {"partitions": [str(p) for p in sorted(partitions)]})
            )  # fmt: skip
        return out

    def prune(self, inventory: Inventory, now: float) -> bool:
        """Forget the subjects that left the cluster (module docstring); True if any did."""
        if self._resumed:
            return False  # the saved times are refreshed at the next batch first
        before = len(self._canary) + len(self._streams) + len(self._loads) + len(self._brokers)
        self._canary = {
            p: entry for p, entry in self._canary.items()
            if not inventory.partition_left(self._canary_topic, p, entry[1], now)
        }  # fmt: skip
        seen = self._brokers_seen()
        self._streams = {
            key: at for key, at in self._streams.items()
            if not inventory.broker_left(key[0], max(at, seen.get(key[0], at)), now)
        }  # fmt: skip
        self._loads = {
            key: v for key, v in self._loads.items()
            if not inventory.broker_left(key[0], max(v[1], seen.get(key[0], v[1])), now)
        }  # fmt: skip
        self._brokers = {
            b: v for b, v in self._brokers.items()
            if not inventory.broker_left(b, max(v[2], seen.get(b, v[2])), now)
        }  # fmt: skip
        after = len(self._canary) + len(self._streams) + len(self._loads) + len(self._brokers)
        return after != before

    def _brokers_seen(self) -> dict[str, float]:
        """Per broker, the last time anything of it arrived (a record of any of its log
        streams, its entry in a snapshot)."""
        seen: dict[str, float] = {}
        for (broker, _kind), at in self._streams.items():
            seen[broker] = max(seen.get(broker, at), at)
        for broker, (_live, _first, last) in self._brokers.items():
            seen[broker] = max(seen.get(broker, last), last)
        return seen

    def _never_seen_logs(self, now: float) -> list[Signal]:
        out = []
        recent = now - self._job.isr_expire_after_s
        for broker, (live, first, last) in sorted(self._brokers.items()):
            if not live or last < recent:
                continue
            for kind in LOGGED_KINDS:
                if (broker, kind) not in self._streams:
                    out.append(
                        Signal("log_stream_age_seconds", labels(broker_id=broker, kind=kind),
                               now - first, now, {"state": "never"})
                    )  # fmt: skip
        return out

    def state(self) -> dict[str, Any]:
        return {
            "canary": [[p, *v] for p, v in self._canary.items()],
            "streams": [[b, k, at] for (b, k), at in self._streams.items()],
            "loads": [[b, p, v[0]] for (b, p), v in self._loads.items()],
            "brokers": [[b, *v] for b, v in self._brokers.items()],
        }

    def restore(self, state: dict[str, Any]) -> None:
        self._canary = {
            int(p): [seen, at, leader] for p, seen, at, leader in state.get("canary", [])
        }
        self._streams = {(b, k): float(at) for b, k, at in state.get("streams", [])}
        self._loads = {(b, int(p)): [float(at), float(at)] for b, p, at in state.get("loads", [])}
        self._brokers = {b: [bool(live), f, last] for b, live, f, last in state.get("brokers", [])}
        self._resumed = True
