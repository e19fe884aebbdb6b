"""``bench throughput --groups``: the simulated groups on the wall clock, the job's own poller
reading them through its admin seam, and what the bench counts of the rounds."""

from __future__ import annotations

import dataclasses
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_health.cli import build_parser
from kafka_health.commands.bench_load import throughput_plan
from kafka_health.config import MonitorConfig
from kafka_health.dev.fake_group_admin import FakeManager
from kafka_health.dev.loadgen.groups import (
    RATE,
    VERSIONS,
    Answers,
    GroupsLoad,
    GroupsWorld,
    RemoteGroupAdmin,
    RoundsSeen,
    spread,
)
from kafka_health.job.app import MonitorJob
from kafka_health.model import Signal, labels


def test_the_throughput_plan_carries_the_groups() -> None:
    args = build_parser().parse_args(["bench", "throughput", "--groups", "1000"])
    plan = throughput_plan(args)
    assert not isinstance(plan, str)
    assert (plan.groups, plan.partitions_per_group) == (1000, 10)
    plain = throughput_plan(build_parser().parse_args(["bench", "throughput"]))
    assert not isinstance(plain, str) and plain.groups == 0
    for bad in (["--groups", "-1"], ["--groups", "5", "--partitions-per-group", "0"]):
        assert isinstance(throughput_plan(build_parser().parse_args(["bench", "throughput", *bad])),
                          str)  # fmt: skip


def test_the_live_world_moves_with_the_clock_and_stops_some_groups() -> None:
    world = GroupsWorld(40, 2, start=1000.0)
    world.advance(1000.0)
    world.advance(1030.0)  # round 2: 30 s later
    key = world.partitions(0)[0]
    end = world.end_offset(key)
    assert end == (30 + 3600) * RATE + key[1]
    moved = [i for i in range(40) if world.groups[world.names[i]].committed[world.partitions(i)[0]]
             == world.end_offset(world.partitions(i)[0]) - RATE]  # fmt: skip
    assert len(moved) == 36  # 4 of every 40 stopped: their commits stayed at round 1's


def test_an_answer_asked_again_carries_the_offsets_of_now() -> None:
    """The answering process builds an answer once, then writes each round's offsets into its
    bytes: the same bytes as an answer built anew from the world."""
    from kafka.protocol.consumer import ListOffsetsRequest, OffsetFetchRequest

    world = GroupsWorld(40, 3, start=1000.0)
    world.advance(1000.0)
    answers = Answers(world)
    G = OffsetFetchRequest.OffsetFetchRequestGroup
    fetch = OffsetFetchRequest(groups=[G(group_id=g, topics=None) for g in world.names[:7]])
    T = ListOffsetsRequest.ListOffsetsTopic
    P = T.ListOffsetsPartition
    latest = ListOffsetsRequest(isolation_level=0, topics=[
        T(name="topic-0000", partitions=[P(partition_index=p, timestamp=-1) for p in range(9)])
    ])  # fmt: skip
    asked = [(fetch, 1), (latest, 2)]
    first = [answers.answer(type(r).__name__, VERSIONS[type(r).__name__], node,
                            bytes(r.encode(version=VERSIONS[type(r).__name__])))
             for r, node in asked]  # fmt: skip
    world.advance(1012.5)  # 4 of every 40 groups stopped: their offsets stay
    for (request, node), before in zip(asked, first, strict=True):
        name = type(request).__name__
        data = bytes(request.encode(version=VERSIONS[name]))
        again = answers.answer(name, VERSIONS[name], node, data)
        decoded = type(request).decode(data, version=VERSIONS[name])
        fresh = bytes(getattr(FakeManager(world), name)(decoded, node).encode())
        assert again == fresh
        assert again != before  # the offsets moved


def a_round_signal(at: float, duration_s: float, failing: float = 0.0) -> Signal:
    return Signal("consumer_groups_round_failing", (), failing, at, {"duration_s": duration_s})


def test_rounds_reach_the_board_when_a_publish_showed_them() -> None:
    seen = RoundsSeen()
    status = [Signal("consumergroup_status", labels(group=f"g{i}", verdict=v), 1.0, 100.0)
              for i, v in enumerate(("ok", "ok", "lagging"))]  # fmt: skip
    seen.publish([a_round_signal(100.000, 0.4), *status])
    seen.publish([a_round_signal(105.002, 0.5), a_round_signal(110.0, 0.1, failing=1.0)])
    assert seen.reached(100.0004) == 0.4  # taken (to the ms, truncated) before the request
    assert seen.reached(105.01) == 0.5
    assert seen.reached(110.001) is None  # that round failed
    assert seen.reached(99.0) is None
    assert seen.verdicts == {"ok": 2, "lagging": 1}  # the last publish with groups


def test_the_figures_count_the_rounds_under_the_load() -> None:
    load = GroupsLoad(3, 1)
    try:
        load.admin.starts[:] = [(10.0, 1000.0), (15.0, 1005.0), (20.1, 1010.1), (25.0, 1015.0),
                                (40.0, 1030.0)]  # fmt: skip
        for at, took in ((999.999, 0.3), (1004.999, 0.2), (1010.1, 0.6)):  # 1015: unpublished
            load.seen.publish([a_round_signal(at, took)])
        figures = load.figures(since=12.0, until=30.0)
    finally:
        load.close()
    assert (figures["rounds"], figures["rounds_reached_board"]) == (3, 2)
    assert figures["round_interval_s"] == {"p50": 4.9, "p95": 5.1, "max": 5.1}
    assert figures["round_duration_s"]["max"] == 0.6
    assert (figures["groups"], figures["partitions"]) == (3, 3)


def test_spread_ranks_as_the_batch_p95_always_has() -> None:
    values = [float(n) for n in range(1, 21)]
    assert spread(values) == {"p50": 11.0, "p95": 19.0, "max": 20.0}
    assert spread([]) == {"p50": 0.0, "p95": 0.0, "max": 0.0}


def test_the_jobs_own_poller_reads_the_simulated_groups_into_its_board() -> None:
    """The job's poller, source, lag table, board and publisher, only the admin client the
    fake (``MonitorJob(groups_admin=...)``), answering from a process of its own: every round
    on the poller's thread reaches a publish, at its interval, every group in it."""
    load = GroupsLoad(60, 2, interval_s=1.0)
    config = dataclasses.replace(
        MonitorConfig().with_bootstrap(["localhost:9"]), consumer_groups=load.config
    )
    spark: Any = SimpleNamespace(sparkContext=SimpleNamespace(defaultParallelism=2))
    job = MonitorJob(spark, config, [load.seen], groups_admin=load.make_admin)
    (poller,) = job._groups_poller()
    assert isinstance(poller.source._admin(), RemoteGroupAdmin)  # type: ignore[attr-defined]
    stop = threading.Event()
    publishing = job.publisher.start(stop, 0.5)
    since = time.monotonic()
    poller.start()
    try:
        time.sleep(2.5)  # rounds at 0, 1 and 2 s
    finally:
        until = time.monotonic()
        load.wait_published(until, 5.0)
        poller.stop()
        stop.set()
        job.publisher.finish(publishing)
    try:
        figures = load.figures(since, until)
    finally:
        load.close()
    assert figures["rounds"] == 3
    assert figures["rounds_reached_board"] == 3
    assert figures["round_interval_s"]["max"] == pytest.approx(1.0, abs=0.3)
    assert sum(figures["verdicts_last_publish"].values()) == 60  # every group, a status each
