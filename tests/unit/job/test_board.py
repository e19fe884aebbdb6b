"""The driver's SignalBoard: batches folded once per id, state saved and resumed."""

from __future__ import annotations

import json

import pytest
from tests.support.detector_support import batch, broker, by_name, event, failed, ok, part, probe

from kafka_health.config import JobConfig
from kafka_health.detectors.inputs import LogStream
from kafka_health.job.board import SignalBoard, distinct_elections
from kafka_health.model import SIGNALS, labels

# (case, reports (topic, partition, epoch, leader), expected {election: leader}, why)
ELECTIONS = [
    ("one report", [("t", 0, 5, 2)], {("t", 0, 5, None): 2}, "the simple case"),
    (
        "three logs, one election",
        [("t", 0, 5, None), ("t", 0, 5, 2), ("t", 0, None, 2)],
        {("t", 0, 5, None): 2},
        "epoch cache (no leader), leader line and the controller's epoch-less line agree",
    ),
    (
        "two epochs are two elections",
        [("t", 0, 5, 2), ("t", 0, 6, 3)],
        {("t", 0, 5, None): 2, ("t", 0, 6, None): 3},
        "a storm is many epochs",
    ),
    (
        "epoch-less report of another leader",
        [("t", 0, 5, 2), ("t", 0, None, 3)],
        {("t", 0, 5, None): 2, ("t", 0, None, 3): 3},
        "a different new leader is a different election",
    ),
    (
        "leader learned from a later report",
        [("t", 1, 7, None), ("t", 1, 7, 1)],
        {("t", 1, 7, None): 1},
        "the first report with a leader names it",
    ),
]


@pytest.mark.parametrize(
    ("case", "reports", "expected", "why"), ELECTIONS, ids=[c[0] for c in ELECTIONS]
)
def test_distinct_elections(case: str, reports: list, expected: dict, why: str) -> None:  # type: ignore[type-arg]
    assert distinct_elections(reports) == expected, why


T0 = 1_700_000_000_000


def busy_batch(shift_ms: int = 0) -> object:
    t = T0 + shift_ms
    return batch(
        outcomes=[ok(0, 1 + shift_ms, t), failed(1, 2 + shift_ms, t, "Timeout", leader=2)],
        probes=[probe(0, 1 + shift_ms, t, offset=shift_ms)],
        cluster=[part(t, "orders", 0, 1, [1]), broker(t, 1)],
        events=[event("full_gc", "1", t, pause_s=12.0),
                event("leader_change", "2", t, topic="orders", partition=1, leader=2,
                      leader_epoch=4)],
        streams=[LogStream("1", "gc", 3)],
    )  # fmt: skip


def test_a_replayed_batch_changes_nothing() -> None:
    now = [1000.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0])
    assert board.fold(7, busy_batch()) is True  # type: ignore[arg-type]
    state, signals = board.state(), board.signals()
    now[0] = 1001.0  # Spark replays batch 7 after a crash, a second later
    assert board.fold(7, busy_batch()) is False  # type: ignore[arg-type]
    assert board.fold(6, busy_batch(5)) is False  # type: ignore[arg-type]
    assert board.state() == state
    now[0] = 1000.0
    assert board.signals() == signals
    assert by_name(signals, "canary_sends")[labels()].value == 2


def test_a_restart_resumes_the_saved_state_and_still_skips_the_saved_batch() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    board.fold(3, busy_batch())  # type: ignore[arg-type]
    saved = json.loads(json.dumps(board.state()))  # through the file's JSON
    resumed = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    resumed.restore(saved)
    # Silences are judged again once the resumed job has read a batch (Coverage).
    silences = {"canary_partition_silent_seconds", "log_stream_age_seconds"}
    assert resumed.batch_id == 3
    assert resumed.signals() == [s for s in board.signals() if s.name not in silences]
    assert resumed.fold(3, busy_batch()) is False  # type: ignore[arg-type]
    assert resumed.fold(4, busy_batch(1000)) is True  # type: ignore[arg-type]
    assert by_name(resumed.signals(), "canary_sends")[labels()].value == 4
    assert silences <= {s.name for s in resumed.signals()}


def test_every_signal_is_in_the_catalogue_with_its_labels() -> None:
    board = SignalBoard(JobConfig(canary_silence_s=1.0), clock=lambda: 1000.0)
    board.fold(0, busy_batch())  # type: ignore[arg-type]
    for s in board.signals():
        spec = SIGNALS[s.name]
        assert set(dict(s.labels)) <= set(spec.labels), s


