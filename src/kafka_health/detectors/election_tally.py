"""The distinct leader elections of the log window, kept as reports enter and leave it.

An election storm on a large cluster logs thousands of leader changes a second (228,000 in a
60 s window at 20,000 log records/s). Kept as a list of reports, the window was walked on
every fold to drop old reports and again to count distinct elections (0.34 s a fold here).
Here each election is one entry, keyed as :func:`distinct_elections` keys it, with the time
of its newest report; reports update it, a heap of those times expires it, and the counts per
new leader are kept as entries come and go. Counting is then per leader, not per report.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Iterable
from typing import Any

Report = tuple[str, int, int | None, int | None]  # topic, partition, epoch, new leader
Election = tuple[str, int, int]  # topic, partition, epoch
Unepoched = tuple[str, int, int | None]  # topic, partition, new leader


class ElectionTally:
    """Elections whose newest report is at or after the window's start."""

    def __init__(self) -> None:
        # Entries are the lists the state saves, so that a save copies none of them.
        self._elections: dict[Election, list[Any]] = {}  # -> [t, p, epoch, newest ms, leader]
        self._unepoched: dict[Unepoched, list[Any]] = {}  # -> [t, p, leader, newest ms]
        self._epochs_of: dict[tuple[str, int], set[int]] = {}  # partition -> kept epochs
        self._by_leader: Counter[int] = Counter()  # kept elections per named new leader
        # (report ms, serial, key, whether the key is an Election): a key is forgotten when
        # its newest time leaves; its older times are skipped as they come up.
        self._expiry: list[tuple[int, int, Any, bool]] = []
        self._serial = itertools.count()

    def __len__(self) -> int:
        return len(self._elections) + len(self._unepoched)

    def report(self, topic: str, partition: int, epoch: int | None, leader: int | None,
               at_ms: int) -> None:  # fmt: skip
        """One report of an election, logged at ``at_ms``."""
        if epoch is None or epoch < 0:
            key_u: Unepoched = (topic, partition, leader)
            kept_u = self._unepoched.get(key_u)
            if kept_u is None:
                self._unepoched[key_u] = [topic, partition, leader, at_ms]
            elif at_ms > kept_u[3]:
                kept_u[3] = at_ms
            else:
                return
            self._push(at_ms, key_u, False)
            return
        key: Election = (topic, partition, int(epoch))
        kept = self._elections.get(key)
        if kept is None:
            self._elections[key] = [topic, partition, key[2], at_ms, leader]
            self._epochs_of.setdefault((topic, partition), set()).add(key[2])
            if leader is not None:
                self._by_leader[leader] += 1
            self._push(at_ms, key, True)
            return
        if kept[4] is None and leader is not None:
            kept[4] = leader
            self._by_leader[leader] += 1
        if at_ms > kept[3]:
            kept[3] = at_ms
            self._push(at_ms, key, True)

    def expire(self, start_ms: int) -> None:
        """Forget the elections whose newest report is before ``start_ms``."""
        while self._expiry and self._expiry[0][0] < start_ms:
            _ms, _serial, key, epoched = heapq.heappop(self._expiry)
            if epoched:
                kept = self._elections.get(key)
                if kept is not None and kept[3] < start_ms:
                    self._forget(key, kept[4])
            else:
                kept_u = self._unepoched.get(key)
                if kept_u is not None and kept_u[3] < start_ms:
                    del self._unepoched[key]

    def count(self, also: Iterable[Report] = ()) -> tuple[int, Counter[int]]:
        """The number of distinct elections and their count per named new leader, with the
        reports ``also`` (the prober's) counted first, as :func:`distinct_elections` would."""
        extra, extra_unepoched = _split(also)
        total, by_leader = len(self._elections), Counter(self._by_leader)
        for key, leader in extra.items():
            kept = self._elections.get(key)
            if kept is None:
                total += 1
                if leader is not None:
                    by_leader[leader] += 1
            elif leader is not None and kept[4] != leader:  # the first report's leader
                if kept[4] is not None:
                    by_leader[kept[4]] -= 1
                by_leader[leader] += 1
        extra_epochs: dict[tuple[str, int], set[int]] = {}
        for topic, partition, epoch in extra if self._unepoched or extra_unepoched else ():
            extra_epochs.setdefault((topic, partition), set()).add(epoch)
        for topic, partition, leader in set(self._unepoched) | extra_unepoched:
            if not self._known(topic, partition, leader, extra, extra_epochs):
                total += 1
                if leader is not None:
                    by_leader[leader] += 1
        return total, +by_leader

    def state(self) -> dict[str, Any]:
        return {
            "elections": list(self._elections.values()),
            "unepoched": list(self._unepoched.values()),
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]  # the same empty tally, then the saved entries
        for topic, partition, epoch, at_ms, leader in state.get("elections", []):
            self.report(topic, int(partition), int(epoch), leader, int(at_ms))
        for topic, partition, leader, at_ms in state.get("unepoched", []):
            self.report(topic, int(partition), None, leader, int(at_ms))

    def _push(self, at_ms: int, key: Any, epoched: bool) -> None:
        heapq.heappush(self._expiry, (at_ms, next(self._serial), key, epoched))

    def _forget(self, key: Election, leader: int | None) -> None:
        del self._elections[key]
        epochs = self._epochs_of[key[:2]]
        epochs.discard(key[2])
        if not epochs:
            del self._epochs_of[key[:2]]
        if leader is not None:
            self._by_leader[leader] -= 1
            if not self._by_leader[leader]:
                del self._by_leader[leader]

    def _known(self, topic: str, partition: int, leader: int | None,
               extra: dict[Election, int | None],
               extra_epochs: dict[tuple[str, int], set[int]]) -> bool:  # fmt: skip
        """Whether an election with an epoch for the partition may be the one a report without
        an epoch names (the same new leader, or one of the two unnamed)."""
        epochs = self._epochs_of.get((topic, partition), set())
        epochs = epochs | extra_epochs.get((topic, partition), set())
        for epoch in epochs:
            first = extra.get((topic, partition, epoch))
            kept = self._elections.get((topic, partition, epoch))
            named = first if first is not None else (kept[4] if kept else None)
            if leader is None or named in (None, leader):
                return True
        return False


