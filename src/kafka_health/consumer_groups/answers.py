"""The groups' answers read (on the poller's thread): ListGroups, DescribeGroups,
ConsumerGroupDescribe (:mod:`.kip848`) and OffsetFetch, into :class:`Listed` and
:class:`Described`; the describe and OffsetFetch requests of a round."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka_health.failures import classify

TP = tuple[str, int]
BATCH_GROUPS = 500
"""Groups per DescribeGroups, ConsumerGroupDescribe and OffsetFetch request."""
STATES = {
    s.lower(): s
    for s in (
        "Stable", "PreparingRebalance", "CompletingRebalance", "Empty", "Dead", "Assigning",
        "Reconciling", "NotReady", "Unknown",
    )
}  # fmt: skip
OFFSETS_READ = ("classic", "consumer", "streams")
"""Group types whose committed offsets OffsetFetch returns (share groups keep theirs apart)."""
MAX_ASSIGNMENTS_MEMO = 100_000


@dataclass(frozen=True)
class Listed:
    """A group as ListGroups names it, and the broker that listed it (its coordinator)."""

    group: str
    coordinator: int
    protocol_type: str = "consumer"
    state: str = "Unknown"
    group_type: str = "classic"


@dataclass
class Described:
    """What a coordinator said of a group, or why it said nothing (``error``)."""

    state: str = "Unknown"
    members: int = 0
    generation: int | None = None
    protocol_type: str | None = None
    assigned: set[TP] = field(default_factory=set)
    committed: dict[TP, int] = field(default_factory=dict)
    error: str | None = None

    def fail(self, error: str) -> None:
        self.error = self.error or error


Asked = tuple[str, list[str], int, Any]
"""A request of the describe step: its kind (``classic``, ``consumer`` or ``offsets``), its
groups, its node and the request."""


def why(exc: BaseException) -> str:
    """A failure as ``ErrorClass: detail`` (at most 200 characters)."""
    detail = str(exc).removeprefix(f"{type(exc).__name__}: ")  # kafka-python's errors add it
    name = classify(exc)
    return (f"{name}: {detail}" if detail and detail != name else name)[:200]


def code_error(code: int, what: str) -> str | None:
    """An answer's error code as ``ErrorClass (what)``; None for no error."""
    from kafka.errors import for_code

    return None if not code else f"{classify(for_code(code)())} ({what})"


def state_of(text: str | None) -> str:
    """A group state as the coordinator spells it, in :data:`STATES`' case."""
    return STATES.get((text or "").lower(), "Unknown") if text else "Unknown"


def chunks(items: Sequence[str], size: int = BATCH_GROUPS) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def read_listings(
    brokers: list[int], answers: list[Any]
) -> tuple[dict[str, Listed], dict[int, str]]:
    """Every broker's ListGroups answer (or its exception): the groups, and the brokers whose
    listing failed, with why."""
    listed: dict[str, Listed] = {}
    unlisted: dict[int, str] = {}
    for broker, answer in zip(brokers, answers, strict=True):
        error = (
            why(answer)
            if isinstance(answer, Exception)
            else code_error(answer.error_code, "ListGroups")
        )
        if error is not None:
            unlisted[broker] = error
            continue
        for g in answer.groups:
            listed[g.group_id] = Listed(
                group=g.group_id,
                coordinator=broker,
                protocol_type=g.protocol_type or "",
                state=state_of(getattr(g, "group_state", None)),
                group_type=(getattr(g, "group_type", None) or "classic").lower(),
            )
    return listed, unlisted