# ---------------------------------------------------------------- never stale


def test_a_stopped_canary_is_stale_its_values_unknown_not_repeated() -> None:
    now = [1005.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], stale_after={"canary": 23.0}, live=True)
    board.fold(0, batch(outcomes=[ok(0, 1, 1_004_500)]))
    assert any(s.name == "canary_availability_ratio" for s in board.signals())
    stale = {s.name: s for s in board.signals() if s.labels == labels(source="canary")}
    assert stale["signal_stale"].value == 0 and stale["signal_age_seconds"].value == 0.5

    now[0] = 1004.5 + 23.5  # the canary stopped: nothing newer than 1004.5
    names = {s.name for s in board.signals()}
    canary = {"canary_availability_ratio", "canary_sends", "canary_send_failures",
              "canary_ack_latency_seconds", "canary_partition_silent_seconds"}  # fmt: skip
    assert not names & canary, "unknown: left out, not repeated"
    stale = {s.name: s for s in board.signals() if s.labels == labels(source="canary")}
    assert stale["signal_stale"].value == 1 and stale["signal_age_seconds"].value == 23.5
    assert board.stale() == {"canary"}

    board.fold(1, batch(outcomes=[ok(0, 2, 1_028_000)]))  # it is back
    assert board.stale() == set()
    assert any(s.name == "canary_availability_ratio" for s in board.signals())


def test_the_jobs_own_slow_first_batch_does_not_make_a_source_stale() -> None:
    """The first batch after the query starts takes ~20 s (Spark compiles the plan): the
    canary results it holds are that old when folded. The job's delay is not the canary's:
    only a source that stops while batches keep coming is stale."""
    now = [1000.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], stale_after={"canary": 20.0}, live=True)
    board.query_started("monitor")
    now[0] = 1021.0
    board.fold(0, batch(outcomes=[ok(0, 1, 1_000_500)]))
    assert board.stale() == set(), "20.5 s old, but the batch itself took 21 s"
    now[0] = 1023.5
    board.fold(1, batch(outcomes=[ok(0, 2, 1_022_000)]))
    now[0] = 1022.0 + 22.0  # the canary stopped at 1022; batches of 2.5 s go on
    assert board.stale() == set()
    now[0] = 1022.0 + 23.0
    assert board.stale() == {"canary"}
    ages = by_name(board.signals(), "signal_stale")
    assert ages[labels(source="canary")].details["stale_after_s"] == 22.5


def test_a_restarted_jobs_replayed_first_batch_does_not_make_a_source_stale() -> None:
    """Fault suite, monitor-kill: ``run`` killed at 1000 and started again; its query started
    at 1040 and first replayed the batch planned before the kill (canary results up to
    1000), folded at 1060. The 60 s gap is the monitor's own, not the canary's; a canary that
    stays silent is stale once its allowance after the restart has passed."""
    now = [1040.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], stale_after={"canary": 7.0}, live=True)
    board.query_started("monitor")
    now[0] = 1060.0
    board.fold(7, batch(outcomes=[ok(0, 1, 999_500)]))
    assert board.stale() == set(), "counted from the query's start, with its 20 s batch"
    now[0] = 1063.0
    assert board.stale() == set()
    board.query_started("monitor")  # a later restart of the query in the same process
    now[0] = 1040.0 + 7.0 + 20.0 + 0.5
    assert board.stale() == {"canary"}, "the canary sent nothing since the restart"
    ages = by_name(board.signals(), "signal_age_seconds")
    assert ages[labels(source="canary")].value == 27.5


def test_a_stale_prober_leaves_the_isr_values_out() -> None:
    now = [1000.0]
    board = SignalBoard(
        JobConfig(), clock=lambda: now[0], stale_after={"cluster_state": 50.0}, live=True
    )
    board.fold(0, batch(cluster=[part(999_000, "t", 0, 1, [1, 2, 3]), broker(999_000, 1)]))
    assert [s for s in board.signals() if s.name == "under_replicated_partitions"]
    now[0] = 1050.0
    assert not [s for s in board.signals() if s.name == "under_replicated_partitions"]
    assert board.stale() == {"cluster_state"}


