"""Fault suite actions on the consumer side beyond ``consumer-stop`` (issue 58), each on a topic
and a group of its own (a group left Empty by one scenario must not fall behind in another's
writes), with the ground truth each page is judged against (:mod:`.consumer_truth`):

- ``consumer-slow``: the group's consumers throttled to half the produce rate; they commit by
  hand every ``COMMIT_EVERY_S`` and record each commit, the producer records the write time of
  every record. ConsumerGroupLagging must page once the true time lag passed the objective, not
  before, and at most ``PAGE_LATE_S`` after.
- ``coordinator-kill``: the group's consumers stop (lag builds); once the monitor judges the
  group stopped, SIGKILL its coordinator (FindCoordinator), down until ``COORDINATOR_HOLD_S``
  after the injection (the group is then twice its objective behind); restart it, resume the
  consumers. The killed broker's one incident must list the group (BrokerHoldsUpConsumerGroups),
  and nothing may page about the group on its own.
- ``retention-loss``: a stopped group on a topic whose records live ``RETENTION_MS`` in
  segments rolled every ``SEGMENT_MS``: ConsumerGroupRecordsDeletedUnread must page once retention
  deleted records the group had not read (seen by a sampler of the log start offsets), and the
  monitor's counter (``kafka_health_consumergroup_deleted_unread_records_total``, counted
  since the job started) must grow by the truth: log start minus committed offset, once
  retention is stopped.

What is wrong with a page by its truth goes to ``ctx.wrong`` (the run's ``wrong``); what was
observed to ``ctx.notes``. Each cleanup leaves the topic and the group reusable: the producer
stops, the consumers read to the log end and close (Empty, nothing unread), the retention topic
keeps its records again.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from kafka_health.detectors.consumer_causes import RELEASE_AFTER_MIN_S
from kafka_health.dev.faults.actions_consumers import (
    MEMBERS,
    OBJECTIVE_S,
    PARTITIONS,
    RATE,
    ConsumerLoad,
    _wait,
    monitor_sees_group,
    wait_caught_up,
)
from kafka_health.dev.faults.consumer_truth import (
    Commit,
    config_value,
    coordinator_of,
    deleted_unread,
    first_crossing,
    first_firing,
    lag_at,
    listing_findings,
    metric,
    page_timing,
)
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.monitor import scrape

SLOW_TOPIC, SLOW_GROUP = "faultsuite-slow", "faultsuite-slow-reader"
COORDINATED_TOPIC, COORDINATED_GROUP = "faultsuite-coordinated", "faultsuite-coordinated-reader"
RETENTION_TOPIC, RETENTION_GROUP = "faultsuite-retention", "faultsuite-retention-reader"

PAGE_LATE_S = 10.0
"""A page more than this after its condition held (the truth) is late: the poller's interval
(5 s) and its round, the rules' evaluation (0.5 s), the group wait (1 s) and the delivery, with
slack."""
SLOW_FRACTION = 0.5
"""The throttled consumers read this share of the produce rate: the time lag of the partition
read slowest grows at least half a second a second, so it passes the 20 s objective within
40 s of the throttle."""
SLOW_MEMBER_RATE = RATE * SLOW_FRACTION / MEMBERS
"""Records a second each throttled member returns."""
COMMIT_EVERY_S = 0.5
"""The throttled consumers commit by hand this often (the lag's sawtooth: half a second)."""
SLOW_BOUND_S = OBJECTIVE_S / (1.0 - SLOW_FRACTION) + PAGE_LATE_S + 20.0
STOPPED_WAIT_S = 16.0
"""coordinator-kill: how long to wait for the monitor to judge the stopped group stopped (two
rounds of the poller's 5 s and the third's start) before the kill."""
COORDINATOR_HOLD_S = 45.0
"""coordinator-kill: the coordinator is started again, and the consumers resumed, this long
after the injection: the group is then over twice its 20 s objective behind, long past the
moment it would page on its own, and the broker has been down past its session (fenced)."""
HOLD_RELEASE_S = max(RELEASE_AFTER_MIN_S, OBJECTIVE_S) + 30.0
"""coordinator-kill: the monitor keeps a group it attributed to a broker with that broker for
this long after the broker was last unhealthy, OK or not (sticky: a group falling behind again
meanwhile is still the broker's), and a margin; a repeat stops the group only after it, so that
its stop is not laid at the door of the broker the run before killed."""
RETENTION_MS = 10_000
SEGMENT_MS = 3_000
"""retention-loss: the topic's records are deleted with their segment, rolled every 3 s, once
its newest record is 10 s old, at the brokers' next retention check."""
KEPT_RETENTION_MS = 7 * 24 * 3600 * 1000
"""retention-loss: the retention the topic gets back at the undo and the cleanup (Kafka's
default): nothing more is deleted, so the truth and the monitor's count can be compared."""
DEFAULT_RETENTION_CHECK_MS = 300_000
"""Kafka's ``log.retention.check.interval.ms``; the bench's cluster sets 5 s."""
RETENTION_BOUND_S = (RETENTION_MS + SEGMENT_MS + DEFAULT_RETENTION_CHECK_MS) / 1000 + 30.0
"""The page's bound: the records' segment rolled and expired, and a retention check of a
cluster that keeps Kafka's default interval (the demo's); the bench's comes within seconds."""
RETENTION_SAMPLE_S = 0.5
"""How often the sampler reads the log start offsets (the deletion seen within this)."""
COUNT_WAIT_S = 30.0
"""How long the monitor's count may take to reach the truth once retention stopped (rounds)."""
DELETED_METRIC = "kafka_health_consumergroup_deleted_unread_records_total"
STATUS_METRIC = "kafka_health_consumergroup_status"


# ------------------------------------------------------------------ shared


def _admin(ctx: FaultContext) -> Any:
    from kafka import KafkaAdminClient

    return KafkaAdminClient(
        bootstrap_servers=ctx.cluster.bootstrap_servers,
        client_id="kafka-health-faults",
        request_timeout_ms=15_000,
    )


def ensure_topic(ctx: FaultContext, topic: str, configs: dict[str, str] | None = None) -> None:
    """Create ``topic`` (``PARTITIONS`` partitions, 3 replicas) with ``configs``, or give the
    one kept from an earlier run those configs."""
    from kafka.admin import NewTopic
    from kafka.errors import TopicAlreadyExistsError

    admin = _admin(ctx)
    try:
        replicas = min(3, len(ctx.cluster.nodes))
        try:
            admin.create_topics([NewTopic(topic, PARTITIONS, replicas, topic_configs=configs)])
        except TopicAlreadyExistsError:
            if configs:
                _set_topic_configs(admin, topic, configs)
    finally:
        admin.close()


def _set_topic_configs(admin: Any, topic: str, configs: dict[str, str]) -> None:
    from kafka.admin import ConfigResource, ConfigResourceType

    answer = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs)])
    result = answer.get("topic", {}).get(topic)
    if result not in (None, "OK"):
        raise RuntimeError(f"altering {topic}'s configs {configs}: {result}")


