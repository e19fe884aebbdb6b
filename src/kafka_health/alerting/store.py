"""The latest value of every signal series, as the alert engine and the exporter read it.

A series (signal name + label set) keeps its newest value by event time; a replayed or late
batch never moves it back. Two ways in: ``update`` (some series; the others stay until the
TTL) and ``replace`` (a full snapshot, as the job publishes: a series it no longer reports is
gone at once). Series of the ``ttl_exempt`` names (timestamps, growing ages, the job's own
health) never expire by TTL: their absence is the symptom. Signals used by range conditions
also keep their recent values, one per event time (a replayed window overwrites itself), even
while the series is absent from the snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.model import LabelSet, Signal

SeriesKey = tuple[str, LabelSet]


@dataclass
class Series:
    """One series: its newest signal, when it was received, and its recent values."""

    signal: Signal
    received_at: float
    history: dict[float, float] = field(default_factory=dict)


@dataclass
class SignalStore:
    """Series by name and labels; ``history_s`` keeps values of the named signals that long."""

    ttl_s: float
    ttl_exempt: frozenset[str] = frozenset()
    history_s: dict[str, float] = field(default_factory=dict)
    _series: dict[SeriesKey, Series] = field(default_factory=dict)
    _history: dict[SeriesKey, dict[float, float]] = field(default_factory=dict)

    def update(self, signals: Iterable[Signal], now: float) -> None:
        for sig in signals:
            key = (sig.name, sig.labels)
            current = self._series.get(key)
            if current is None:
                self._series[key] = Series(sig, now, self._history.setdefault(key, {}))
            elif sig.at >= current.signal.at:
                current.signal, current.received_at = sig, now
            if sig.name in self.history_s:
                self._history.setdefault(key, {})[sig.at] = sig.value
                self._series[key].history = self._history[key]

    def replace(self, signals: Iterable[Signal], now: float, keep: Iterable[SeriesKey]) -> None:
        """A full snapshot: series not in it (nor in ``keep``) are gone."""
        batch = list(signals)
        present = {(s.name, s.labels) for s in batch} | set(keep)
        for key in [k for k in self._series if k not in present]:
            del self._series[key]
        self.update(batch, now)

    def expire(self, now: float) -> None:
        for key, series in list(self._series.items()):
            if key[0] not in self.ttl_exempt and now - series.received_at > self.ttl_s:
                del self._series[key]
        for key, values in list(self._history.items()):
            keep = self.history_s.get(key[0], 0.0)
            for at in [at for at in values if at < now - keep]:
                del values[at]
            if not values and key not in self._series:
                del self._history[key]

    def series(self, name: str) -> list[Series]:
        return [s for (n, _), s in self._series.items() if n == name]

    def history(self, name: str) -> list[tuple[LabelSet, dict[float, float]]]:
        """Recent values of every series of ``name``, present or not."""
        return [(lbl, values) for (n, lbl), values in self._history.items() if n == name]

    def signals(self) -> list[Signal]:
        return [s.signal for s in self._series.values()]

    def to_json(self) -> dict[str, Any]:
        return {
            "series": [
                {
                    "name": s.signal.name,
                    "labels": dict(s.signal.labels),
                    "value": s.signal.value,
                    "at": s.signal.at,
                    "details": s.signal.details,
                    "received_at": s.received_at,
                }
                for s in self._series.values()
            ],
            "history": [
                {"name": name, "labels": dict(lbl), "values": [[at, v] for at, v in values.items()]}
                for (name, lbl), values in self._history.items()
                if values
            ],
        }

    def restore(self, data: dict[str, Any], now: float) -> None:
        """Load a snapshot; restored series count as received now (a restart is no outage)."""
        for item in data.get("history", []):
            lbl = tuple(sorted((str(k), str(v)) for k, v in item["labels"].items()))
            self._history[(item["name"], lbl)] = {float(a): float(v) for a, v in item["values"]}
        for item in data.get("series", []):
            sig = signal_from_json(item)
            key = (sig.name, sig.labels)
            self._series[key] = Series(sig, now, self._history.setdefault(key, {}))

    def forget(self, names: Iterable[str]) -> None:
        """Drop every series (and its history) of these signals."""
        gone = set(names)
        for key in [k for k in self._series if k[0] in gone]:
            del self._series[key]
        for key in [k for k in self._history if k[0] in gone]:
            del self._history[key]


def signal_from_json(item: dict[str, Any]) -> Signal:
    """A Signal from ``{"name", "labels": {...}, "value", "at", "details"?}``."""
    labels_map = item.get("labels") or {}
    return Signal(
        name=str(item["name"]),
        labels=tuple(sorted((str(k), str(v)) for k, v in labels_map.items())),
        value=float(item["value"]),
        at=float(item["at"]),
        details=dict(item.get("details") or {}),
    )
