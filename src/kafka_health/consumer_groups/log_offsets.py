"""The partitions' leaders and their log start and end offsets (ListOffsets per leader), read
on the poller's thread, the requests exchanged through the caller's ``exchange``.

The leaders are kept between rounds (:class:`Leaders`): Metadata is asked only for topics not
known yet, topics with a partition without a leader, and every :data:`LEADERS_EVERY` rounds all
of them. That observes the same leaders as asking every round: a broker answers ListOffsets
only for the partitions it leads (``NOT_LEADER_OR_FOLLOWER`` otherwise), so a partition
answered was led by the broker it was asked of; a partition whose answer failed (an error, or
no answer) has its topic's Metadata asked again in the same round, and is asked again of its
new leader when it moved. A ListOffsets request is sent again the next round, its encoding
kept, while its leader's partitions stay the same (made again when they change, or when it
failed).

What is read is kept by topic (``{topic: {partition: value}}``), so a round makes no tuple a
partition for it.
"""

from __future__ import annotations

import functools
import logging
import struct
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.consumer_groups.answers import TP, why

log = logging.getLogger(__name__)

BATCH_PARTITIONS = 5000
"""Partitions per ListOffsets request."""
LEADERS_EVERY = 12
"""Rounds between two Metadata requests for every topic read (a minute at 5 s); between them
only the topics whose leaders are unknown or were found wrong are asked (:class:`Leaders`)."""
EARLIEST, LATEST = -2, -1
"""ListOffsets' timestamps for the log start and end offsets."""
Kept = tuple[int, int, tuple[TP, ...]]
"""A ListOffsets request kept between rounds: its leader, spec (earliest, latest), partitions."""
ByTopic = dict[str, dict[int, int]]
LeadersByTopic = dict[str, dict[int, int | None]]
Exchange = Callable[[list[tuple[int, Any]]], list[Any]]
"""Requests ``(node, request)`` sent, their answers (or exceptions) in order."""


class Leaders:
    """The partitions' leaders as Metadata last said, kept between rounds (see the module
    docstring): :meth:`due` names the topics to ask in a round, :meth:`learn` reads the answer,
    :meth:`of` says a partition's leader (None: none, or not known)."""

    def __init__(self, every: int = LEADERS_EVERY) -> None:
        self.every = every
        self.topics: LeadersByTopic = {}
        """Each topic's partitions' leaders, as its last Metadata said (a topic's dict is
        replaced, never changed, when it is learnt again)."""
        self.stale: set[str] = set()
        """Topics to ask again: a partition without a leader, the topic in error or absent."""
        self.rounds = 0

    def due(self, read: set[TP]) -> list[str]:
        """The topics of ``read`` whose Metadata this round needs: all of them in the first
        round and every ``every`` rounds after (the others forgotten then), else those with a
        partition not known or ``stale``."""
        full = self.rounds % self.every == 0
        self.rounds += 1
        names = {t for t, _ in read}
        if full:
            self.topics.clear()
            self.stale.clear()
            return sorted(names)
        topics = self.topics
        unknown = {t for t, p in read if p not in topics.get(t, ())}
        return sorted(unknown | (self.stale & names))

    def learn(self, meta: Any, asked: list[str]) -> None:
        """A Metadata answer for the topics ``asked``: their partitions' leaders."""
        topics, stale = self.topics, self.stale
        stale.difference_update(asked)
        answered = set()
        for topic in meta.topics:
            name = topic.name
            answered.add(name)
            if topic.error_code or not topic.partitions:
                topics.pop(name, None)
                stale.add(name)
                continue
            leaders: dict[int, int | None] = {}
            for p in topic.partitions:
                node = int(p.leader_id)
                if node < 0 or p.error_code:
                    leaders[int(p.partition_index)] = None
                    stale.add(name)
                else:
                    leaders[int(p.partition_index)] = node
            topics[name] = leaders
        for name in asked:
            if name not in answered:
                topics.pop(name, None)
                stale.add(name)

    def of(self, key: TP) -> int | None:
        leaders = self.topics.get(key[0])
        return None if leaders is None else leaders.get(key[1])


@dataclass
class LogOffsets:
    """A round's log offsets: each partition's leader as asked (None: none or unknown), its
    log start and end offsets where read."""

    leaders: LeadersByTopic = field(default_factory=dict)
    starts: ByTopic = field(default_factory=dict)
    ends: ByTopic = field(default_factory=dict)


