"""Consumer-group traffic, simulated: ``groups`` groups each reading ``per_group`` partitions
of its own, answered by the fake admin client (:mod:`kafka_health.dev.fake_group_admin`:
kafka-python's own response objects, encoded and decoded as on the wire) for 3 brokers.

Every partition is written at :data:`RATE` records/s; an active group commits 1 s behind the
log end at each round; a rotating 10 % of the groups stop committing for 4 rounds out of 40
(their objective is 12 s: ``lagging`` from their 3rd round), so each round ~5 % of the groups
change verdict; 5 % of the groups have no members. Shared by
``benchmarks/consumer_groups_scale.py`` (simulated time, a round every 5 s: the round's steps
timed one by one) and ``kafka-health bench throughput --groups`` (:class:`RemoteGroupAdmin`:
the wall clock, the answers built in a process of their own, the job's own poller on its own
schedule).

The consumer traffic reaches only a job whose admin client is the fake
(``MonitorJob(groups_admin=...)``, in the benchmark's own process). ``bench load --groups``
(:mod:`.group_traffic`) writes real groups to the monitored cluster instead, as many as a
local broker holds the partitions of (10,000 at most), not 100,000.

What the driver does with a real cluster, it does here: it encodes each request and decodes each
answer with kafka-python, the metadata of the topics read too. What the brokers do (keep the
offsets, build and encode the answers) is done by another process, cheaply (:class:`Answers`: about
0.25 s of CPU a round at 10,000 groups over 100,000 partitions, after a first round of 4.6 s), so
that on a machine of two cores it takes little from the job being measured.
"""

from __future__ import annotations

import bisect
import itertools
import multiprocessing
import struct
import threading
import time
from collections import Counter
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from kafka.future import Future
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.dev.fake_group_admin import FakeCluster, FakeGroup, FakeManager, cpu
from kafka_health.model import Signal

T0 = 1_700_000_000.0
INTERVAL_S = 5.0
RATE = 10
"""Records a second on every partition."""
BROKERS = (1, 2, 3)
PARTITIONS_PER_TOPIC = 100
STOP_PERIOD, STOP_ROUNDS = 40, 4
"""A group stops committing 4 rounds out of every 40 (which 4: by its index)."""
TEAMS = ("payments", "search", "ads", "billing", "risk")


def scale_config(interval_s: float = INTERVAL_S) -> ConsumerGroupsConfig:
    """The job's defaults, with owners per team and a 12 s objective (so verdicts move)."""
    objectives = [
        GroupObjective(f"app-{team}-.*", 12.0, "critical" if i < 2 else "warning",
                       {"team": team})
        for i, team in enumerate(TEAMS[:4])
    ]  # fmt: skip
    return ConsumerGroupsConfig(
        interval_s=interval_s,
        objectives=objectives,
        default_objective=GroupObjective(lag_objective_s=12.0),
    )


def _partition(n: int) -> tuple[str, int]:
    return f"topic-{n // PARTITIONS_PER_TOPIC:04d}", n % PARTITIONS_PER_TOPIC


