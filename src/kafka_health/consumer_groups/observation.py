"""One look at a consumer group: what the poller hands the detector (no I/O, no Kafka).

A :class:`GroupObservation` is one group at one instant: its state and members as its
coordinator describes them, and for each partition it has committed offsets for (or is
assigned), the committed offset beside the partition's log start and log end offsets read in
the same round. Time lag (``lag_s``) is estimated by the poller from its table of each
partition's (log end offset, time) samples (:mod:`kafka_health.consumer_groups.lag`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

_new = object.__new__
_set_dict = object.__setattr__

LAG_BASES = ("caught_up", "interpolated", "extrapolated", "unknown", "timestamp")
"""How ``lag_s`` was found: nothing unread (0 s); between two samples of the log end offset;
before the oldest sample (at least that old: a lower bound); or not at all (no committed
offset, or the partition's offsets could not be read); or from the next unread record's own
timestamp (written before the oldest sample, and its timestamp read)."""


@dataclass(frozen=True)
class PartitionOffsets:
    """One partition a group reads: its committed offset and the partition's offsets.

    ``committed`` is None when the group has no commit for it (assigned, never committed);
    ``log_start``/``log_end`` are None when the partition's offsets could not be read (its
    leader did not answer). ``leader`` is the partition's leader when read (None: none or
    unknown), so a stall can be laid at a broker's door.
    """

    topic: str
    partition: int
    committed: int | None
    log_start: int | None
    log_end: int | None
    leader: int | None = None
    lag_s: float | None = None
    lag_basis: str = "unknown"

    @classmethod
    def fast(
        cls,
        topic: str,
        partition: int,
        committed: int | None,
        log_start: int | None,
        log_end: int | None,
        leader: int | None = None,
        lag_s: float | None = None,
        lag_basis: str = "unknown",
    ) -> PartitionOffsets:
        """The same as the constructor, in half its time (a round makes one a partition),
        ``lag`` computed at once."""
        lag = None if committed is None or log_end is None else max(0, log_end - committed)
        out = _new(cls)
        _set_dict(out, "__dict__", {
            "topic": topic, "partition": partition, "committed": committed,
            "log_start": log_start, "log_end": log_end, "leader": leader, "lag_s": lag_s,
            "lag_basis": lag_basis, "lag": lag,
        })  # fmt: skip
        return out

    def with_lag(self, lag_s: float | None, lag_basis: str) -> PartitionOffsets:
        """This partition with its time lag (``dataclasses.replace``, in a fifth of its
        time: a round makes one a partition)."""
        values = self.__dict__.copy()
        values["lag_s"] = lag_s
        values["lag_basis"] = lag_basis
        out = _new(PartitionOffsets)
        _set_dict(out, "__dict__", values)
        return out

    @cached_property
    def lag(self) -> int | None:
        """Records written and not yet consumed (log end - committed, never below 0)."""
        if self.committed is None or self.log_end is None:
            return None
        return max(0, self.log_end - self.committed)

    @property
    def deleted_unread(self) -> int:
        """Records deleted by retention before the group read them (log start - committed,
        when the committed offset fell below the log start): data the group lost."""
        if self.committed is None or self.log_start is None:
            return 0
        return max(0, self.log_start - self.committed)


@dataclass(frozen=True)
class GroupObservation:
    """A consumer group as observed at ``at_ms`` (epoch milliseconds).

    ``state`` is the coordinator's word for it: ``Stable``, ``PreparingRebalance``,
    ``CompletingRebalance``, ``Empty``, ``Dead`` (classic), ``Assigning``, ``Reconciling``
    (the consumer protocol, KIP-848) or ``Unknown``; ``protocol`` is ``classic``,
    ``consumer``, ``share`` or ``streams`` (how the group is run) and ``protocol_type`` what
    its members are (``consumer``, ``connect``, or ``""``); ``generation`` is the group's
    generation (classic) or epoch (consumer protocol), None when the coordinator does not say.
    ``error`` is set when the group could not be described or its offsets not read (then
    ``partitions`` may be empty): the group is unseen this round, not healthy.
    """

    group: str
    at_ms: int
    state: str
    members: int
    protocol: str = "classic"
    protocol_type: str = "consumer"
    generation: int | None = None
    coordinator: int | None = None
    partitions: tuple[PartitionOffsets, ...] = ()
    error: str | None = None

    @cached_property
    def lag(self) -> int:
        """Records behind, summed over its partitions."""
        return sum(p.lag or 0 for p in self.partitions)

    @cached_property
    def max_lag_s(self) -> float | None:
        """The largest time lag of its partitions (None when none is known)."""
        known = [p.lag_s for p in self.partitions if p.lag_s is not None]
        return max(known) if known else None

    def with_partitions(self, partitions: tuple[PartitionOffsets, ...]) -> GroupObservation:
        """This observation with other ``partitions`` (``dataclasses.replace``, faster)."""
        out = _new(type(self))
        values: dict[str, Any] = {**self.__dict__, "partitions": partitions}
        values.pop("lag", None)
        values.pop("max_lag_s", None)
        _set_dict(out, "__dict__", values)
        return out


@dataclass(frozen=True)
class GroupsRound:
    """One poll of every watched group, at ``at_ms``: ``groups`` the observations; ``error``
    set when the round itself failed (the cluster could not be asked: every group is unseen);
    ``over_cap`` the watched groups left out this round because ``max_groups`` were taken."""

    at_ms: int
    groups: tuple[GroupObservation, ...] = ()
    error: str | None = None
    duration_s: float = 0.0
    over_cap: int = 0
