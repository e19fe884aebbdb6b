"""Fault suite actions on the consumer side: a topic written steadily by a producer and read by
a group of real consumers (kafka-python, classic protocol, committing every second), whose
consumers are stopped while the producer keeps writing (``consumer-stop``).

The producer and the consumers run as threads of the bench's process. The topic and the group
outlive a run: at its cleanup the producer stops first, the consumers read up to the log end
and commit, then close; the group is left Empty with nothing unread (no lag to grow, nothing
to page), and the next run reuses both.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafka_health.dev.demo import FAULT_SUITE_OBJECTIVE
from kafka_health.dev.faults.context import FaultContext
from kafka_health.dev.faults.monitor import scrape

TOPIC = "faultsuite-orders"
GROUP = "faultsuite-orders-reader"
PARTITIONS = 3
RATE = 50.0
"""Records a second the producer writes, spread over the partitions."""
MEMBERS = 2
COMMIT_INTERVAL_MS = 1000
OBJECTIVE_S = FAULT_SUITE_OBJECTIVE.lag_objective_s
CAUGHT_UP_RECORDS = 2 * RATE
"""Lag (records, all partitions) under which the group counts as caught up: two seconds of
writes (auto-commit every second, a poll in flight)."""
HANDLE = "consumer-load"
POLL_RETRY_S = 0.5
"""The pause before a consumer polls again after an error."""


@dataclass
class ConsumerLoad:
    """The producer and the consumers of ``topic`` (``group``) on threads, each stopped by
    its event."""

    servers: list[str]
    topic: str = TOPIC
    group: str = GROUP
    on_written: Callable[[Any], object] | None = None
    """Called with each write's RecordMetadata (partition, offset, timestamp) once the
    broker acknowledged it (on the producer's I/O thread)."""
    produced: int = 0
    errors: list[str] = field(default_factory=list)
    _producer_stop: threading.Event = field(default_factory=threading.Event)
    _consumers_stop: threading.Event = field(default_factory=threading.Event)
    _producer: threading.Thread | None = None
    _consumers: list[threading.Thread] = field(default_factory=list)

    # ------------------------------------------------------------------ producer

    def start_producer(self) -> None:
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=self.servers, acks=1, linger_ms=5)
        self._producer_stop.clear()

        def write() -> None:
            period = 1.0 / RATE
            next_at = time.monotonic()
            try:
                while not self._producer_stop.is_set():
                    key = str(self.produced % (PARTITIONS * 10)).encode()
                    sent = producer.send(self.topic, key=key, value=b"order %d" % self.produced)
                    if self.on_written is not None:
                        sent.add_callback(self.on_written)
                    self.produced += 1
                    next_at += period
                    self._producer_stop.wait(max(0.0, next_at - time.monotonic()))
                producer.flush(timeout=10)
            except Exception as exc:  # recorded, the run's notes show it
                self.errors.append(f"producer: {type(exc).__name__}: {exc}")
            finally:
                producer.close(timeout=5)

        self._producer = threading.Thread(target=write, name="faultsuite-producer", daemon=True)
        self._producer.start()

    def stop_producer(self) -> None:
        self._producer_stop.set()
        if self._producer is not None:
            self._producer.join(timeout=30)
            self._producer = None

    # ------------------------------------------------------------------ consumers

    def start_consumers(self) -> None:
        """``MEMBERS`` consumers of ``group``, each polling on its own thread; auto-commit every
        second, and a commit at close."""
        from kafka import KafkaConsumer

        self._consumers_stop.clear()
        for member in range(MEMBERS):
            consumer = KafkaConsumer(
                self.topic,
                bootstrap_servers=self.servers,
                group_id=self.group,
                client_id=f"{self.group}-{member}",
                enable_auto_commit=True,
                auto_commit_interval_ms=COMMIT_INTERVAL_MS,
                auto_offset_reset="earliest",
                session_timeout_ms=10_000,
                heartbeat_interval_ms=3_000,
            )

            def read(consumer: Any = consumer, member: int = member) -> None:
                try:
                    while not self._consumers_stop.is_set():
                        self.poll_once(consumer, member)
                finally:
                    consumer.close()  # commits what was read, leaves the group

            thread = threading.Thread(target=read, name=f"faultsuite-consumer-{member}",
                                      daemon=True)  # fmt: skip
            thread.start()
            self._consumers.append(thread)

    def poll_once(self, consumer: Any, member: int, **options: Any) -> dict[Any, Any]:
        """One poll; an error (a coordinator moving, a broker gone) is recorded and the member
        polls again after a short pause, as an application's consumer loop does: a member that
        gave up at the first one would leave the group short of a member for every run after."""
        try:
            batch: dict[Any, Any] = consumer.poll(timeout_ms=200, **options)
            return batch
        except Exception as exc:  # recorded, the run's notes show it
            self.errors.append(f"consumer {member}: {type(exc).__name__}: {exc}")
            self._consumers_stop.wait(POLL_RETRY_S)
            return {}

    def stop_consumers(self) -> None:
        """Close every consumer (each leaves the group); returns once all have closed."""
        self._consumers_stop.set()
        for thread in self._consumers:
            thread.join(timeout=30)
        self._consumers = []

    def stop(self) -> None:
        self.stop_producer()
        self.stop_consumers()


# ------------------------------------------------------------------ the group seen from outside


