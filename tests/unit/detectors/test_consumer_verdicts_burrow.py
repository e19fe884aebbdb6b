"""Burrow's evaluation examples, judged by this monitor: the same verdict where the rules agree,
the different one asserted, and why, where this monitor decides otherwise.

Sources: the evaluator's table of cases, its "correctness proof" (linkedin/Burrow
``core/internal/evaluator/caching_test.go``, cases 0-15, ported exactly: offsets, commit
times, lags, the broker's offset and the evaluation time), and the wiki page "Consumer Lag
Evaluation Rules" (https://github.com/linkedin/Burrow/wiki/Consumer-Lag-Evaluation-Rules):
its five examples over a window of ten commits a minute apart (1: zero lag early in the
window, OK; 2: offset unmoved, lag fixed, STALL; 3: offsets moving, lag rising, WARN; 4: lag
rising and falling on a busy topic, OK; 5: commits stopped, STOP). The examples' figures
here are written to those shapes, not copied from the page.

Burrow sees commits; this monitor sees rounds. A Burrow window becomes one round per commit
(the committed offset, the log end offset = offset + its lag) and a last round at Burrow's
``timeNow`` (the log end offset = the last offset + ``currentLag``), as the poller reads the
log end offsets every round. Time lag is estimated as the poller does (interpolated in the
rounds' (log end offset, time) samples; before the oldest, the oldest time: a lower bound).
The group has a member (Burrow cannot tell), unless a case says ``members=0``.

Where the verdicts differ, it is for one of four reasons:
- Burrow's STOP compares the time since the last commit with the window's span, so a
  consumer that commits rarely, or has not committed *yet*, is STOP (issues #38, #140, #237,
  #303 and the broker-offset history of PR #338 added to soften it). Here records must be
  waiting with the committed offset unmoved for ``stall_window_s`` (members present:
  ``stalled``) or over two rounds (no members: ``stopped``).
- Burrow's rule 1 (any zero lag in the window: OK) lets a stuck consumer pass until the zero
  ages out of the window (its own case 4). Here the waiting time counts, not the window.
- Burrow's WARN (offsets move, lag never falls) has no threshold: its users asked for one
  (issue #452, time-based lag). Here the group's objective in seconds decides ``lagging``.
- Burrow's allowed lag is in records; here one record waiting for minutes is minutes behind.
"""

from __future__ import annotations

import pytest

from kafka_health.consumer_groups.config import ConsumerGroupsConfig, GroupObjective
from kafka_health.consumer_groups.observation import (
    GroupObservation,
    GroupsRound,
    PartitionOffsets,
)
from kafka_health.detectors.consumer_groups import ConsumerGroups
from kafka_health.model import labels

CFG = ConsumerGroupsConfig(interval_s=5.0, stall_window_s=300.0)
Commit = tuple[int, int, int | None]
"""(committed offset, commit time in ms, lag when Burrow received it; None: unknown)."""


def write_time(offset: int, samples: list[tuple[int, float]]) -> float | None:
    """When the record at ``offset`` was written, from (log end offset, time) samples."""
    for i, (log_end, at) in enumerate(samples):
        if log_end > offset:
            if i == 0:
                return at  # before the oldest sample: at least this old
            prev_end, prev_at = samples[i - 1]
            return prev_at + (offset - prev_end) / (log_end - prev_end) * (at - prev_at)
    return None  # not written yet: caught up