def test_a_source_never_seen_is_not_stale() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: 10_000.0, live=True)
    assert board.stale() == set()
    assert not [s for s in board.signals() if s.name == "signal_stale"]


def test_a_replay_of_past_records_is_not_stale() -> None:
    """Available-now runs (``--once``, tests, backfills) read what the topics hold."""
    board = SignalBoard(JobConfig(), clock=lambda: 10_000.0, stale_after={"canary": 23.0})
    board.fold(0, batch(outcomes=[ok(0, 1, 1_004_500)]))
    assert board.stale() == set()
    assert any(s.name == "canary_availability_ratio" for s in board.signals())


def test_the_canary_query_feeds_only_the_loss_detector_with_its_own_batch_ids() -> None:
    board = SignalBoard(JobConfig(loss_grace_s=1.0), clock=lambda: 1000.0)
    assert board.fold(0, busy_batch()) is True  # type: ignore[arg-type]
    before = board.state()["detectors"]
    probes = batch(probes=[probe(0, 9, T0 + 5000, offset=9)], events=[event("full_gc", "2", T0)])
    assert board.fold(0, probes, query="canary") is True, "its own batch ids"
    after = board.state()["detectors"]
    assert {n for n in after if after[n] != before[n]} == {"loss"}, "only loss reads probes"
    assert board.fold(0, probes, query="canary") is False, "a replay changes nothing"
    assert board.batch_ids == {"monitor": 0, "canary": 0}
    board.forget_batches("canary")  # its checkpoint was deleted: it counts from 0 again
    assert board.fold(0, probes, query="canary") is True


def test_a_state_saved_before_the_canary_query_resumes_the_monitor_query() -> None:
    board = SignalBoard(JobConfig(), clock=lambda: 1000.0)
    board.restore({"batch_id": 41, "detectors": {}})
    assert board.batch_ids == {"monitor": 41} and board.last_batch("canary") == -1


def test_a_stalled_canary_topic_read_is_stale_only_for_the_loss_signals() -> None:
    now = [T0 / 1000]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], live=True)
    board.fold(0, busy_batch())  # type: ignore[arg-type]
    board.fold(0, batch(probes=[probe(0, 1, T0, offset=1)]), query="canary")
    now[0] += 121  # the canary results go on; the canary topic's read has stalled
    board.fold(1, batch(outcomes=[ok(0, 5, T0 + 121_000)], cluster=[broker(T0 + 121_000, 1)]))
    stale = by_name(board.signals(), "signal_stale")
    assert stale[labels(source="canary_topic")].value == 1
    assert stale[labels(source="canary")].value == 0


# ---------------------------------------------------------------- a separate transport


def test_a_separate_transports_pings_come_through_its_roster_and_outlive_a_restart() -> None:
    from kafka_health.reachability.ping import Ping

    now = [100.0]
    board = SignalBoard(JobConfig(), clock=lambda: now[0], live=True, transport=["t:9092"])
    roster = board.transport_roster()
    roster.listed({7: ("t7", 9092)}, 100.0)
    assert roster.ping_targets() == {-1: ("t", 9092), 7: ("t7", 9092)}
    assert board.ping_targets() == {}, "not the monitored cluster's brokers"
    roster.answered([Ping(-1, 100.0, 100.1, "answered"), Ping(7, 100.0, 100.1, "answered")])
    roster.answered([Ping(-1, 101.0, 101.1, "refused"), Ping(7, 101.0, 101.1, "refused")])
    now[0] = 107.0
    (down,) = [s for s in board.signals() if s.name == "transport_unanswered_seconds"]
    assert (down.labels, down.value) == (labels(reason="refused"), 6.9)
    assert board.stale() == set(), "the pings themselves came back"

    resumed = SignalBoard(JobConfig(), clock=lambda: now[0], transport=["t:9092"])
    resumed.restore(json.loads(json.dumps(board.state())))
    resumed.transport_roster().answered([Ping(-1, 110.0, 110.1, "refused")])
    now[0] = 111.0
    (still,) = [s for s in resumed.signals() if s.name == "transport_unanswered_seconds"]
    assert still.value == 10.9, "down since before the restart"


def test_without_a_separate_transport_there_is_no_transport_roster() -> None:
    board = SignalBoard(JobConfig())
    assert board.transport is None
    with pytest.raises(ValueError, match="no separate transport"):
        board.transport_roster()