class GroupsWorld(FakeCluster):
    """``groups`` groups, each reading ``per_group`` partitions of its own, at the time ``t``
    (the log end offsets follow it; ``start`` is its first value)."""

    def __init__(self, groups: int, per_group: int, start: float = T0) -> None:
        super().__init__(brokers=BROKERS)
        self.per_group = per_group
        self.start = start
        self.t = start
        self.round = 0
        self.names = [f"app-{TEAMS[i % len(TEAMS)]}-{i:05d}" for i in range(groups)]
        for i, g in enumerate(self.names):
            empty = i % 20 == 7  # 5 % without members
            members = [] if empty else [self._assignment(i)]
            state = "Empty" if empty else "Stable"
            self.groups[g] = FakeGroup(BROKERS[i % len(BROKERS)], state, assignments=members)
        for node in BROKERS:  # not watched: the default excludes
            for n in range(20):
                self.groups[f"spark-kafka-source-{node}-{n}"] = FakeGroup(node, "Empty")
        for n in range(groups * per_group):
            topic, partition = _partition(n)
            self.leaders.setdefault(topic, {})[partition] = BROKERS[n % len(BROKERS)]

    def partitions(self, i: int) -> list[tuple[str, int]]:
        first = i * self.per_group
        return [_partition(n) for n in range(first, first + self.per_group)]

    def _assignment(self, i: int) -> bytes:
        by_topic: dict[str, list[int]] = {}
        for t, p in self.partitions(i):
            by_topic.setdefault(t, []).append(p)
        A = ConsumerProtocolAssignment
        return bytes(
            A(
                version=3,
                assigned_partitions=[A.TopicPartition(topic=t, partitions=ps)
                                     for t, ps in by_topic.items()],
                user_data=None,
            ).encode()
        )  # fmt: skip

    def end_offset(self, key: tuple[str, int]) -> int:
        return int((self.t - self.start + 3600) * RATE) + key[1]

    def stopped(self, i: int) -> bool:
        return (self.round + i) % STOP_PERIOD < STOP_ROUNDS

    def advance(self, to: float | None = None) -> None:
        """The next round, at ``to`` (default: :data:`INTERVAL_S` after the last): every
        active group committed 1 s behind the log end."""
        self.round += 1
        self.t = self.t + INTERVAL_S if to is None else to
        for i, g in enumerate(self.names):
            if self.stopped(i) and self.round > 1:
                continue
            committed = self.groups[g].committed
            for key in self.partitions(i):
                committed[key] = self.end_offset(key) - RATE


VERSIONS = {
    "MetadataRequest": 8, "ListGroupsRequest": 5, "DescribeGroupsRequest": 5,
    "ConsumerGroupDescribeRequest": 1, "OffsetFetchRequest": 8, "ListOffsetsRequest": 4,
}  # fmt: skip
"""The version each request and its answer travel at (the fake's answers are built at these)."""


def _classes() -> dict[str, tuple[Any, Any]]:
    """Each request's class and its answer's, by the request's name."""
    from kafka.protocol.admin import (
        DescribeGroupsRequest,
        DescribeGroupsResponse,
        ListGroupsRequest,
        ListGroupsResponse,
    )
    from kafka.protocol.consumer import (
        ListOffsetsRequest,
        ListOffsetsResponse,
        OffsetFetchRequest,
        OffsetFetchResponse,
    )
    from kafka.protocol.metadata import MetadataRequest, MetadataResponse

    from kafka_health.consumer_groups.kip848 import (
        ConsumerGroupDescribeRequest,
        ConsumerGroupDescribeResponse,
    )

    pairs = [
        (MetadataRequest, MetadataResponse), (ListGroupsRequest, ListGroupsResponse),
        (DescribeGroupsRequest, DescribeGroupsResponse), (OffsetFetchRequest, OffsetFetchResponse),
        (ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse),
        (ListOffsetsRequest, ListOffsetsResponse),
    ]  # fmt: skip
    return {request.__name__: (request, response) for request, response in pairs}


MARK = 0x5EED_F00D_0000_0000
"""An offset's marker in an answer's first encoding: this, plus its place in the answer's
list of offsets (the high four bytes found in the bytes, the low four say which)."""
Mark = tuple[str, str, tuple[str, int]]
"""What a marker stands for: ``("committed", group, key)``, ``("start", "", key)`` or
``("end", "", key)``."""


class _Marked(FakeCluster):
    """The world's answers with a marker in place of every offset (``marks``: what each
    stands for), to find where the offsets lie in the encoded answer."""

    def __init__(self, world: GroupsWorld, groups: Sequence[str] = ()) -> None:
        super().__init__(leaders=world.leaders, brokers=world.brokers)
        self.marks: list[Mark] = []
        for g in groups:
            f = world.groups[g]
            committed = {key: self._mark(("committed", g, key)) for key in f.committed}
            self.groups[g] = FakeGroup(f.coordinator, committed=committed)

    def _mark(self, what: Mark) -> int:
        self.marks.append(what)
        return MARK + len(self.marks) - 1

    def start_offset(self, key: tuple[str, int]) -> int:
        return self._mark(("start", "", key))

    def end_offset(self, key: tuple[str, int]) -> int:
        return self._mark(("end", "", key))


