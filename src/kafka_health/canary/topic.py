"""The canary topic: created, grown and kept with one partition led by each broker.

Target layout over the sorted live brokers ``b``: partition ``p`` has replicas
``[b[(p + i) % n] for i in range(rf)]``, so with at least one partition per broker every
broker is the preferred (first) replica of one. ``plan_topic`` is pure and decides:

- missing topic: create it with that layout, ``min.insync.replicas`` and LogAppendTime;
- fewer partitions than live brokers (or ``partitions``): add partitions;
- broker set changed (a live broker holds no replica or leads no partition, a replica sits
  on a broker that is gone, the replication factor is off): reassign, but only when at least
  ``expected_brokers`` brokers are live (default: as many as the current layout uses, so a
  restarting broker never causes churn) and no reassignment is running; a broker of the
  layout that has not been registered at all (fenced counts as registered) for
  ``gone_after_s`` (``job.inventory_ttl_s``) left the cluster for good (a decommission that
  left the canary topic out, a KRaft broker unregistered, a ZooKeeper broker that never came
  back) and is not expected: its replicas move to the live brokers, so that it stops being a
  member of the cluster only because the monitor's own topic holds a replica on it;
- a live, in-sync preferred replica that does not lead: preferred leader election;
- configs that differ: alter them.

:class:`TopicManager` reads the cluster with an AdminClient, applies the plan, and reports
each failure without raising (managed clusters may forbid some of these calls).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka_health.canary.config import CanaryConfig
from kafka_health.canary.metrics import CanaryMetrics

log = logging.getLogger(__name__)

MIN_ISR = "min.insync.replicas"
TIMESTAMP_TYPE = "message.timestamp.type"
UNKNOWN_TOPIC_OR_PARTITION = 3
LEADERS_WAIT_S = 15.0
"""How long a management round waits for new partitions' leaders to take them."""


@dataclass(frozen=True)
class PartitionInfo:
    """One partition as described by the cluster."""

    partition: int
    leader: int | None
    replicas: tuple[int, ...]
    isr: tuple[int, ...]


@dataclass(frozen=True)
class TopicPlan:
    """What to change, and why nothing else is changed (``notes``)."""

    create: dict[int, list[int]] = field(default_factory=dict)
    add_partitions: list[list[int]] = field(default_factory=list)
    reassign: dict[int, list[int]] = field(default_factory=dict)
    elect: list[int] = field(default_factory=list)
    configs: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.create or self.add_partitions or self.reassign or self.elect) and (
            not self.configs
        )


def replication_factor(config: CanaryConfig, brokers: int) -> int:
    """Configured, else min(3, brokers); never more than the brokers there are."""
    wanted = config.replication_factor or min(3, brokers)
    return max(1, min(wanted, brokers))


def min_insync_replicas(config: CanaryConfig, rf: int) -> int:
    """Configured, else RF - 1; at least 1 and at most RF."""
    wanted = config.min_insync_replicas or rf - 1
    return max(1, min(wanted, rf))


def layout(brokers: Sequence[int], partitions: int, rf: int) -> dict[int, list[int]]:
    """Round-robin replicas over ``brokers``; partition p is led by brokers[p % n]."""
    ordered = sorted(brokers)
    n = len(ordered)
    return {p: [ordered[(p + i) % n] for i in range(rf)] for p in range(partitions)}


