"""A round's observations from what it gathered (on the poller's thread): each group's
partitions (committed or assigned) joined with their leaders and log offsets, and each one's
time lag when the poller hands its lag table in (:data:`~.lag.Lags`), so a round makes one
:class:`PartitionOffsets` a partition, once."""

from __future__ import annotations

from kafka_health.consumer_groups.answers import Described, Listed
from kafka_health.consumer_groups.lag import LagView, behind
from kafka_health.consumer_groups.log_offsets import LogOffsets
from kafka_health.consumer_groups.observation import GroupObservation, PartitionOffsets

_new = object.__new__
_set_dict = object.__setattr__
_EMPTY: dict[int, int] = {}


def observation(
    x: Listed, d: Described, offsets: LogOffsets, at_ms: int, lags: LagView | None = None
) -> GroupObservation:
    """The observation of one group from what the round gathered (``lags``: the lag table's
    series, for each partition's time lag; None: not set)."""
    committed = d.committed
    keys = sorted(committed.keys() | d.assigned if d.assigned else committed)
    leaders_by, starts_by, ends_by = offsets.leaders, offsets.starts, offsets.ends
    topic_of = None
    leaders: dict[int, int | None] = {}
    starts = ends = _EMPTY
    partitions: list[PartitionOffsets] = []
    append = partitions.append
    get = committed.get
    series, now = (lags.series.get, lags.now) if lags is not None else (None, 0.0)
    for key in keys:
        topic, partition = key
        if topic != topic_of:  # the keys are sorted: a topic's come together
            topic_of = topic
            leaders = leaders_by.get(topic) or {}
            starts = starts_by.get(topic) or _EMPTY
            ends = ends_by.get(topic) or _EMPTY
        c = get(key)
        start = starts.get(partition)
        end = ends.get(partition)
        if c is None or end is None:
            lag, lag_s, basis = None, None, "unknown"
        else:
            lag = end - c if end > c else 0
            first = start or 0
            unread = c if c >= first else first  # the next record the group can read
            if series is None:
                lag_s, basis = None, "unknown"
            elif unread >= end:
                lag_s, basis = 0.0, "caught_up"
            else:
                lag_s, basis = behind(series(key), unread, end, now)
        p = _new(PartitionOffsets)
        _set_dict(p, "__dict__", {
            "topic": topic, "partition": partition, "committed": c, "log_start": start,
            "log_end": end, "leader": leaders.get(partition), "lag_s": lag_s,
            "lag_basis": basis, "lag": lag,
        })  # fmt: skip
        append(p)
    return GroupObservation(
        group=x.group,
        at_ms=at_ms,
        state=d.state,
        members=d.members,
        protocol=x.group_type,
        protocol_type=d.protocol_type if d.protocol_type is not None else x.protocol_type,
        generation=d.generation,
        coordinator=x.coordinator,
        partitions=tuple(partitions),
        error=d.error,
    )