class Answers:
    """The world's answers, encoded, built as the brokers would build them but cheaply enough
    to share two cores with the job: an answer is built with kafka-python's response objects
    once per distinct request (a round asks the same requests again while the groups and their
    partitions stay the same), with markers for its offsets; then each round only its offsets
    are written into its bytes (the world's groups never change their members or state, so
    nothing else in an answer does)."""

    OFFSETS = ("OffsetFetchRequest", "ListOffsetsRequest")

    def __init__(self, world: GroupsWorld) -> None:
        self.world = world
        self.classes = _classes()
        self._made: dict[tuple[str, int | None, bytes], tuple[bytes, list[tuple[int, Mark]]]] = {}

    def answer(self, name: str, version: int, node: int | None, data: bytes) -> bytes:
        key = (name, node, data)
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = self._build(name, version, node, data)
        template, places = made
        if not places:
            return template
        out = bytearray(template)
        world, pack = self.world, struct.pack_into
        for at, (kind, group, tp) in places:
            if kind == "committed":
                value = world.groups[group].committed[tp]
            else:
                value = world.start_offset(tp) if kind == "start" else world.end_offset(tp)
            pack(">q", out, at, value)
        return bytes(out)

    def _build(
        self, name: str, version: int, node: int | None, data: bytes
    ) -> tuple[bytes, list[tuple[int, Mark]]]:
        request = self.classes[name][0].decode(data, version=version)
        if name not in self.OFFSETS:
            return bytes(getattr(FakeManager(self.world), name)(request, node).encode()), []
        groups = [g.group_id for g in request.groups] if name == "OffsetFetchRequest" else []
        marked = _Marked(self.world, groups)
        encoded = bytes(getattr(FakeManager(marked), name)(request, node).encode())
        prefix = struct.pack(">I", MARK >> 32)
        places: list[tuple[int, Mark]] = []
        at = encoded.find(prefix)
        while at >= 0:
            index = struct.unpack_from(">I", encoded, at + 4)[0]
            places.append((at, marked.marks[index]))
            at = encoded.find(prefix, at + 8)
        if len(places) != len(marked.marks):
            raise AssertionError(f"{name}: {len(places)} markers found of {len(marked.marks)}")
        return encoded, places


def serve_answers(conn: Connection, groups: int, per_group: int, start: float) -> None:
    """The answering process: a :class:`GroupsWorld` and its :class:`Answers` to each request
    that arrives (``b"+"`` then the bytes, or ``b"!"`` then what failed). Messages:
    ``("advance", t)``, ``("cpu",)`` (this process's CPU seconds so far), ``("stop",)``, or
    ``(request name, version, broker, request bytes)``."""
    world = GroupsWorld(groups, per_group, start)
    answers = Answers(world)
    conn.send_bytes(b"+")  # ready
    while True:
        message = conn.recv()
        if message[0] == "stop":
            return
        if message[0] == "advance":
            world.advance(message[1])
            conn.send_bytes(b"+")
            continue
        if message[0] == "cpu":
            conn.send_bytes(b"+" + repr(time.process_time()).encode())
            continue
        try:
            conn.send_bytes(b"+" + answers.answer(*message))
        except Exception as exc:  # the round that asked fails, and says why
            conn.send_bytes(b"!" + f"{type(exc).__name__}: {exc}".encode())


