"""The latest value of every signal series, as the alert engine and the exporter read it.

A series (signal name + label set) keeps its newest value by event time; a replayed or late
batch never moves it back. Two ways in: ``update`` (some series; the others stay until the
TTL) and ``replace`` (a full snapshot, as the job publishes: a series it no longer reports is
gone at once). Series of the ``ttl_exempt`` names (timestamps, growing ages, the job's own
health) never expire by TTL: their absence is the symptom. Signals used by range conditions
also keep their recent values, one per event time (a replayed window overwrites itself), even
while the series is absent from the snapshot.

Series are capped where they enter: at most ``max_series`` per signal name (the exporter's
``max_series_per_signal``), and as many histories. A series already held is always updated;
a new one past the cap is refused and counted (:meth:`SignalStore.dropped`, exported as
``kafka_health_signal_series_dropped_total{signal}``, once per refusal: a snapshot that
brings the same refused series every tick counts them every tick). The series held first
keep their places, so a flood of new label values (random broker ids) does not push the
monitored brokers' series out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.model import LabelSet, Signal

SeriesKey = tuple[str, LabelSet]
MAX_SERIES_PER_SIGNAL = 2000
"""The default cap (``alerting.exporter.max_series_per_signal``'s default)."""


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
    max_series: int = MAX_SERIES_PER_SIGNAL
    _series: dict[SeriesKey, Series] = field(default_factory=dict)
    _history: dict[SeriesKey, dict[float, float]] = field(default_factory=dict)
    _count: dict[str, int] = field(default_factory=dict)
    """Series held per signal name."""
    _history_count: dict[str, int] = field(default_factory=dict)
    _dropped: dict[str, int] = field(default_factory=dict)

    def update(self, signals: Iterable[Signal], now: float) -> None:
        for sig in signals:
            key = (sig.name, sig.labels)
            current = self._series.get(key)
            if current is None:
                if not self._admit(key):
                    continue
                self._series[key] = Series(sig, now, self._history_of(key))
                self._count[sig.name] = self._count.get(sig.name, 0) + 1
            elif sig.at >= current.signal.at:
                current.signal, current.received_at = sig, now
            if sig.name in self.history_s:
                self._history_of(key)[sig.at] = sig.value
                self._series[key].history = self._history[key]

    def _admit(self, key: SeriesKey) -> bool:
        """Whether a new series ``key`` has room (its name's series, and its history if it
        has none yet); counted in :meth:`dropped` when not."""
        name = key[0]
        full = self._count.get(name, 0) >= self.max_series or (
            name in self.history_s
            and key not in self._history
            and self._history_count.get(name, 0) >= self.max_series
        )
        if full:
            self._dropped[name] = self._dropped.get(name, 0) + 1
        return not full

    def _history_of(self, key: SeriesKey) -> dict[float, float]:
        values = self._history.get(key)
        if values is None:
            values = self._history[key] = {}
            self._history_count[key[0]] = self._history_count.get(key[0], 0) + 1
        return values

    def _remove(self, key: SeriesKey) -> None:
        """A series gone; its history too when it holds no value (a range condition reads
        a kept one while the series is absent)."""
        del self._series[key]
        self._count[key[0]] -= 1
        if key in self._history and not self._history[key]:
            self._remove_history(key)

    def _remove_history(self, key: SeriesKey) -> None:
        del self._history[key]
        self._history_count[key[0]] -= 1

    def dropped(self) -> dict[str, int]:
        """New series refused by the cap so far, per signal name."""
        return dict(self._dropped)

    def count(self, name: str) -> int:
        """Series of ``name`` held."""
        return self._count.get(name, 0)

    def replace(self, signals: Iterable[Signal], now: float, keep: Iterable[SeriesKey]) -> None:
        """A full snapshot: series not in it (nor in ``keep``) are gone."""
        batch = list(signals)
        present = {(s.name, s.labels) for s in batch} | set(keep)
        for key in [k for k in self._series if k not in present]:
            self._remove(key)
        self.update(batch, now)

    def expire(self, now: float) -> None:
        for key, series in list(self._series.items()):
            if key[0] not in self.ttl_exempt and now - series.received_at > self.ttl_s:
                self._remove(key)
        for key, values in list(self._history.items()):
            keep = self.history_s.get(key[0], 0.0)
            for at in [at for at in values if at < now - keep]:
                del values[at]
            if not values and key not in self._series:
                self._remove_history(key)

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
            key = (str(item["name"]), lbl)
            if key in self._history or self._history_count.get(key[0], 0) < self.max_series:
                self._history_of(key).update({float(a): float(v) for a, v in item["values"]})
        for item in data.get("series", []):
            sig = signal_from_json(item)
            key = (sig.name, sig.labels)
            if key in self._series:
                self._series[key] = Series(sig, now, self._history_of(key))
            elif self._admit(key):
                self._series[key] = Series(sig, now, self._history_of(key))
                self._count[sig.name] = self._count.get(sig.name, 0) + 1

    def forget(self, names: Iterable[str]) -> None:
        """Drop every series (and its history) of these signals."""
        gone = set(names)
        for key in [k for k in self._series if k[0] in gone]:
            self._remove(key)
        for key in [k for k in self._history if k[0] in gone]:
            self._remove_history(key)


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
