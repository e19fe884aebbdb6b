"""Lag in seconds: each partition's (log end offset, time) samples, and a committed offset's
time lag read from them (no I/O).

The time lag of a committed offset ``c`` is how long ago the next unread record (offset ``c``)
was written: the moment the log end offset passed ``c``, that is reached ``c + 1``. It is found
by linear interpolation between the two samples around it (kafka-lag-exporter's method), the
current log end offset at ``now`` being the newest sample. Cases:

- ``caught_up``: nothing unread (``c >= log end``), 0 s.
- ``interpolated``: between two samples; exact when records were written at a steady rate
  between them, else off by at most the samples' gap.
- ``extrapolated``: the record was written before the oldest sample: ``now - oldest`` is a
  lower bound (the group is at least that far behind), unless the record's own timestamp is
  supplied (``timestamp``: ``now`` minus it).
- ``unknown``: no committed offset, or the partition's offsets could not be read.

Retention and compaction: when the committed offset fell below the log start offset, the
records in between were deleted unread (:attr:`PartitionOffsets.deleted_unread`); the next
record the group can read is at the log start, so its time lag is counted from there.
Compaction removes records but not offsets, so the offset-to-time samples stay true; a record
timestamp, by contrast, may belong to a later record than the one the committed offset names.

The table is bounded: at most ``max_samples`` a partition, thinned (to three quarters, so
rarely) by what a sample's removal would cost an estimate relative to its age: recent samples
stay dense, older ones sparser, none older than ``horizon_s`` but the newest of those. At most
``max_partitions`` partitions (the rest counted in ``overflow``); a partition unseen for
``forget_after_s`` is forgotten.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from kafka_health.consumer_groups.observation import PartitionOffsets

Key = tuple[str, int]
LogEnds = Mapping[str, Mapping[int, int]]
"""Log end offsets by topic, then partition."""
Lags = Callable[[LogEnds], "LagView"]
"""Given a round's log end offsets (its last reads): records them, and hands the table's
series for the time lags (:class:`LagView`)."""


@dataclass(slots=True)
class _Series:
    """One partition's samples, oldest first: log end offsets never decrease."""

    offsets: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    seen: float = 0.0


@dataclass(frozen=True)
class LagEstimate:
    """A time lag (seconds, None when unknown) and how it was found (``LAG_BASES``)."""

    lag_s: float | None
    basis: str