def describe_requests(groups: list[Listed], offset_fetch_version: int) -> list[Asked]:
    """Per coordinator, in chunks: DescribeGroups (classic), ConsumerGroupDescribe (consumer
    protocol) and OffsetFetch (v8: many groups a request; before: one)."""
    from kafka.protocol.admin import DescribeGroupsRequest
    from kafka.protocol.consumer import OffsetFetchRequest

    from kafka_health.consumer_groups.kip848 import ConsumerGroupDescribeRequest

    by_kind: dict[tuple[int, str], list[str]] = defaultdict(list)
    fetched: dict[int, list[str]] = defaultdict(list)
    for x in groups:
        by_kind[(x.coordinator, x.group_type)].append(x.group)
        if x.group_type in OFFSETS_READ:
            fetched[x.coordinator].append(x.group)
    requests: list[Asked] = []
    for (node, kind), ids in by_kind.items():
        for chunk in chunks(ids):
            if kind == "classic":
                req = DescribeGroupsRequest(groups=chunk, include_authorized_operations=False)
            elif kind == "consumer":
                req = ConsumerGroupDescribeRequest(
                    group_ids=chunk, include_authorized_operations=False
                )
            else:
                continue
            requests.append((kind, chunk, node, req))
    batched = offset_fetch_version >= 8
    group_type = OffsetFetchRequest.OffsetFetchRequestGroup
    for node, ids in fetched.items():
        for chunk in chunks(ids) if batched else ([g] for g in ids):
            if batched:
                groups_ = [group_type(group_id=g, topics=None) for g in chunk]
                req = OffsetFetchRequest(groups=groups_, min_version=8, max_version=8)
            else:
                req = OffsetFetchRequest(
                    group_id=chunk[0], topics=None, min_version=2, max_version=7
                )
            requests.append(("offsets", chunk, node, req))
    return requests


def read_described(requests: list[Asked], answers: list[Any], out: dict[str, Described]) -> None:
    """The describe step's answers (or exceptions) into ``out``."""
    for (kind, chunk, _, _), answer in zip(requests, answers, strict=True):
        if isinstance(answer, Exception):
            for g in chunk:
                out[g].fail(f"{why(answer)} ({kind})")
        elif kind == "offsets":
            read_offsets(answer, chunk, out)
        else:
            read_description(kind, answer, out)


def read_description(kind: str, answer: Any, out: dict[str, Described]) -> None:
    """A DescribeGroups or ConsumerGroupDescribe answer into ``out``."""
    for g in answer.groups:
        d = out.get(g.group_id)
        if d is None:
            continue
        error = code_error(g.error_code, kind)
        if error is not None:
            d.fail(error)
            continue
        d.state = state_of(g.group_state)
        d.members = len(g.members)
        if kind == "consumer":
            d.generation = int(g.group_epoch)
            d.protocol_type = "consumer"
            for m in g.members:
                for tp in m.assignment.topic_partitions:
                    d.assigned.update((tp.topic_name, int(p)) for p in tp.partitions)
        else:
            d.protocol_type = g.protocol_type
            if g.protocol_type == "consumer":
                d.assigned.update(_classic_assignment(g.members))


_ASSIGNMENTS: dict[bytes, tuple[TP, ...]] = {}
"""Decoded member assignments by their bytes: a stable group's are the same every round."""


def _classic_assignment(members: Iterable[Any]) -> Iterator[TP]:
    for m in members:
        if m.member_assignment:
            yield from decoded_assignment(bytes(m.member_assignment))


def decoded_assignment(raw: bytes) -> tuple[TP, ...]:
    """A classic member's assignment (the consumer protocol's layout) as its partitions."""
    known = _ASSIGNMENTS.get(raw)
    if known is not None:
        return known
    from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

    try:
        decoded = ConsumerProtocolAssignment.decode(raw)
        out = tuple((tp.topic, tp.partition) for tp in decoded.partitions())
    except Exception:
        out = ()  # not the consumer protocol's layout: no partitions to read
    if len(_ASSIGNMENTS) >= MAX_ASSIGNMENTS_MEMO:
        _ASSIGNMENTS.clear()
    _ASSIGNMENTS[raw] = out
    return out


def read_offsets(answer: Any, chunk: list[str], out: dict[str, Described]) -> None:
    """An OffsetFetch answer (v8: many groups; before: the one group of ``chunk``)."""
    if answer.API_VERSION >= 8:
        pairs = [(g.group_id, g) for g in answer.groups]
    else:
        pairs = [(chunk[0], answer)]
    for group, g in pairs:
        d = out.get(group)
        if d is None:
            continue
        error = code_error(getattr(g, "error_code", 0), "OffsetFetch")
        if error is not None:
            d.fail(error)
            continue
        committed = d.committed
        for topic in g.topics:
            name = topic.name
            for p in topic.partitions:
                if p.error_code:
                    d.fail(code_error(p.error_code, "OffsetFetch") or "")
                elif p.committed_offset >= 0:
                    committed[(name, p.partition_index)] = p.committed_offset