class RemoteManager:
    """The admin client's manager, its answers from the answering process: each request
    encoded, sent and its answer decoded here (kafka-python's own encoding and decoding, the
    work a real admin client does in the driver), a send done once answered."""

    run = FakeManager.run

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.starts: list[tuple[float, float]] = []
        self.decode_s = 0.0
        self.broker_version_data = self
        self._lock = threading.Lock()
        self._classes = _classes()

    def api_version(self, request: Any) -> int:
        return VERSIONS[request.name]

    def call(self, message: tuple[Any, ...]) -> bytes:
        with self._lock:
            self.conn.send(message)
            answer = self.conn.recv_bytes()
        if answer[:1] != b"+":
            raise RuntimeError(f"the simulated cluster failed: {answer[1:].decode()}")
        return answer[1:]

    def send(self, request: Any, node_id: int | None = None) -> Future:
        name = request.name
        version = VERSIONS[name]
        data = bytes(request.encode(version=version))
        if name == "MetadataRequest" and not request.topics:  # a round's first request
            now = time.time()
            self.starts.append((time.monotonic(), now))
            self.call(("advance", now))
        try:
            answer = self.call((name, version, node_id, data))
        except Exception as exc:
            return Future().failure(exc)
        started = cpu()
        decoded = self._classes[name][1].decode(answer, version=version)
        self.decode_s += cpu() - started
        return Future().success(decoded)


class RemoteGroupAdmin:
    """What :class:`~kafka_health.consumer_groups.source.AdminGroupsSource` uses of
    ``KafkaAdminClient``, for a poller on its own schedule (the job's), answered by a
    :class:`GroupsWorld` in a process of its own (spawned; :func:`serve_answers`) on the wall
    clock: as a cluster's brokers would, it builds the answers off the driver's interpreter,
    which encodes the requests and decodes the answers, the metadata's too, as kafka-python's
    admin client does (on the source's requests: :class:`RemoteManager`). A round begins with
    the source's metadata request for no topic (it asks for the brokers first): the world moves
    to now and the round's start is recorded (``starts``: monotonic and wall seconds).
    ``decode_s``: the driver's CPU decoding the answers; :meth:`answering_cpu_s`: the answering
    process's CPU so far. :meth:`shutdown` ends the process (``close`` is the source's, which
    makes a new client after a failed round: it gets this one again)."""

    def __init__(self, groups: int, per_group: int, start: float) -> None:
        context = multiprocessing.get_context("spawn")  # the driver runs threads and a JVM
        self._conn, theirs = context.Pipe()
        self._process = context.Process(
            target=serve_answers, args=(theirs, groups, per_group, start),
            name="kafka-health-simulated-groups", daemon=True,
        )  # fmt: skip
        self._process.start()
        theirs.close()
        if not self._conn.poll(600) or self._conn.recv_bytes() != b"+":
            raise RuntimeError("the simulated groups' process did not start")
        self._manager = RemoteManager(self._conn)
        self.closed = 0

    @property
    def starts(self) -> list[tuple[float, float]]:
        return self._manager.starts

    @property
    def decode_s(self) -> float:
        return self._manager.decode_s

    def answering_cpu_s(self) -> float:
        return float(self._manager.call(("cpu",)).decode())

    def close(self, timeout_s: float | None = None) -> None:
        self.closed += 1

    def shutdown(self) -> None:
        try:
            with self._manager._lock:
                self._conn.send(("stop",))
        except OSError:
            pass
        self._process.join(10)
        if self._process.is_alive():
            self._process.kill()
        self._conn.close()


def spread(values: Sequence[float]) -> dict[str, float]:
    """p50, p95 and max of ``values`` (0 when empty), rounded to ms; the rank as ``bench
    throughput``'s batch p95 has always taken it (``round(q * (n - 1))``)."""
    ordered = sorted(values) or [0.0]

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {"p50": round(rank(0.5), 3), "p95": round(rank(0.95), 3), "max": round(ordered[-1], 3)}


