"""Why a broker's port refuses: what Kafka's own metadata says at its first refused ping.

A controlled shutdown hands the broker's partitions over *before* its port closes; a crash
(SIGKILL, OOM kill, a host gone) leaves them where they are until the cluster times the broker
out. So, asked from another broker as soon as the port first refuses (it answered about one
ping interval before), the metadata tells the two apart (Kafka 4.1.1 and 3.9.1 sources):

- KRaft: on SIGTERM the broker asks to shut down in its heartbeat; the controller moves its
  leaders and takes it out of every ISR at once, grants the shutdown once the others caught up
  and writes the fence record; only then does the broker stop its socket server. At the first
  refusal it is fenced (``DescribeCluster`` v2, ``IsFenced``), or about to be within
  milliseconds, leads nothing and is in no ISR. A crashed broker stays unfenced, with its
  leaders and ISR places, for ``broker.session.timeout.ms`` (9 s by default).
- ZooKeeper: ``ControlledShutdown`` moves its leaders and shrinks the ISRs (0.1-0.3 s), then
  the port closes; its registration (``/brokers/ids/N``) goes only after. A crashed broker
  keeps its leaders and registration until its ZooKeeper session expires (6-18 s).

:func:`classify` is the decision, pure (tested on timelines); ``reachability/pinger.py``
asks the metadata and reports the :class:`Evidence`; the alert service opens a short
maintenance window on ``controlled_shutdown`` and pages at once on ``crash``.

Verdicts:

- ``controlled_shutdown``: fenced since the last listing (KRaft); or it leads none of the
  multi-replica partitions it hosts and is in none of their ISRs; or, hosting none, it left
  the listing since the last one (a ZooKeeper broker's clean exit closes its session).
- ``crash``: it still leads a multi-replica partition it hosts (a controlled shutdown moves its
  leaders first, in both modes, before its port closes).
- ``unknown``: neither: it hosts no multi-replica partition and is neither newly fenced nor
  deregistered; or it leads none but is still in an ISR (seen on ZooKeeper 3.9.1: the ISR
  shrink of a controlled shutdown still on its way when the port closed, and 0.45 s later
  done; a crashed pure follower looks the same); or the metadata did not answer. Today's 5 s
  rule decides.

A verdict other than ``controlled_shutdown`` is looked at again :data:`RECHECK_S` later and the
second look decides (:func:`settle`): the fence may not have reached the broker asked, and a
page must not come from metadata a few milliseconds stale. Known limit: a broker that dies
while it leads nothing and is in no ISR (catching up after a restart) looks like a controlled
shutdown; the window that evidence opens is therefore short (``alerting.restart_budget_s``)
and ends when the broker answers again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["controlled_shutdown", "crash", "unknown"]
CONTROLLED: Verdict = "controlled_shutdown"
CRASH: Verdict = "crash"
UNKNOWN: Verdict = "unknown"
VERDICTS: tuple[Verdict, ...] = (CONTROLLED, CRASH, UNKNOWN)
RECHECK_S = 0.45
"""A verdict other than a controlled shutdown is looked at again this long after the first
look began (the fence, or a leadership move, may not have reached the broker asked yet): the
settled verdict lands within half a second of the refusal (a look takes 5-80 ms here)."""


@dataclass(frozen=True)
class Partition:
    """One partition as the metadata describes it (``leader`` -1: none)."""

    topic: str
    partition: int
    leader: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]


@dataclass(frozen=True)
class ClusterView:
    """What the metadata said at ``at`` (epoch s): the registered brokers; the fenced ones
    (None: the cluster does not say, ZooKeeper mode or Kafka before 4.0); the partitions
    (None: not asked)."""

    at: float
    brokers: frozenset[int]
    fenced: frozenset[int] | None = None
    partitions: tuple[Partition, ...] | None = None


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    reason: str


@dataclass(frozen=True)
class Evidence:
    """The settled verdict on one broker's outage: its first refused ping finished at
    ``refused_at``, the verdict was reached at ``decided_at`` after ``looks`` metadata looks."""

    broker_id: int
    verdict: Verdict
    reason: str
    refused_at: float
    decided_at: float
    looks: int
    first: str = ""
    """What the first look said, when a second one decided (``verdict: reason``)."""

    def details(self) -> dict[str, Any]:
        return {"reason": self.reason, "refused_at": self.refused_at,
                "decided_at": self.decided_at, "looks": self.looks,
                "first_look": self.first}  # fmt: skip


def classify(broker_id: int, previous: ClusterView | None, current: ClusterView) -> Judgement:
    """The evidence about ``broker_id``, whose port refuses since just before ``current``
    was taken, ``previous`` being the last view taken while it still answered (if any)."""
    if _newly_fenced(broker_id, previous, current):
        return Judgement(CONTROLLED, "fenced by the controller since the last listing")
    hosted = [
        p for p in current.partitions or () if broker_id in p.replicas and len(p.replicas) > 1
    ]
    if hosted:
        led = sum(1 for p in hosted if p.leader == broker_id)
        in_isr = sum(1 for p in hosted if broker_id in p.isr)
        if led:
            return Judgement(
                CRASH,
                f"still leads {led} and is in the ISR of {in_isr} of the {len(hosted)} "
                "multi-replica partitions it hosts",
            )
        if in_isr:  # ZooKeeper: the ISR shrink can trail the port closing (seen: 0.45 s)
            return Judgement(
                UNKNOWN,
                f"leads none of the {len(hosted)} multi-replica partitions it hosts but is "
                f"still in the ISR of {in_isr}: a handover under way, or a crashed follower",
            )
        return Judgement(
            CONTROLLED,
            f"handed over its {len(hosted)} multi-replica partitions: leads none, in no ISR",
        )
    if previous is not None and broker_id in previous.brokers and broker_id not in current.brokers:
        return Judgement(CONTROLLED, "deregistered since the last listing, hosting no replicas")
    if current.partitions is None:
        return Judgement(UNKNOWN, "not fenced, and no partition metadata")
    return Judgement(UNKNOWN, "hosts no multi-replica partition and is not newly fenced")


def _newly_fenced(broker_id: int, previous: ClusterView | None, current: ClusterView) -> bool:
    if current.fenced is None or broker_id not in current.fenced:
        return False
    if previous is None or previous.fenced is None or broker_id not in previous.brokers:
        return False
    return broker_id not in previous.fenced


def settle(first: Judgement, second: Judgement | None) -> Judgement:
    """The verdict of one or two looks: a controlled shutdown at the first look stands; else
    the second look decides (the first, if the second got no answer)."""
    if first.verdict == CONTROLLED or second is None:
        return first
    return second


# ---------------------------------------------------------------------- kafka-python's dicts


def view_of(
    at: float, described: Mapping[str, Any], topics: Iterable[Mapping[str, Any]] | None = None
) -> ClusterView:
    """A view from kafka-python's ``describe_cluster()`` (``is_fenced`` from Kafka 4.0 on;
    absent when it fell back to a Metadata request) and ``describe_topics()``."""
    brokers = list(described.get("brokers") or [])
    has_fencing = any("is_fenced" in b for b in brokers)
    fenced = (
        frozenset(int(b["broker_id"]) for b in brokers if b.get("is_fenced"))
        if has_fencing
        else None
    )
    partitions = None
    if topics is not None:
        partitions = tuple(
            Partition(
                str(t.get("name") or t.get("topic") or ""),
                int(p["partition_index"]),
                int(p.get("leader_id", -1)),
                tuple(int(r) for r in p.get("replica_nodes") or ()),
                tuple(int(r) for r in p.get("isr_nodes") or ()),
            )
            for t in topics
            if not t.get("error_code")
            for p in t.get("partitions") or ()
        )
    return ClusterView(at, frozenset(int(b["broker_id"]) for b in brokers), fenced, partitions)