def plan_topic(
    config: CanaryConfig,
    live: Sequence[int],
    current: Sequence[PartitionInfo] | None,
    configs: Mapping[str, str],
    reassignment_running: bool | None,
    departed: Collection[int] = (),
) -> TopicPlan:
    """Decide the changes that bring the canary topic to its target (see module doc).

    ``reassignment_running`` is None when it could not be listed: treated as running.
    ``departed``: brokers of the layout gone for good (not expected back).
    """
    live = sorted(set(live))
    if not live:
        return TopicPlan(notes=["no live brokers"])
    if current is None:
        rf = replication_factor(config, len(live))
        partitions = max(config.partitions, len(live))
        return TopicPlan(
            create=layout(live, partitions, rf),
            configs={
                MIN_ISR: str(min_insync_replicas(config, rf)),
                TIMESTAMP_TYPE: "LogAppendTime",
            },
        )

    notes: list[str] = []
    reassign: dict[int, list[int]] = {}
    add: list[list[int]] = []
    elect: list[int] = []
    assigned = sorted({b for p in current for b in p.replicas})
    expected = config.expected_brokers or len([b for b in assigned if b not in departed])
    if reassignment_running is not False:
        notes.append(
            "a reassignment is running: layout kept"
            if reassignment_running
            else "reassignments could not be listed: layout kept"
        )
    elif len(live) < expected:
        notes.append(f"{len(live)} of {expected} expected brokers live: layout kept")
    else:
        rf = replication_factor(config, len(live))
        count = max(len(current), config.partitions, len(live))
        target = layout(live, count, rf)
        leaders = {p.replicas[0] for p in current if p.replicas}
        relayout = (
            set(assigned) != set(live)
            or not set(live) <= leaders
            or any(len(p.replicas) != rf for p in current)
        )
        if relayout:
            reassign = {
                p.partition: target[p.partition]
                for p in current
                if list(p.replicas) != target[p.partition]
            }
        add = [target[p] for p in range(len(current), count)]
        if not reassign:
            elect = sorted(
                p.partition
                for p in current
                if p.replicas
                and p.leader != p.replicas[0]
                and p.replicas[0] in live
                and p.replicas[0] in p.isr
            )

    actual_rf = min(len(p.replicas) for p in current) if current else 1
    wanted = {MIN_ISR: str(min_insync_replicas(config, actual_rf)), TIMESTAMP_TYPE: "LogAppendTime"}
    changed = {k: v for k, v in wanted.items() if configs.get(k) != v}
    return TopicPlan(
        add_partitions=add, reassign=reassign, elect=elect, configs=changed, notes=notes
    )