class LagTable:
    """Every partition's recent (log end offset, time) samples; times are epoch seconds."""

    def __init__(
        self,
        max_samples: int = 64,
        horizon_s: float = 3600.0,
        max_partitions: int = 200_000,
        forget_after_s: float = 600.0,
    ) -> None:
        if max_samples < 8:
            raise ValueError("max_samples must be at least 8")
        self.max_samples = max_samples
        self.horizon_s = horizon_s
        self.max_partitions = max_partitions
        self.forget_after_s = forget_after_s
        self.overflow = 0
        """Samples not kept because ``max_partitions`` partitions were already tracked."""
        self._series: dict[Key, _Series] = {}

    def __len__(self) -> int:
        return len(self._series)

    def samples(self, topic: str, partition: int) -> list[tuple[int, float]]:
        """The partition's samples, oldest first (for tests and inspection)."""
        series = self._series.get((topic, partition))
        return [] if series is None else list(zip(series.offsets, series.times, strict=True))

    def record(self, topic: str, partition: int, log_end: int, now: float) -> None:
        """Add a sample: ``log_end`` read at ``now``."""
        self.record_ends({topic: {partition: log_end}}, now)

    def record_ends(self, ends: LogEnds, now: float) -> None:
        """Add the samples ``ends`` (by topic, then partition), all read at ``now``."""
        all_series = self._series
        horizon = now - self.horizon_s
        most = self.max_samples
        for topic, by_partition in ends.items():
            for partition, log_end in by_partition.items():
                series = all_series.get((topic, partition))
                if series is None:
                    if len(all_series) >= self.max_partitions:
                        self.overflow += 1
                        continue
                    series = all_series[(topic, partition)] = _Series()
                series.seen = now
                offsets, times = series.offsets, series.times
                if offsets:
                    if now < times[-1]:
                        continue  # the clock went back: the sample would break the order
                    last = offsets[-1]
                    if log_end < last:
                        offsets.clear()  # truncated or recreated: start over
                        times.clear()
                    elif log_end == last and len(offsets) >= 2 and offsets[-2] == last:
                        times[-1] = now  # a flat run needs only its first and last samples
                        if len(times) > 2 and times[1] < horizon:
                            self._expire(series, now)
                        continue
                offsets.append(log_end)
                times.append(now)
                if len(times) > 2 and times[1] < horizon:
                    self._expire(series, now)
                if len(offsets) > most:
                    _thin(series, now, most * 3 // 4)

    def record_all(self, samples: Iterable[tuple[str, int, int]], now: float) -> None:
        """Add ``(topic, partition, log_end)`` samples read at ``now``, then forget partitions
        unseen for ``forget_after_s``."""
        for topic, partition, log_end in samples:
            self.record(topic, partition, log_end, now)
        self.forget(now)

    def forget(self, now: float) -> None:
        """Drop partitions not sampled for ``forget_after_s``."""
        gone = [k for k, s in self._series.items() if now - s.seen > self.forget_after_s]
        for key in gone:
            del self._series[key]

    def _expire(self, series: _Series, now: float) -> None:
        """Drop samples past the horizon, keeping the newest of them as the oldest sample."""
        cut = bisect.bisect_left(series.times, now - self.horizon_s) - 1
        if cut > 0:
            del series.offsets[:cut]
            del series.times[:cut]

    def estimate(
        self,
        p: PartitionOffsets,
        now: float,
        record_time: float | None = None,
    ) -> LagEstimate:
        """The time lag of ``p``'s committed offset at ``now`` (see the module docstring);
        ``record_time``: the epoch-second timestamp of the next unread record, when known."""
        lag_s, basis = self.lag_of(
            p.topic, p.partition, p.committed, p.log_start, p.log_end, now, record_time
        )
        return LagEstimate(lag_s, basis)

    def lag_of(
        self,
        topic: str,
        partition: int,
        committed: int | None,
        log_start: int | None,
        log_end: int | None,
        now: float,
        record_time: float | None = None,
    ) -> tuple[float | None, str]:
        """:meth:`estimate` of the partition's offsets given apart, as ``(lag_s, basis)``."""
        if committed is None or log_end is None:
            return None, "unknown"
        next_unread = max(committed, log_start or 0)
        if next_unread >= log_end:
            return 0.0, "caught_up"
        return behind(self._series.get((topic, partition)), next_unread, log_end, now,
                      record_time)  # fmt: skip

    def view(self, now: float) -> LagView:
        """The table's series as they stand, for estimates at ``now`` (:func:`behind`)."""
        return LagView(self._series, now)


@dataclass(frozen=True)
class LagView:
    """A :class:`LagTable`'s series by partition and the time of the estimates: what
    :func:`behind` needs, for a caller that estimates many partitions at once (the source's
    observations) without a call a partition to the table."""

    series: Mapping[Key, _Series]
    now: float


def behind(
    series: _Series | None,
    next_unread: int,
    log_end: int,
    now: float,
    record_time: float | None = None,
) -> tuple[float, str]:
    """:meth:`LagTable.lag_of` once the unknown and caught up cases are out: the time lag of
    the record at ``next_unread`` (below ``log_end``) from the partition's ``series``."""
    target = next_unread + 1  # the log end offset once that record was written
    if series is None or not series.offsets:
        offsets: list[int] = []
        times: list[float] = []
    else:
        offsets, times = series.offsets, series.times
    # The current log end at ``now`` is the newest sample, unless the table has it already.
    n = len(offsets)
    newest = n == 0 or offsets[-1] < log_end
    j = bisect.bisect_left(offsets, target)
    if j == n and newest:  # between the table's newest sample and the current log end
        if n == 0:
            j = 0
        else:
            o0, t0 = offsets[-1], times[-1]
            written = t0 + (target - o0) / (log_end - o0) * (now - t0)
            return max(0.0, now - written), "interpolated"
    if j == 0 or j == n:
        if record_time is not None:
            return max(0.0, now - record_time), "timestamp"
        return max(0.0, now - (times[0] if n else now)), "extrapolated"
    o0, o1, t0, t1 = offsets[j - 1], offsets[j], times[j - 1], times[j]
    written = t0 + (target - o0) / (o1 - o0) * (t1 - t0)
    return max(0.0, now - written), "interpolated"


def _thin(series: _Series, now: float, target: int) -> None:
    """Drop samples until ``target`` remain, the cheapest first: a sample costs the time error
    its removal makes at its offset (interpolated between its neighbours) plus its neighbours'
    gap, relative to their age. Steady writes cost nothing to thin but spacing: old samples end
    sparse, recent ones dense; a producer's stop (a flat run's first sample) stays dear."""
    o, t = series.offsets, series.times
    while len(o) > target:
        costs = []
        for i in range(1, len(o) - 1):
            gap = t[i + 1] - t[i - 1]
            if o[i + 1] > o[i - 1]:
                at = t[i - 1] + (o[i] - o[i - 1]) / (o[i + 1] - o[i - 1]) * gap
                error = abs(t[i] - at)
            else:
                error = 0.0  # a flat run's middle
            costs.append(((2 * error + gap) / max(now - t[i - 1], 1e-9), i))
        costs.sort()
        drop: set[int] = set()
        for _, i in costs:
            if len(o) - len(drop) <= target:
                break
            if i - 1 not in drop and i + 1 not in drop:
                drop.add(i)
        series.offsets[:] = [x for i, x in enumerate(o) if i not in drop]
        series.times[:] = [x for i, x in enumerate(t) if i not in drop]
        o, t = series.offsets, series.times