def group_lag(
    servers: list[str], group: str = GROUP, topic: str = TOPIC
) -> tuple[str, int, int | None]:
    """``group``'s state, members and lag in records over ``topic`` (None: some partition has
    no committed offset yet)."""
    from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition

    admin = KafkaAdminClient(bootstrap_servers=servers)
    reader = KafkaConsumer(bootstrap_servers=servers)
    try:
        info = admin.describe_groups([group])[group]
        committed = admin.list_group_offsets({group: None}).get(group, {})
        parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        ends = reader.end_offsets(parts)
        lag: int | None = 0
        for tp in parts:
            meta = committed.get(tp)
            if meta is None or meta.offset < 0:
                lag = None
                break
            lag = (lag or 0) + max(0, ends[tp] - meta.offset)
        return str(info.get("group_state")), len(info.get("members") or []), lag
    finally:
        reader.close()
        admin.close()


def _wait(what: str, condition: Any, timeout_s: float, poll_s: float = 1.0) -> Any:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = condition()
        except Exception as exc:  # a coordinator still loading, a group not there yet
            last = f"{type(exc).__name__}: {exc}"
        if last is True or (isinstance(last, tuple) and last[0] is True):
            return last
        time.sleep(poll_s)
    raise TimeoutError(f"{what} within {timeout_s:.0f} s (last: {last})")


def wait_caught_up(
    ctx: FaultContext, timeout_s: float = 120.0, group: str = GROUP, topic: str = TOPIC
) -> tuple[str, int, int | None]:
    """Until ``group`` is Stable with ``MEMBERS`` members and at most ``CAUGHT_UP_RECORDS``
    unread."""
    servers = ctx.cluster.bootstrap_servers

    def check() -> Any:
        state, members, lag = group_lag(servers, group, topic)
        stable = state == "Stable" and members == MEMBERS
        return (stable and lag is not None and lag <= CAUGHT_UP_RECORDS, state, members, lag)

    result = _wait(f"group {group} Stable and caught up", check, timeout_s)
    return result[1], result[2], result[3]


def monitor_sees_group(
    metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float], group: str = GROUP
) -> bool:
    """The job's /metrics has the group's time lag, under its objective."""
    return any(
        name == "kafka_health_consumergroup_max_lag_seconds"
        and dict(lbl).get("group") == group
        and value < OBJECTIVE_S
        for (name, lbl), value in metrics.items()
    )


# ------------------------------------------------------------------ the scenario's steps


def _load(ctx: FaultContext) -> ConsumerLoad:
    load = ctx.handles.get(HANDLE)
    if not isinstance(load, ConsumerLoad):
        raise RuntimeError("consumer-stop: no producer and consumers (prepare did not run)")
    return load


def orders_start(ctx: FaultContext) -> None:
    """Create ``TOPIC`` (kept from an earlier run), start the producer and the group, wait
    until the group is Stable and caught up and the monitor reports its time lag."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic
    from kafka.errors import TopicAlreadyExistsError

    servers = ctx.cluster.bootstrap_servers
    admin = KafkaAdminClient(bootstrap_servers=servers)
    try:
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, min(3, len(ctx.cluster.nodes)))])
    except TopicAlreadyExistsError:
        pass
    finally:
        admin.close()
    load = ConsumerLoad(servers)
    ctx.handles[HANDLE] = load
    load.start_producer()
    load.start_consumers()
    state, members, lag = wait_caught_up(ctx)
    ctx.say(f"  group {GROUP}: {state}, {members} members, {lag} records unread; "
            f"producer at {RATE:g} records/s")  # fmt: skip
    if ctx.metrics_port:
        _wait(
            f"the monitor reporting {GROUP}'s time lag",
            lambda: monitor_sees_group(scrape(ctx.metrics_port)),
            600.0,  # the first run's prepare comes before the monitor's first batches
        )


def consumers_stop(ctx: FaultContext) -> None:
    """Close every consumer of the group; the producer keeps writing."""
    _load(ctx).stop_consumers()
    ctx.notes["consumers_stopped_at"] = time.time()
    ctx.notes["objective_s"] = OBJECTIVE_S


def consumers_resume(ctx: FaultContext) -> None:
    """Start the consumers again; they read from the committed offsets and catch up."""
    load = _load(ctx)
    load.start_consumers()
    state, members, lag = wait_caught_up(ctx)
    ctx.notes["caught_up_after_undo_at"] = time.time()
    ctx.notes["group_after_undo"] = f"{state}, {members} members, {lag} records unread"


def orders_stop(ctx: FaultContext) -> None:
    """The producer first; the consumers read to the log end and commit, then close: the group
    is left Empty with nothing unread."""
    load = ctx.handles.pop(HANDLE, None)
    if not isinstance(load, ConsumerLoad):
        return
    load.stop_producer()
    if not load._consumers:
        load.start_consumers()
    try:
        wait_caught_up(ctx, timeout_s=60.0)
    finally:
        load.stop_consumers()
        ctx.notes["produced"] = load.produced
        if load.errors:
            ctx.notes["load_errors"] = load.errors[:10]


def check_consumer_page(ctx: FaultContext) -> None:
    """What the page said, into ``ctx.notes``: the group named, its lag in seconds in the
    summary, the objective's severity and team label; its latency from the stop and past the
    moment the lag crossed the objective."""
    stopped = ctx.notes.get("consumers_stopped_at")
    for page in ctx.receiver.pages_since(ctx.injected_at):
        for alert in page.firing():
            labels = alert.get("labels", {})
            if labels.get("alertname") != "ConsumerGroupLagging" or labels.get("group") != GROUP:
                continue
            summary = str(alert.get("annotations", {}).get("summary", ""))
            ctx.notes.update(
                page_group=labels.get("group"),
                page_severity=labels.get("severity"),
                page_team=labels.get("team"),
                page_summary=summary,
                page_names_lag_s="s behind" in summary,
            )
            if stopped is not None:
                ctx.notes["page_after_stop_s"] = round(page.at - stopped, 1)
                ctx.notes["page_after_objective_s"] = round(page.at - stopped - OBJECTIVE_S, 1)
            return