def start_load(ctx: FaultContext, handle: str, load: ConsumerLoad) -> None:
    """Start ``load``'s producer and consumers, wait until its group is Stable and caught up
    and the monitor reports the group's time lag."""
    ctx.handles[handle] = load
    load.start_producer()
    load.start_consumers()
    state, members, lag = wait_caught_up(ctx, group=load.group, topic=load.topic)
    ctx.say(f"  group {load.group}: {state}, {members} members, {lag} records unread; "
            f"producer at {RATE:g} records/s to {load.topic}")  # fmt: skip
    if ctx.metrics_port:
        _wait(
            f"the monitor reporting {load.group}'s time lag",
            lambda: monitor_sees_group(scrape(ctx.metrics_port), load.group),
            600.0,  # the first run's prepare comes before the monitor's first batches
        )


def stop_load(ctx: FaultContext, handle: str) -> ConsumerLoad | None:
    """The producer first; the consumers (at full speed) read to the log end and commit, then
    close: the group is left Empty with nothing unread."""
    load = ctx.handles.pop(handle, None)
    if not isinstance(load, ConsumerLoad):
        return None
    load.stop_producer()
    if isinstance(load, ThrottledLoad):
        load.member_rate = None
    if not load._consumers:
        load.start_consumers()
    try:
        wait_caught_up(ctx, timeout_s=60.0, group=load.group, topic=load.topic)
    finally:
        load.stop_consumers()
        ctx.notes["produced"] = load.produced
        if load.errors:
            ctx.notes["load_errors"] = load.errors[:10]
    return load