@dataclass
class TopicReport:
    """What one management round did, and what failed."""

    actions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class TopicManager:
    """Applies :func:`plan_topic` to the canary topic; also creates the output topics."""

    def __init__(
        self,
        admin: Callable[[], Any],
        topic: str,
        config: CanaryConfig,
        output_topics: Mapping[str, int] | None = None,
        metrics: CanaryMetrics | None = None,
        gone_after_s: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._make_admin = admin
        self.topic = topic
        self.config = config
        self.output_topics = dict(output_topics or {})
        self.metrics = metrics
        self._admin: Any = None
        self._last_notes: list[str] = []
        self.gone_after_s = gone_after_s
        self._clock = clock
        self._unregistered_since: dict[int, float] = {}  # a layout broker not registered

    def ensure(self) -> TopicReport:
        """One management round; never raises for Kafka or permission errors.

        After any failed call the admin client is rebuilt for the next round: kafka-python
        keeps sending controller requests to a controller id it learnt once, even when that
        broker is gone.
        """
        report = TopicReport()
        try:
            if self._admin is None:
                self._admin = self._make_admin()
            self._ensure(self._admin, report)
        except Exception as exc:
            self._record(report, "describe", exc)
        if report.errors or any(n.startswith("cannot list") for n in report.notes):
            self.close()
        for line in report.errors:
            log.warning("canary topic management: %s", line)
        for line in report.actions:
            log.info("canary topic management: %s", line)
        if report.notes != self._last_notes:
            for line in report.notes:
                log.info("canary topic management: %s", line)
            self._last_notes = list(report.notes)
        return report

    def close(self) -> None:
        if self._admin is not None:
            try:
                self._admin.close()
            except Exception:
                log.debug("closing the admin client failed", exc_info=True)
            self._admin = None

    def _ensure(self, admin: Any, report: TopicReport) -> None:
        from kafka.admin import ConfigResource, ConfigResourceType

        described = admin.describe_cluster()
        live = [int(b["broker_id"]) for b in described["brokers"] if not b.get("is_fenced")]
        current = describe_partitions(admin, self.topic)
        configs: dict[str, str] = {}
        running: bool | None = False
        if current is not None:
            resource = ConfigResource(
                ConfigResourceType.TOPIC, self.topic, [MIN_ISR, TIMESTAMP_TYPE]
            )
            found = admin.describe_configs([resource], config_filter="all")
            entries = found.get("topic", {}).get(self.topic, {})
            configs = {k: str(v.get("value")) for k, v in entries.items()}
            try:
                listed = admin.list_partition_reassignments(
                    {self.topic: [p.partition for p in current]}
                )
                running = bool(listed)
            except Exception as exc:
                report.notes.append(f"cannot list reassignments: {exc}")
                running = None
        registered = {int(b["broker_id"]) for b in described["brokers"]}
        plan = plan_topic(
            self.config, live, current, configs, running, self.departed(registered, current)
        )
        report.notes.extend(plan.notes)
        self._apply(admin, plan, len(current or ()), report)
        self._ensure_outputs(admin, len(live), report)

    def departed(
        self, registered: Collection[int], current: Sequence[PartitionInfo] | None
    ) -> set[int]:
        """The layout's brokers not registered for ``gone_after_s`` (each round notes since
        when a layout broker is missing from the registered ones)."""
        now = self._clock()
        assigned = {b for p in current or () for b in p.replicas}
        missing = assigned - set(registered)
        self._unregistered_since = {
            b: self._unregistered_since.get(b, now) for b in sorted(missing)
        }
        return {
            b for b, since in self._unregistered_since.items() if now - since >= self.gone_after_s
        }

    def _apply(self, admin: Any, plan: TopicPlan, existing: int, report: TopicReport) -> None:
        from kafka.admin import ConfigResource, ConfigResourceType
        from kafka.structs import TopicPartition

        topic = self.topic
        if plan.create:
            self._do(
                report,
                "create",
                f"created {topic} with layout {plan.create}",
                lambda: admin.create_topics(
                    {topic: {"assignments": plan.create, "configs": plan.configs}},
                    wait_for_metadata=True,
                ),
            )
            self._await_leaders(admin, report, list(plan.create))
            return
        if plan.add_partitions:
            total = existing + len(plan.add_partitions)
            self._do(
                report,
                "add_partitions",
                f"{topic}: partitions {existing} -> {total}",
                lambda: admin.create_partitions(
                    {topic: {"count": total, "assignments": plan.add_partitions}}
                ),
            )
            self._await_leaders(admin, report, list(range(existing, total)))
        if plan.reassign:

            def reassign() -> None:
                moves = {TopicPartition(topic, p): r for p, r in plan.reassign.items()}
                failed = {
                    tp: e for tp, e in admin.alter_partition_reassignments(moves).items() if e
                }
                if failed:
                    raise RuntimeError(f"partitions refused: {failed}")

            self._do(report, "reassign", f"{topic}: reassigning {plan.reassign}", reassign)
        if plan.elect:
            self._do(
                report,
                "elect",
                f"{topic}: preferred leader election for {plan.elect}",
                lambda: admin.elect_leaders(0, {topic: plan.elect}),
            )
        if plan.configs:
            resource = ConfigResource(ConfigResourceType.TOPIC, topic, dict(plan.configs))
            self._do(
                report,
                "alter_configs",
                f"{topic}: configs set to {plan.configs}",
                lambda: check_alter(admin.alter_configs([resource])),
            )

    def _await_leaders(self, admin: Any, report: TopicReport, partitions: list[int]) -> None:
        """After a create or an addition that succeeded: until the new partitions' leaders
        take them, a probe would fail for the canary's own doing, not the cluster's."""
        if report.errors:
            return
        try:
            await_leaders(admin, self.topic, partitions)
        except Exception as exc:
            self._record(report, "await_leaders", exc)

    def _ensure_outputs(self, admin: Any, brokers: int, report: TopicReport) -> None:
        for name, partitions in self.output_topics.items():
            if brokers == 0 or describe_partitions(admin, name) is not None:
                continue
            self._do(
                report,
                "create",
                f"created {name} ({partitions} partitions)",
                functools.partial(create_output_topic, admin, name, partitions, brokers),
            )

    def _do(self, report: TopicReport, action: str, done: str, call: Callable[[], Any]) -> None:
        try:
            call()
        except Exception as exc:
            if type(exc).__name__ == "TopicAlreadyExistsError":
                return
            self._record(report, action, exc)
            return
        report.actions.append(done)
        if self.metrics is not None:
            self.metrics.topic_actions.labels(action, "ok").inc()

    def _record(self, report: TopicReport, action: str, exc: BaseException) -> None:
        report.errors.append(f"{action} failed: {type(exc).__name__}: {exc}")
        if self.metrics is not None:
            self.metrics.topic_actions.labels(action, "error").inc()


def create_output_topic(admin: Any, name: str, partitions: int, brokers: int) -> None:
    """Create a topic the monitor writes (results, cluster state): RF min(3, brokers)."""
    spec = {"num_partitions": partitions, "replication_factor": max(1, min(3, brokers))}
    admin.create_topics({name: spec}, wait_for_metadata=True)


def ensure_output_topic(admin: Any, name: str, partitions: int) -> bool:
    """Create ``name`` when it does not exist; True when it was created."""
    if describe_partitions(admin, name) is not None:
        return False
    brokers = [b for b in admin.describe_cluster()["brokers"] if not b.get("is_fenced")]
    try:
        create_output_topic(admin, name, partitions, len(brokers))
    except Exception as exc:
        if type(exc).__name__ != "TopicAlreadyExistsError":
            raise
        return False
    return True


def await_leaders(
    admin: Any,
    topic: str,
    partitions: Sequence[int],
    timeout_s: float = LEADERS_WAIT_S,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Return once each partition's leader answers a ListOffsets for it; raise the last
    retriable error (UnknownTopicOrPartition, LeaderNotAvailable, NotLeader) at the deadline.

    ``create_topics(wait_for_metadata=True)`` returns when some broker's metadata names a
    leader, which can be before that leader has taken the partition: a write then fails
    with UnknownTopicOrPartition (seen: a fresh canary's first probe of broker 2's partition,
    which paged CanaryWriteFailure with 1 failure in 10 sends).
    """
    from kafka.admin import OffsetSpec
    from kafka.structs import TopicPartition

    specs = {TopicPartition(topic, p): OffsetSpec.LATEST for p in partitions}
    deadline = clock() + timeout_s
    while True:
        try:
            admin.list_partition_offsets(specs)
            return
        except Exception as exc:
            if not getattr(exc, "retriable", False) or clock() >= deadline:
                raise
        sleep(0.2)


def describe_partitions(admin: Any, topic: str) -> list[PartitionInfo] | None:
    """The topic's partitions from Metadata, or None when the topic does not exist."""
    from kafka.errors import for_code

    described = admin.describe_topics([topic])
    if not described:
        return None
    entry = described[0]
    code = int(entry.get("error_code", 0))
    if code == UNKNOWN_TOPIC_OR_PARTITION:
        return None
    if code != 0:
        raise for_code(code)(f"describing {topic}")
    return sorted(
        (
            PartitionInfo(
                partition=int(p["partition_index"]),
                leader=int(p["leader_id"]) if p["leader_id"] >= 0 else None,
                replicas=tuple(p["replica_nodes"]),
                isr=tuple(p["isr_nodes"]),
            )
            for p in entry["partitions"]
        ),
        key=lambda p: p.partition,
    )


def check_alter(result: Any) -> None:
    """Raise when alter_configs reports anything but ``OK`` for a resource."""
    for resources in (result or {}).values():
        for name, outcome in (resources or {}).items():
            if outcome != "OK":
                raise RuntimeError(f"{name}: {outcome}")