def burrow_verdict(commits: list[Commit], current_lag: int, now_s: float, members: int = 1,
                   cfg: ConsumerGroupsConfig = CFG) -> tuple[str, dict[str, object]]:  # fmt: skip
    """This monitor's verdict on a Burrow window, at Burrow's ``timeNow``."""
    det = ConsumerGroups(cfg)
    samples: list[tuple[int, float]] = []
    last = commits[-1][0]
    points = [(o, ms / 1000, lag) for o, ms, lag in commits] + [(last, now_s, current_lag)]
    for committed, at, lag in points:
        log_end = None if lag is None else committed + lag
        if log_end is not None:
            samples.append((max(log_end, samples[-1][0] if samples else 0), at))
        written = write_time(committed, samples) if lag else None
        lag_s = None if lag is None else (0.0 if written is None else at - written)
        p = PartitionOffsets("t", 0, committed, 0, log_end, 1, lag_s)
        group = GroupObservation("burrow", round(at * 1000), "Stable", members, partitions=(p,))
        det.observe(GroupsRound(round(at * 1000), (group,)))
    v = det.verdicts(now_s)["burrow"]
    return v.verdict, v.details


def case(*rows: tuple[int, int, int | None]) -> list[Commit]:
    return list(rows)


# caching_test.go's windows (offset, timestamp ms, lag), shared by several cases.
RISING = case((1000, 100_000, 0), (2000, 200_000, 50), (3000, 300_000, 100),
              (4000, 400_000, 150), (5000, 500_000, 200))  # fmt: skip
ALWAYS_BEHIND = case((1000, 100_000, 50), (2000, 200_000, 100), (3000, 300_000, 150),
                     (4000, 400_000, 200), (5000, 500_000, 250))  # fmt: skip
FIXED_OFFSET_ZERO_FIRST = case((1000, 100_000, 0), (1000, 200_000, 50), (1000, 300_000, 100),
                               (1000, 400_000, 150), (1000, 500_000, 200))  # fmt: skip
FIXED_OFFSET_GROWING = case((1000, 100_000, 100), (1000, 200_000, 150), (1000, 300_000, 200),
                            (1000, 400_000, 250), (1000, 500_000, 300))  # fmt: skip
FIXED_OFFSET_FIXED_LAG = case(*((1000, t * 100_000, 100) for t in range(1, 6)))
REWIND_RECOVERED = case((1000, 100_000, 100), (2000, 200_000, 150), (3000, 300_000, 200),
                        (2000, 400_000, 1250), (4000, 500_000, 300))  # fmt: skip
REWIND_NOT_RECOVERED = case((1000, 100_000, 100), (2000, 200_000, 150), (3000, 300_000, 200),
                            (2000, 400_000, 1250), (2500, 500_000, 300))  # fmt: skip