def _load(ctx: FaultContext, handle: str) -> ConsumerLoad:
    load = ctx.handles.get(handle)
    if not isinstance(load, ConsumerLoad):
        raise RuntimeError(f"{handle}: no producer and consumers (prepare did not run)")
    return load


def committed_offsets(ctx: FaultContext, group: str) -> dict[int, int]:
    """The group's committed offsets by partition, as the coordinator has them."""
    admin = _admin(ctx)
    try:
        offsets = admin.list_group_offsets({group: None}).get(group, {})
    finally:
        admin.close()
    return {int(tp.partition): int(m.offset) for tp, m in offsets.items() if m.offset >= 0}


def log_starts(reader: Any, topic: str) -> dict[int, int]:
    from kafka import TopicPartition

    starts = reader.beginning_offsets([TopicPartition(topic, p) for p in range(PARTITIONS)])
    return {int(tp.partition): int(offset) for tp, offset in starts.items()}


# ------------------------------------------------------------------ consumer-slow

SLOW_HANDLE = "consumer-slow-load"


@dataclass
class ThrottledLoad(ConsumerLoad):
    """A :class:`ConsumerLoad` whose consumers commit by hand every ``COMMIT_EVERY_S`` and may
    be throttled (``member_rate`` records a second each, None: as fast as they can), with the
    truth recorded: every commit acknowledged (:class:`Commit`) and every record's write time
    (partition -> offset -> epoch seconds, its timestamp as the broker acknowledged it)."""

    member_rate: float | None = None
    commits: list[Commit] = field(default_factory=list)
    written: dict[int, dict[int, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.on_written = self._written

    def _written(self, meta: Any) -> None:
        self.written.setdefault(int(meta.partition), {})[int(meta.offset)] = meta.timestamp / 1e3

    def start_consumers(self) -> None:
        from kafka import KafkaConsumer

        self._consumers_stop.clear()
        for member in range(MEMBERS):
            consumer = KafkaConsumer(
                self.topic,
                bootstrap_servers=self.servers,
                group_id=self.group,
                client_id=f"{self.group}-{member}",
                enable_auto_commit=False,
                auto_offset_reset="earliest",
                session_timeout_ms=10_000,
                heartbeat_interval_ms=3_000,
            )
            thread = threading.Thread(target=self._read, args=(consumer, member),
                                      name=f"faultsuite-slow-consumer-{member}",
                                      daemon=True)  # fmt: skip
            thread.start()
            self._consumers.append(thread)

    def _read(self, consumer: Any, member: int) -> None:
        """Poll (one record at a time while throttled, then sleep its share of a second),
        commit what was returned every ``COMMIT_EVERY_S`` and at the end."""
        consumed: dict[Any, int] = {}
        committed_at = time.monotonic()
        try:
            while not self._consumers_stop.is_set():
                rate = self.member_rate
                batch = self.poll_once(consumer, member, max_records=1 if rate else None)
                returned = 0
                for tp, records in batch.items():
                    if records:
                        consumed[tp] = int(records[-1].offset) + 1
                        returned += len(records)
                if rate and returned:
                    self._consumers_stop.wait(returned / rate)
                if time.monotonic() - committed_at >= COMMIT_EVERY_S:
                    self._commit(consumer, consumed, member)
                    committed_at = time.monotonic()
            self._commit(consumer, consumed, member)
        except Exception as exc:  # recorded, the run's notes show it
            self.errors.append(f"consumer {member}: {type(exc).__name__}: {exc}")
        finally:
            consumer.close(autocommit=False)

    def _commit(self, consumer: Any, consumed: dict[Any, int], member: int) -> None:
        """Commit the positions returned of the partitions the member owns now (a partition
        revoked is forgotten: its next owner commits it), and record them once acknowledged."""
        from kafka.structs import OffsetAndMetadata

        owned = consumer.assignment()
        for tp in [tp for tp in consumed if tp not in owned]:
            del consumed[tp]
        if not consumed:
            return
        offsets = {tp: OffsetAndMetadata(offset, "", -1) for tp, offset in consumed.items()}
        try:
            consumer.commit(offsets)
        except Exception as exc:  # a rebalance under way: the next commit makes up for it
            self.errors.append(f"consumer {member} commit: {type(exc).__name__}: {exc}")
            return
        at = time.time()
        self.commits.extend(Commit(at, int(tp.partition), o) for tp, o in consumed.items())


def slow_start(ctx: FaultContext) -> None:
    """``SLOW_TOPIC`` (kept from an earlier run), its producer and its group at full speed,
    caught up and reported by the monitor."""
    ensure_topic(ctx, SLOW_TOPIC)
    load = ThrottledLoad(ctx.cluster.bootstrap_servers, topic=SLOW_TOPIC, group=SLOW_GROUP)
    start_load(ctx, SLOW_HANDLE, load)


def consumers_throttle(ctx: FaultContext) -> None:
    """Throttle every consumer of the group to ``SLOW_MEMBER_RATE``; the producer keeps its
    ``RATE``."""
    load = _load(ctx, SLOW_HANDLE)
    assert isinstance(load, ThrottledLoad)
    load.member_rate = SLOW_MEMBER_RATE
    ctx.notes.update(throttled_at=time.time(), objective_s=OBJECTIVE_S,
                     consume_rate=SLOW_MEMBER_RATE * MEMBERS, produce_rate=RATE)  # fmt: skip


def consumers_unthrottle(ctx: FaultContext) -> None:
    """Full speed again: the consumers catch up."""
    load = _load(ctx, SLOW_HANDLE)
    assert isinstance(load, ThrottledLoad)
    load.member_rate = None
    ctx.notes["unthrottled_at"] = time.time()
    state, members, lag = wait_caught_up(ctx, group=SLOW_GROUP, topic=SLOW_TOPIC)
    ctx.notes["group_after_undo"] = f"{state}, {members} members, {lag} records unread"


def slow_stop(ctx: FaultContext) -> None:
    stop_load(ctx, SLOW_HANDLE)


def check_slow_page(ctx: FaultContext) -> None:
    """The first ConsumerGroupLagging about the group against the truth: when the largest true
    time lag passed the objective (:func:`first_crossing`). Wrong: a page before it, or more
    than ``PAGE_LATE_S`` after it; no truth to judge by."""
    load = ctx.handles.get(SLOW_HANDLE)
    if not isinstance(load, ThrottledLoad):
        return
    until = float(ctx.notes.get("unthrottled_at", time.time()))
    # The producer and the consumers still run: copies (each made in one step under the GIL).
    commits = list(load.commits)
    written = {p: dict(offsets) for p, offsets in list(load.written.items())}
    truth = first_crossing(commits, written, OBJECTIVE_S, ctx.injected_at, until)
    ctx.notes["commits_recorded"] = len(commits)
    if truth.unknown:
        ctx.notes["truth_unknown"] = list(truth.unknown[:5])
        ctx.wrong.append(f"cannot judge the page: {truth.unknown[0]}")
    crossing = truth.crossing
    if crossing is not None:
        ctx.notes.update(
            lag_crossed_objective_at=round(crossing.at, 3),
            lag_crossed_after_throttle_s=round(crossing.at - ctx.injected_at, 1),
            lag_crossed_on_partition=crossing.partition,
        )
    found = first_firing(ctx.receiver.pages_since(ctx.injected_at), "ConsumerGroupLagging",
                         group=SLOW_GROUP)  # fmt: skip
    if found is None:
        return  # missed: the bench counts it
    page, alert = found
    labels = alert.get("labels", {})
    summary = str(alert.get("annotations", {}).get("summary", ""))
    ctx.notes.update(
        page_summary=summary,
        page_names_lag_s="s behind" in summary,
        page_severity=labels.get("severity"),
        page_team=labels.get("team"),
    )
    truth_lag = lag_at(page.at, commits, written)
    if truth_lag is not None:
        ctx.notes["true_lag_at_page_s"] = round(truth_lag, 1)
    if crossing is not None:
        ctx.notes["page_after_crossing_s"] = round(page.at - crossing.at, 1)
    if not truth.unknown:
        problem = page_timing(page.at, crossing.at if crossing else None, PAGE_LATE_S)
        if problem is not None:
            ctx.wrong.append(f"ConsumerGroupLagging {problem}: the lag passed {OBJECTIVE_S:g} s")


# ------------------------------------------------------------------ coordinator-kill

COORDINATED_HANDLE = "coordinator-kill-load"
RELEASED_AT = "coordinator-kill-released-at"
"""In ``ctx.handles`` (kept from run to run): when the monitor has let go of the group the run
before attributed to its killed coordinator."""


def find_coordinator(ctx: FaultContext, group: str, timeout_s: float = 30.0) -> int:
    """The broker coordinating ``group`` now: FindCoordinator (v4+ batched, else v0-3) through
    kafka-python's admin client, asked again while the answer is an error (a coordinator still
    loading the group's offsets partition)."""
    from kafka.protocol.metadata import FindCoordinatorRequest

    deadline = time.monotonic() + timeout_s
    last: Any = None
    while True:
        admin = _admin(ctx)
        try:
            manager = admin._manager
            if manager.broker_version_data.api_version(FindCoordinatorRequest) >= 4:
                request = FindCoordinatorRequest(key_type=0, coordinator_keys=[group],
                                                 min_version=4)  # fmt: skip
            else:
                request = FindCoordinatorRequest(key=group, key_type=0, max_version=3)
            last = manager.run(_send, manager, request).to_dict()
        except Exception as exc:
            last = f"{type(exc).__name__}: {exc}"
        finally:
            admin.close()
        node = coordinator_of(last, group) if isinstance(last, dict) else None
        if node is not None:
            return node
        if time.monotonic() >= deadline:
            raise RuntimeError(f"no coordinator found for {group}: {last}")
        time.sleep(1.0)


async def _send(manager: Any, request: Any) -> Any:
    """``request`` to the least loaded broker, on the admin client's I/O thread."""
    return await manager.send(request)


def coordinated_start(ctx: FaultContext) -> None:
    """After a run before (the monitor's attribution of the group released), the topic, its
    producer and its group caught up and reported by the monitor."""
    released_at = ctx.handles.get(RELEASED_AT)
    if isinstance(released_at, float) and released_at > time.time():
        ctx.say(f"  waiting {released_at - time.time():.0f} s until the monitor lets go of "
                f"{COORDINATED_GROUP}, attributed to the broker the run before killed")  # fmt: skip
        time.sleep(max(0.0, released_at - time.time()))
    ensure_topic(ctx, COORDINATED_TOPIC)
    load = ConsumerLoad(ctx.cluster.bootstrap_servers, topic=COORDINATED_TOPIC,
                        group=COORDINATED_GROUP)  # fmt: skip
    start_load(ctx, COORDINATED_HANDLE, load)


def monitor_judges(ctx: FaultContext, group: str, verdict: str) -> bool:
    return metric(scrape(ctx.metrics_port), STATUS_METRIC, group=group, verdict=verdict) == 1.0


def kill_coordinator(ctx: FaultContext) -> None:
    """Close the group's consumers (lag builds: the producer keeps writing), wait until the
    monitor judges the group stopped (at most ``STOPPED_WAIT_S``), then SIGKILL the broker
    FindCoordinator names for it; that broker is the scenario's target."""
    load = _load(ctx, COORDINATED_HANDLE)
    load.stop_consumers()
    stopped_at = time.time()
    ctx.notes.update(consumers_stopped_at=stopped_at, objective_s=OBJECTIVE_S)
    if ctx.metrics_port:
        deadline = time.monotonic() + STOPPED_WAIT_S
        while time.monotonic() < deadline:
            if monitor_judges(ctx, COORDINATED_GROUP, "stopped"):
                ctx.notes["judged_stopped_after_s"] = round(time.time() - stopped_at, 1)
                break
            time.sleep(0.5)
        else:
            ctx.notes["judged_stopped_after_s"] = None  # killed anyway: noted
    victim = find_coordinator(ctx, COORDINATED_GROUP)
    ctx.targets = (victim,)
    ctx.notes["coordinator"] = victim
    ctx.say(f"  group {COORDINATED_GROUP} stopped; its coordinator is broker {victim}: SIGKILL")
    ctx.cluster.kill_broker(victim)
    ctx.notes["killed_at"] = time.time()
    # Till the undo says better (a run that fails before it: its restore comes later still).
    ctx.handles[RELEASED_AT] = time.time() + COORDINATOR_HOLD_S + HOLD_RELEASE_S + 60.0
    ctx.notes["lag_at_kill_s"] = round(ctx.notes["killed_at"] - stopped_at, 1)


def restart_coordinator(ctx: FaultContext) -> None:
    """Start the killed coordinator again, then the group's consumers; they catch up."""
    if "coordinator" in ctx.notes:
        ctx.start_brokers([int(ctx.notes["coordinator"])])
        ctx.notes["restarted_after_s"] = round(time.time() - ctx.notes["killed_at"], 1)
        ctx.handles[RELEASED_AT] = time.time() + HOLD_RELEASE_S
    load = _load(ctx, COORDINATED_HANDLE)
    load.start_consumers()
    state, members, lag = wait_caught_up(ctx, group=COORDINATED_GROUP, topic=COORDINATED_TOPIC)
    ctx.notes["group_after_undo"] = f"{state}, {members} members, {lag} records unread"


def coordinated_stop(ctx: FaultContext) -> None:
    stop_load(ctx, COORDINATED_HANDLE)


def check_coordinator_incident(ctx: FaultContext) -> None:
    """The killed coordinator's incident listed the group, and nothing paged about the group on
    its own (:func:`listing_findings`)."""
    if "coordinator" not in ctx.notes:
        return
    victim = int(ctx.notes["coordinator"])
    notes, wrong = listing_findings(
        ctx.receiver.pages_since(ctx.injected_at), victim, COORDINATED_GROUP
    )
    if "listed_at" in notes:
        notes["listed_after_kill_s"] = round(notes["listed_at"] - ctx.notes["killed_at"], 1)
    ctx.notes.update(notes)
    ctx.wrong.extend(wrong)


# ------------------------------------------------------------------ retention-loss

RETENTION_HANDLE = "retention-loss-load"
RETENTION_WATCH = "retention-loss-watch"
SHORT_RETENTION = {"retention.ms": str(RETENTION_MS), "segment.ms": str(SEGMENT_MS)}
KEPT_RETENTION = {"retention.ms": str(KEPT_RETENTION_MS), "segment.ms": str(KEPT_RETENTION_MS)}


@dataclass
class DeletionWatch:
    """Reads the topic's log start offsets every ``RETENTION_SAMPLE_S`` on a thread of its own,
    from the stop of the group, until it has seen retention delete records the group had not
    read (``deleted_at``: the first sample with a log start above a committed offset)."""

    servers: list[str]
    committed: dict[int, int]
    deleted_at: float | None = None
    first_deleted: dict[int, int] = field(default_factory=dict)
    samples: int = 0
    error: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> DeletionWatch:
        self._thread = threading.Thread(target=self._run, name="faultsuite-retention-watch",
                                        daemon=True)  # fmt: skip
        self._thread.start()
        return self

    def _run(self) -> None:
        from kafka import KafkaConsumer

        reader = KafkaConsumer(bootstrap_servers=self.servers, request_timeout_ms=5_000)
        try:
            while not self._stop.is_set() and self.deleted_at is None:
                try:
                    starts = log_starts(reader, RETENTION_TOPIC)
                except Exception as exc:  # a broker busy: the next sample
                    self.error = f"{type(exc).__name__}: {exc}"
                else:
                    at = time.time()
                    self.samples += 1
                    lost = deleted_unread(starts, self.committed)
                    if lost:
                        self.deleted_at, self.first_deleted = at, lost
                self._stop.wait(RETENTION_SAMPLE_S)
        finally:
            reader.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None


def retention_check_ms(ctx: FaultContext) -> int | None:
    """``log.retention.check.interval.ms`` of the first broker (how often retention runs)."""
    from kafka.admin import ConfigResource, ConfigResourceType

    key = "log.retention.check.interval.ms"
    broker = str(ctx.cluster.nodes[0].broker_id)
    admin = _admin(ctx)
    try:
        answer = admin.describe_configs(
            [ConfigResource(ConfigResourceType.BROKER, broker, [key])], config_filter="all"
        )
    finally:
        admin.close()
    value = config_value(answer, "broker", broker, key)
    return int(value) if value is not None else None


def retention_start(ctx: FaultContext) -> None:
    """``RETENTION_TOPIC`` with its short retention (created, or set again on the one kept from
    an earlier run), its producer and its group caught up and reported by the monitor."""
    ensure_topic(ctx, RETENTION_TOPIC, SHORT_RETENTION)
    try:
        ctx.notes["retention_check_interval_ms"] = retention_check_ms(ctx)
    except Exception as exc:  # noted: the scenario still runs, more slowly if it is the default
        ctx.notes["retention_check_interval_ms"] = f"unknown: {type(exc).__name__}: {exc}"
    ctx.notes.update(retention_ms=RETENTION_MS, segment_ms=SEGMENT_MS)
    load = ConsumerLoad(ctx.cluster.bootstrap_servers, topic=RETENTION_TOPIC,
                        group=RETENTION_GROUP)  # fmt: skip
    start_load(ctx, RETENTION_HANDLE, load)


def retention_stop_group(ctx: FaultContext) -> None:
    """The monitor's count before (its baseline: counted since the job started), then close
    the group's consumers while the producer keeps writing, read the offsets they committed,
    and watch the log start offsets for the first records deleted unread."""
    before = metric(scrape(ctx.metrics_port), DELETED_METRIC, group=RETENTION_GROUP) \
        if ctx.metrics_port else None  # fmt: skip
    ctx.notes["monitor_deleted_unread_before"] = before
    load = _load(ctx, RETENTION_HANDLE)
    load.stop_consumers()
    ctx.notes["consumers_stopped_at"] = time.time()
    committed = committed_offsets(ctx, RETENTION_GROUP)
    ctx.notes["committed_at_stop"] = {str(p): o for p, o in sorted(committed.items())}
    ctx.handles[RETENTION_WATCH] = DeletionWatch(ctx.cluster.bootstrap_servers, committed).start()


def _watch(ctx: FaultContext) -> DeletionWatch | None:
    watch = ctx.handles.get(RETENTION_WATCH)
    return watch if isinstance(watch, DeletionWatch) else None


def _stable_truth(ctx: FaultContext, committed: dict[int, int]) -> tuple[dict[int, int], int]:
    """Log start offsets read every second until three reads agree (retention stopped: they
    stay), at most ``COUNT_WAIT_S``; returns the per-partition deleted-unread truth and the
    reads made."""
    from kafka import KafkaConsumer

    reader = KafkaConsumer(bootstrap_servers=ctx.cluster.bootstrap_servers)
    try:
        deadline = time.monotonic() + COUNT_WAIT_S
        reads: list[dict[int, int]] = []
        while True:
            reads.append(log_starts(reader, RETENTION_TOPIC))
            if len(reads) >= 3 and reads[-1] == reads[-2] == reads[-3]:
                break
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{RETENTION_TOPIC}'s log start offsets still moving: {reads}")
            time.sleep(1.0)
    finally:
        reader.close()
    return deleted_unread(reads[-1], committed), len(reads)


def retention_restore(ctx: FaultContext) -> None:
    """Stop the producer and give the topic its long retention back (nothing more deleted),
    count the truth (log start minus committed offset) once the log start offsets stay, wait
    for the monitor's count to grow by it (wrong if it does not within ``COUNT_WAIT_S``), then
    resume the consumers (they start again at the log start) until they caught up."""
    watch = _watch(ctx)
    if watch is not None:
        watch.stop()
    load = _load(ctx, RETENTION_HANDLE)
    load.stop_producer()
    admin = _admin(ctx)
    try:
        _set_topic_configs(admin, RETENTION_TOPIC, KEPT_RETENTION)
    finally:
        admin.close()
    committed = {int(p): o for p, o in ctx.notes.get("committed_at_stop", {}).items()}
    truth, reads = _stable_truth(ctx, committed)
    total = sum(truth.values())
    ctx.notes.update(deleted_unread_truth={str(p): n for p, n in truth.items()},
                     deleted_unread_truth_total=total, truth_reads=reads)  # fmt: skip
    if ctx.metrics_port:
        before = ctx.notes.get("monitor_deleted_unread_before") or 0.0
        counted: float | None = None
        deadline = time.monotonic() + COUNT_WAIT_S
        while time.monotonic() < deadline:
            now = metric(scrape(ctx.metrics_port), DELETED_METRIC, group=RETENTION_GROUP)
            counted = None if now is None else now - before
            if counted == total:
                break
            time.sleep(1.0)
        ctx.notes["monitor_deleted_unread_counted"] = counted
        if counted != total:
            ctx.wrong.append(
                f"the monitor counted {counted} records deleted unread, the truth is {total} "
                f"(log start minus committed offset: {truth})"
            )
    load.start_consumers()
    state, members, lag = wait_caught_up(ctx, group=RETENTION_GROUP, topic=RETENTION_TOPIC)
    ctx.notes["group_after_undo"] = f"{state}, {members} members, {lag} records unread"


def retention_stop(ctx: FaultContext) -> None:
    """The watch and the load stopped, the topic's long retention back (also after a failed
    run), the group Empty with nothing unread."""
    watch = _watch(ctx)
    if watch is not None:
        watch.stop()
        ctx.handles.pop(RETENTION_WATCH, None)
    try:
        stop_load(ctx, RETENTION_HANDLE)
    finally:
        admin = _admin(ctx)
        try:
            _set_topic_configs(admin, RETENTION_TOPIC, KEPT_RETENTION)
        finally:
            admin.close()


def check_retention_page(ctx: FaultContext) -> None:
    """The first ConsumerGroupRecordsDeletedUnread about the group against the truth: when the
    sampler first saw a log start above a committed offset. Wrong: a page before that (less
    the sampler's period), more than ``PAGE_LATE_S`` after it, or no deletion to page about."""
    watch = _watch(ctx)
    if watch is not None:
        ctx.notes.update(deletion_samples=watch.samples, deletion_watch_error=watch.error)
        if watch.deleted_at is not None:
            ctx.notes.update(
                deleted_seen_after_stop_s=round(
                    watch.deleted_at - float(ctx.notes["consumers_stopped_at"]), 1
                ),
                first_deleted={str(p): n for p, n in watch.first_deleted.items()},
            )
    found = first_firing(ctx.receiver.pages_since(ctx.injected_at),
                         "ConsumerGroupRecordsDeletedUnread", group=RETENTION_GROUP)  # fmt: skip
    if found is None:
        return  # missed: the bench counts it
    page, alert = found
    ctx.notes["page_summary"] = str(alert.get("annotations", {}).get("summary", ""))
    deleted_at = watch.deleted_at if watch is not None else None
    if deleted_at is not None:
        ctx.notes["page_after_deletion_s"] = round(page.at - deleted_at, 1)
    problem = page_timing(page.at, deleted_at, PAGE_LATE_S, early_s=RETENTION_SAMPLE_S + 0.5)
    if problem is not None:
        ctx.wrong.append(f"ConsumerGroupRecordsDeletedUnread {problem}: records deleted unread")
