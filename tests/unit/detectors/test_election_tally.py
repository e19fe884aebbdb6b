"""Distinct elections kept as reports enter and leave the window
(:mod:`kafka_health.detectors.election_tally`): always what :func:`distinct_elections` counts
over the reports still in the window, and the same after a save and a restore."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tests.support.detector_support import batch, by_name, event

from kafka_health.config import JobConfig
from kafka_health.detectors.election_tally import ElectionTally, Report, distinct_elections
from kafka_health.detectors.elections import Elections
from kafka_health.detectors.windows import current_window_end_ms
from kafka_health.model import labels

T0 = 1_700_000_000_000  # a slide boundary (ms)


def expected(reports: list[Report]) -> tuple[int, Counter[int]]:
    elections = distinct_elections(reports)
    return len(elections), Counter(ld for ld in elections.values() if ld is not None)


def timeline(seed: int) -> list[tuple[int, Report]]:
    """Reports of elections on a few partitions, some twice or three times, some without an
    epoch (a ZooKeeper controller's), some elections never naming their leader; out of order
    by up to 3 s. An election's reports agree on its leader: the tally keeps the name for as
    long as the election counts, where the list of reports forgets it with the report."""
    rng = random.Random(seed)
    out: list[tuple[int, Report]] = []
    for i in range(400):
        topic, partition = rng.choice("ab"), rng.randrange(4)
        epoch = rng.randrange(30) if rng.random() < 0.85 else None
        if epoch is None:
            leader = rng.choice((1, 2, 3, None))
        else:
            leader = None if (epoch + partition) % 4 == 0 else (epoch + partition) % 3 + 1
        at_ms = T0 + i * 500 - rng.randrange(3000)
        for _ in range(rng.choice((1, 1, 2, 3))):
            out.append((at_ms + rng.randrange(200), (topic, partition, epoch, leader)))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_counts_what_the_reports_in_the_window_count(seed: int) -> None:
    tally, window_ms, seen_so_far = ElectionTally(), 20_000, []
    rng = random.Random(seed)
    reports = timeline(seed)
    for step in range(0, len(reports), 25):
        chunk = reports[step : step + 25]
        for at_ms, (t, p, e, ld) in chunk:
            tally.report(t, p, e, ld, at_ms)
        seen_so_far += chunk
        start = max(ms for ms, _ in seen_so_far) - window_ms
        tally.expire(start)
        also: list[Report] = [r for _, r in rng.sample(seen_so_far, 3)]
        also.append(("a", 9, 7, None))  # seen only by the prober
        in_window = [r for ms, r in seen_so_far if ms >= start]
        assert tally.count(also) == expected(also + in_window), f"after report {step + 25}"
        again = ElectionTally()
        again.restore(tally.state())
        assert again.count(also) == tally.count(also), "restored from the saved state"
    assert len(tally) < len(reports) / 4, "old elections were forgotten"


def test_a_report_without_an_epoch_is_the_election_of_its_partition_and_leader() -> None:
    tally = ElectionTally()
    tally.report("t", 0, 5, 2, T0)
    tally.report("t", 0, None, 2, T0 + 10)  # the controller's "New leader is 2": the same one
    tally.report("t", 0, None, 3, T0 + 20)  # another leader: another election
    tally.report("t", 1, None, None, T0 + 30)  # a partition with no other report
    assert tally.count() == (3, Counter({2: 1, 3: 1}))
    tally.expire(T0)
    assert len(tally) == 4, "a report at the window's start is in the window"
    tally.expire(T0 + 1)  # the report with the epoch left: "New leader is 2" counts alone
    assert tally.count() == (3, Counter({2: 1, 3: 1}))
    tally.expire(T0 + 31)
    assert tally.count() == (0, Counter()) and len(tally) == 0


def test_a_later_report_keeps_an_election_in_the_window_and_names_its_leader() -> None:
    tally = ElectionTally()
    tally.report("t", 0, 5, None, T0)
    tally.report("t", 0, 5, 2, T0 + 5_000)
    tally.expire(T0 + 1)
    assert tally.count() == (1, Counter({2: 1}))
    assert tally.count([("t", 0, 5, 3)]) == (1, Counter({3: 1})), "the prober's report is first"
    tally.expire(T0 + 5_001)
    assert tally.count() == (0, Counter())


def test_the_detector_reads_the_report_list_of_formats_1_and_2() -> None:
    job = JobConfig(window_s=60.0)
    old = {
        "window": {
            "kept": [
                [T0 + 1_000, "2", "leader_change", "orders", 0, 5, 2],
                [T0 + 1_010, "3", "leader_change", "orders", 0, 5, None],
                [T0 + 12_000, "1", "leader_change", "orders", 1, 8, 1],
            ],
            "latest_ms": T0 + 12_000,
        },
        "epochs": [],
        "seen": [],
    }
    d = Elections(job)
    d.restore(old)
    s = by_name(d.signals(0.0), "leader_elections_per_minute")
    assert s[labels()].value == 2
    assert s[labels(broker_id=2)].value == 1 and s[labels(broker_id=1)].value == 1
    clock_end_s = current_window_end_ms(T0 + 12_000, job.slide_s) / 1000.0
    assert s[labels()].at == clock_end_s, "the log clock came along"
    again = Elections(job)
    again.restore(d.state())
    assert again.signals(0.0) == d.signals(0.0)
    d.fold(batch(events=[event("full_gc", "1", T0 + 61_000, pause_s=0.1)]), 1.0)
    assert by_name(d.signals(1.0), "leader_elections_per_minute")[labels()].value == 1, (
        "the first election left the window as the log clock moved"
    )


def test_a_new_partitions_first_leader_is_not_an_election() -> None:
    """The first consumer group creates ``__consumer_offsets``'s 50 partitions at once: their
    first leaders (epoch 0) are no storm; a later election of one of them (epoch 1) counts."""
    d = Elections(JobConfig())
    created = [
        event("leader_change", "1", T0 + 1_000, topic="__consumer_offsets", partition=p,
              leader=1, leader_epoch=0)
        for p in range(50)
    ]  # fmt: skip
    d.fold(batch(events=created), 1.0)
    assert by_name(d.signals(1.0), "leader_elections_per_minute")[labels()].value == 0
    moved = event("leader_change", "2", T0 + 2_000, topic="__consumer_offsets", partition=0,
                  leader=2, leader_epoch=1)  # fmt: skip
    d.fold(batch(events=[moved]), 2.0)
    assert by_name(d.signals(2.0), "leader_elections_per_minute")[labels()].value == 1