FAST_ZERO_LAG = case(*((792748079 + i, 1512224618356 + 1003 * i, 0) for i in range(15)))
WITH_NILS = case(*((1000 + 500 * i, 100_000 + 50_000 * i, None if i % 2 else 50 * (i // 2))
                   for i in range(10)))  # fmt: skip
ALLOWED_LAG = case((1000, 100_000, 2), (2000, 200_000, 1), (2000, 300_000, 1))

# (Burrow's case, window, currentLag, timeNow s, members, Burrow's status, this verdict, why)
# fmt: off
CASES = [
    ("0", RISING, 200, 600, 1, "OK", "ok", "agree: moving, 100 s since the last commit"),
    ("1", RISING, 200, 900, 1, "OK", "stalled",
     "differ: 200 records waited 400 s with the offset unmoved and a member present; Burrow "
     "waits for the time since the last commit to pass the window's span (case 2)"),
    ("2", RISING, 200, 1000, 1, "STOP", "stalled",
     "agree that it is stuck; with a member it is stalled here (stopped needs no members)"),
    ("2 no members", RISING, 200, 1000, 0, "STOP", "stopped", "agree"),
    ("3", ALWAYS_BEHIND, 250, 1000, 1, "STOP", "stalled", "as case 2"),
    ("3 no members", ALWAYS_BEHIND, 250, 1000, 0, "STOP", "stopped", "agree"),
    ("4", FIXED_OFFSET_ZERO_FIRST, 200, 600, 1, "OK", "stalled",
     "differ: Burrow's rule 1 passes it while the zero lag is in the window (its comment: "
     "another commit turns it to STALL); here 200 records waited 400 s, no progress"),
    ("5", FIXED_OFFSET_GROWING, 300, 600, 1, "STALL", "stalled", "agree"),
    ("6", FIXED_OFFSET_FIXED_LAG, 100, 600, 1, "STALL", "stalled",
     "agree: the lag in records is fixed, the time lag grows"),
    ("7", REWIND_RECOVERED, 300, 600, 1, "OK", "ok", "agree: back past 3000 (rule 2 part 2)"),
    ("8", ALWAYS_BEHIND, 0, 1000, 1, "OK", "ok", "agree: nothing waiting now"),
    ("9", FAST_ZERO_LAG, 931, 1512224650, 1, "STOP", "ok",
     "differ: 931 new records, 18 s after the last commit of a window 14 s long; the consumer "
     "has simply not committed them yet (the false STOP of issues #303/#290)"),
    ("9 no members", FAST_ZERO_LAG, 931, 1512224650, 0, "STOP", "ok",
     "differ: one round shows records waiting; the next round (5 s on) decides, see "
     "test_case_9_without_members_is_stopped_one_round_later"),
    ("10", FAST_ZERO_LAG, 1, 1512224650, 1, "OK", "ok", "agree (#303, broker history)"),
    ("11", WITH_NILS, 200, 600, 1, "OK", "ok", "agree: unknown lags change nothing"),
    ("12", ALLOWED_LAG, 1, 550, 1, "OK (allowed lag 1)", "stalled",
     "differ: Burrow allows 1 record of lag; here one record unread for 350 s with no "
     "progress is 350 s behind (the objective and stall window are in seconds)"),
    ("13", FIXED_OFFSET_GROWING, 300, 600, 1, "STALL (allowed lag 99)", "stalled", "agree"),
    ("14", REWIND_RECOVERED, 300, 600, 1, "OK (allowed lag 99)", "ok", "agree, as case 7"),
    ("15", REWIND_NOT_RECOVERED, 300, 600, 1, "REWIND", "rewound",
     "agree: back to 2000, then 2500 < 3000"),
]
# fmt: on


@pytest.mark.parametrize(
    ("index", "window", "current_lag", "now_s", "members", "burrow", "ours", "why"),
    CASES,
    ids=[f"caching_test-{c[0]}" for c in CASES],
)
def test_burrow_evaluator_cases(index: str, window: list[Commit], current_lag: int,
                                now_s: float, members: int, burrow: str, ours: str,
                                why: str) -> None:  # fmt: skip
    verdict, _details = burrow_verdict(window, current_lag, now_s, members)
    assert verdict == ours, f"Burrow {burrow}; {why}"


def test_case_9_without_members_is_stopped_one_round_later() -> None:
    window = [*FAST_ZERO_LAG, (792748093, 1512224650_000, 931)]
    verdict, details = burrow_verdict(window, 990, 1512224655, members=0)
    assert verdict == "stopped" and details["max_lag"] == 990


# ---------------------------------------------------------------- the wiki's examples

MINUTE = 60_000


def wiki(offsets: list[int], lags: list[int]) -> list[Commit]:
    """Ten commits a minute apart (W1 at T=0), as the wiki's tables."""
    return [(o, i * MINUTE, lag) for i, (o, lag) in enumerate(zip(offsets, lags, strict=True))]


MOVING = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
# fmt: off
EXAMPLES = [
    ("1", wiki(MOVING, [0, 0, 0, 0, 0, 0, 1, 3, 5, 5]), 5, 600, "OK", "ok",
     "agree: zero lag in the window, a few records behind at the end"),
    ("2", wiki([10] * 10, [5] * 10), 5, 600, "ERR (STALL)", "stalled",
     "agree: offset unmoved ten minutes, lag fixed (the time lag grows)"),
    ("3", wiki(MOVING, [1, 1, 1, 1, 1, 2, 2, 2, 3, 3]), 3, 600, "WARN", "ok",
     "differ: the group is 78 s behind, under its 300 s objective; Burrow warns on the "
     "shape alone (the objective decides here: see test_wiki_example_3_with_a_tight_objective)"),
    ("4", wiki(MOVING, [5, 3, 5, 2, 1, 1, 2, 1, 4, 6]), 6, 600, "OK", "ok",
     "agree: a busy topic, the lag rising and falling"),
    ("5", wiki(MOVING, [5] * 10), 5, 1200, "ERR (STOP)", "stalled",
     "agree that it is stuck: 11 minutes without a commit, 5 records waiting; with a member it "
     "is stalled (test_wiki_example_5_without_members: stopped)"),
]
# fmt: on


@pytest.mark.parametrize(
    ("example", "window", "current_lag", "now_s", "burrow", "ours", "why"),
    EXAMPLES,
    ids=[f"wiki-example-{e[0]}" for e in EXAMPLES],
)
def test_burrow_wiki_examples(example: str, window: list[Commit], current_lag: int,
                              now_s: float, burrow: str, ours: str, why: str) -> None:  # fmt: skip
    verdict, _details = burrow_verdict(window, current_lag, now_s)
    assert verdict == ours, f"example {example}: Burrow {burrow}; {why}"


def test_wiki_example_3_with_a_tight_objective_is_lagging() -> None:
    tight = ConsumerGroupsConfig(default_objective=GroupObjective(lag_objective_s=60.0))
    window = wiki(MOVING, [1, 1, 1, 1, 1, 2, 2, 2, 3, 3])
    verdict, details = burrow_verdict(window, 3, 600, cfg=tight)
    assert verdict == "lagging" and details["objective_s"] == 60.0


def test_wiki_example_5_without_members_is_stopped() -> None:
    verdict, _details = burrow_verdict(wiki(MOVING, [5] * 10), 5, 1200, members=0)
    assert verdict == "stopped"


# ---------------------------------------------------------------- Burrow's known failures


def test_no_false_stop_on_a_quiet_partition_that_commits_rarely() -> None:
    """Issues #38 ("Consumers of slow topics are marked as error") and #140 (STOP reported
    while the broker and consumer offsets were equal): commits hours apart, nothing unread."""
    window = case((645750, 0, 0), (645800, 3_600_000, 0), (645853, 7_200_000, 0))
    assert burrow_verdict(window, 0, 30_000)[0] == "ok"


def test_no_false_stop_on_a_consumer_working_through_a_burst() -> None:
    """Issue #237: STOP while the consumer was consuming a burst of 2,000 records. Ten commits
    in 24 s, then 30 s on one slow batch: Burrow's STOP (30 s > the window's 21.6 s)."""
    window = case(*((7952519 + 24 * i, 1499084499648 + 2400 * i, 2107 - 24 * i)
                    for i in range(10)))  # fmt: skip
    assert burrow_verdict(window, 1891, 1499084553.6)[0] == "ok"


def test_a_stopped_groups_lag_keeps_growing_not_zero() -> None:
    """Issues #58 ("Lag does not update when status is STOP"), #113, #126 ("Lag always 0 in
    http notifier") and #287: Burrow computes lag at commits, so a stopped group's lag stays
    where its last commit left it. Here the log end is read every round."""
    det = ConsumerGroups(CFG)
    for i, at in enumerate(range(0, 300, 60)):
        p = PartitionOffsets("t", 0, 74999, 0, 74999 + 1000 * i, 1, float(at))
        members = 1 if i == 0 else 0
        group = GroupObservation("g", at * 1000, "Empty", members, partitions=(p,))
        det.observe(GroupsRound(at * 1000, (group,)))
        lag = {s.name: s.value for s in det.signals(at) if s.labels == labels(group="g")}
        assert lag["consumergroup_max_lag"] == 1000 * i
        assert lag["consumergroup_sum_lag"] == 1000 * i
    assert det.verdicts(240)["g"].verdict == "stopped"