def distinct_elections(
    reports: Iterable[Report],
) -> dict[tuple[str, int, int | None, int | None], int | None]:
    """One entry per election, with its new leader (None when no report names it).

    Reports of the same (topic, partition, epoch) are one election; a report without an epoch
    (a ZooKeeper controller's "New leader is N") is the same election as one with an epoch for
    the same partition and leader, else an election of its own.
    """
    with_epoch, without = _split(reports)
    out: dict[tuple[str, int, int | None, int | None], int | None] = {
        (t, p, e, None): leader for (t, p, e), leader in with_epoch.items()
    }
    leaders_of: dict[tuple[str, int], set[int | None]] = {}
    for (t, p, _e), ld in with_epoch.items():
        leaders_of.setdefault((t, p), set()).add(ld)
    for topic, partition, leader in without:
        named = leaders_of.get((topic, partition), set())
        known = bool(named) and (leader is None or None in named or leader in named)
        if not known:
            out[(topic, partition, None, leader)] = leader
    return out


def _split(reports: Iterable[Report]) -> tuple[dict[Election, int | None], set[Unepoched]]:
    """The elections the reports with an epoch name, each with the first leader a report
    names (None when none does), and the reports without an epoch."""
    with_epoch: dict[Election, int | None] = {}
    without: set[Unepoched] = set()
    for topic, partition, epoch, leader in reports:
        if epoch is None or epoch < 0:
            without.add((topic, partition, leader))
        elif with_epoch.get((topic, partition, int(epoch))) is None:
            with_epoch[(topic, partition, int(epoch))] = leader
    return with_epoch, without