class RoundsSeen:
    """A sink of the job's signals (``MonitorJob(sinks=...)``): the consumer-group rounds its
    publishes showed, so on the board (``rounds``: each successful round's time, from
    ``consumer_groups_round_failing``, and its duration as the poller measured it), and the
    groups' verdicts in the last publish that had any."""

    def __init__(self) -> None:
        self.rounds: dict[float, float] = {}
        self.verdicts: dict[str, int] = {}

    def publish(self, signals: list[Signal], snapshot: bool = True) -> None:
        verdicts: Counter[str] = Counter()
        for s in signals:
            if s.name == "consumergroup_status":
                verdicts[s.label("verdict") or "?"] += 1
            elif s.name == "consumer_groups_round_failing" and not s.value:
                self.rounds.setdefault(s.at, float(s.details.get("duration_s") or 0.0))
        if verdicts:
            self.verdicts = dict(verdicts)

    def reached(self, wall: float) -> float | None:
        """The duration of the round that began at ``wall`` (as the fake admin recorded its
        first request) if a publish showed it, else None. The poller takes a round's time
        just before the request (to the ms, truncated): at most :data:`TAKEN_BEFORE_S`
        earlier."""
        times = sorted(self.rounds)
        i = bisect.bisect_right(times, wall) - 1
        if i < 0 or wall - times[i] > TAKEN_BEFORE_S:
            return None
        return self.rounds[times[i]]


TAKEN_BEFORE_S = 1.0
"""How long before the fake admin sees a round's first request the poller may have taken its
time (a new admin client made in between; rounds are :data:`INTERVAL_S` apart)."""


class GroupsLoad:
    """``bench throughput --groups``: the simulated groups (started on the wall clock now, in
    a process of their own: :class:`RemoteGroupAdmin`), the job's settings for them
    (``config``: :func:`scale_config`, rounds every ``interval_s``), their admin client for
    the job (``MonitorJob(groups_admin=load.make_admin)``, so the job runs its own poller,
    source and board on them) and the sink that sees what reached the board
    (``MonitorJob(sinks=[load.seen])``). :meth:`close` ends the answering process."""

    def __init__(self, groups: int, per_group: int, interval_s: float = INTERVAL_S) -> None:
        self.config = scale_config(interval_s)
        self.groups, self.per_group = groups, per_group
        self.admin = RemoteGroupAdmin(groups, per_group, start=time.time())
        self.seen = RoundsSeen()

    def make_admin(self) -> RemoteGroupAdmin:
        return self.admin

    def close(self) -> None:
        self.admin.shutdown()

    def wait_published(self, until: float, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) until the last round begun by the monotonic ``until``
        was published, or is known not to have been (a later one was)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            began = [wall for mono, wall in list(self.admin.starts) if mono <= until]
            if not began or self.seen.reached(began[-1]) is not None:
                return
            if any(t > began[-1] for t in list(self.seen.rounds)):
                return
            time.sleep(0.2)

    def figures(self, since: float, until: float) -> dict[str, Any]:
        """The rounds begun between the monotonic ``since`` and ``until``: the time between
        their starts, their durations (the poller's own measure: the requests, the wait for
        the answers, their decoding and the source's and lag table's work), how many reached
        the board; the driver's CPU decoding the answers and the answering process's CPU (what
        the brokers would do: commits, answers built and encoded), a round."""
        starts = list(self.admin.starts)
        window = [(mono, wall) for mono, wall in starts if since <= mono <= until]
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(window)]
        durations = [d for d in (self.seen.reached(wall) for _, wall in window) if d is not None]
        rounds = max(1, len(starts))
        return {
            "groups": self.groups,
            "partitions": self.groups * self.per_group,
            "interval_s": self.config.interval_s,
            "rounds": len(window),
            "rounds_reached_board": len(durations),
            "round_interval_s": spread(gaps),
            "round_duration_s": spread(durations),
            "decode_cpu_s_per_round": round(self.admin.decode_s / rounds, 3),
            "answering_process_cpu_s_per_round": round(self.admin.answering_cpu_s() / rounds, 3),
            "verdicts_last_publish": dict(sorted(self.seen.verdicts.items())),
        }