class OffsetsReader:
    """The log offsets of a round's partitions (:meth:`read`), its ListOffsets requests kept
    from the round before (``requests``) and this round's (``requests_used``)."""

    def __init__(self, leaders: Leaders, requests: dict[Kept, Any], exchange: Exchange,
                 metadata: Callable[[list[str]], Any]) -> None:  # fmt: skip
        self.cache = leaders
        self.requests = requests
        self.requests_used: dict[Kept, Any] = {}
        self.exchange = exchange
        self.metadata = metadata

    def read(self, read: set[TP]) -> LogOffsets:
        """Leaders, log start and log end offsets of ``read``, ListOffsets per leader."""
        out = LogOffsets()
        if not read:
            return out
        cache = self.cache
        due = cache.due(read)
        if due:
            cache.learn(self.metadata(due), due)
        out.leaders = dict(cache.topics)  # the round's: a topic learnt again is replaced
        unread = self.list_offsets(_by_leader(read, out.leaders), out)
        if not unread:
            return out
        # a leader moved, or its broker failed: ask who leads now, in this round
        topics = sorted({t for t, _ in unread})
        try:
            cache.learn(self.metadata(topics), topics)
        except Exception as exc:
            cache.stale.update(topics)
            log.debug("Metadata failed: %s", why(exc))
            return out
        moved: dict[int, list[TP]] = defaultdict(list)
        leaders = out.leaders
        for name in topics:  # the round's leaders of these topics: the ones asked, but ...
            leaders[name] = dict(leaders.get(name) or {})
        for key, asked in unread.items():
            now = leaders[key[0]][key[1]] = cache.of(key)  # ... the unread ones', as now
            if now is not None and now != asked:
                moved[now].append(key)
        if moved:
            self.list_offsets(moved, out)
        return out

    def list_offsets(self, by_leader: dict[int, list[TP]], out: LogOffsets) -> dict[TP, int]:
        """Log start and end offsets of ``by_leader``'s partitions, into ``out``; the
        partitions not read (an error, or their leader did not answer) with the leader they
        were asked of."""
        requests: list[tuple[int, int, Any, Kept]] = []
        made, used = self.requests, self.requests_used
        for leader, keys in by_leader.items():
            for start in range(0, len(keys), BATCH_PARTITIONS):
                chunk = tuple(keys[start : start + BATCH_PARTITIONS])
                for spec in (EARLIEST, LATEST):
                    asked = (leader, spec, chunk)
                    request = made.get(asked)
                    if request is None:
                        request = offsets_request(chunk, spec)
                    used[asked] = request
                    requests.append((spec, leader, request, asked))
        answers = self.exchange([(r[1], r[2]) for r in requests])
        read: dict[tuple[int, tuple[TP, ...]], int] = defaultdict(int)
        for (spec, leader, _, asked), answer in zip(requests, answers, strict=True):
            if isinstance(answer, Exception):
                log.debug("ListOffsets failed: %s", why(answer))
                used.pop(asked, None)  # made again (its version asked again) next round
                continue
            read[(leader, asked[2])] += _read_answer(
                answer, out.starts if spec == EARLIEST else out.ends
            )
        unread: dict[TP, int] = {}
        starts, ends = out.starts, out.ends
        for leader, keys in by_leader.items():
            for start in range(0, len(keys), BATCH_PARTITIONS):
                chunk = tuple(keys[start : start + BATCH_PARTITIONS])
                if read.get((leader, chunk), 0) == 2 * len(chunk):
                    continue  # every partition answered with both offsets (the usual case)
                for key in chunk:
                    topic, partition = key
                    if partition not in ends.get(topic, ()) or partition not in starts.get(
                        topic, ()
                    ):
                        unread[key] = leader
        return unread


def _by_leader(read: set[TP], leaders: LeadersByTopic) -> dict[int, list[TP]]:
    """``read``'s partitions with a known leader, by leader."""
    out: dict[int, list[TP]] = defaultdict(list)
    for key in read:
        known = leaders.get(key[0])
        if known is not None:
            leader = known.get(key[1])
            if leader is not None:
                out[leader].append(key)
    return out


def _read_answer(answer: Any, into: ByTopic) -> int:
    """A ListOffsets answer's offsets into ``into``; how many partitions it answered."""
    n = 0
    for topic in answer.topics:
        name = topic.name
        offsets = into.get(name)
        if offsets is None:
            offsets = into[name] = {}
        for p in topic.partitions:
            if not p.error_code and p.offset >= 0:
                offsets[p.partition_index] = p.offset
                n += 1
    return n


_PARTITION_SPECS: dict[tuple[int, int], Any] = {}
"""ListOffsets' partition entries by (partition, spec): a request's are built once (they hold
no topic, and a request's encoding only reads them)."""


@functools.cache
def _list_offsets_class() -> Any:
    """kafka-python's ListOffsetsRequest, its encoding kept (:func:`offsets_request`)."""
    from kafka.protocol.consumer import ListOffsetsRequest

    class KeptListOffsetsRequest(ListOffsetsRequest, init=False):  # type: ignore[misc,call-arg]
        """A ListOffsetsRequest whose body is encoded once a version: a round asks the same
        partitions of the same leader again, and its fields are never changed once made.
        Only the header (its correlation id) is encoded for each send."""

        def encode(self, version: int | None = None, header: bool = False,
                   framed: bool = False) -> bytes:  # fmt: skip
            if version is not None:
                self.API_VERSION = version
            kept: dict[int, bytes] = self.__dict__.setdefault("kept", {})
            body = kept.get(self.API_VERSION)
            if body is None:
                body = kept[self.API_VERSION] = bytes(super().encode())
            if header:
                flexible = self.flexible_version_q(self.API_VERSION)
                body = bytes(self.encode_header(flexible=flexible)) + body
            return struct.pack(">i", len(body)) + body if framed else body

    return KeptListOffsetsRequest


def offsets_request(keys: Iterable[TP], spec: Any) -> Any:
    """A ListOffsets request for ``spec`` (earliest or latest) of ``keys``, read uncommitted,
    as kafka-python's admin builds it, without its per-partition objects; its encoding kept
    (:class:`OffsetsReader` sends it again while its leader's partitions stay the same)."""
    from kafka.protocol.consumer import ListOffsetsRequest

    topic_type = ListOffsetsRequest.ListOffsetsTopic
    partition_type = topic_type.ListOffsetsPartition
    by_topic: dict[str, list[Any]] = defaultdict(list)
    made = _PARTITION_SPECS
    for topic, partition in keys:
        entry = made.get((partition, spec))
        if entry is None:
            entry = made[(partition, spec)] = partition_type(partition_index=partition,
                                                             timestamp=spec)  # fmt: skip
        by_topic[topic].append(entry)
    topics = [topic_type(name=name, partitions=parts) for name, parts in by_topic.items()]
    return _list_offsets_class()(isolation_level=0, topics=topics, min_version=0)
