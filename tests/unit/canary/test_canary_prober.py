"""The probe loop: one probe per partition per round, outcomes measured on the fake clock."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from kafka import errors
from prometheus_client import CollectorRegistry
from tests.support.canary_fakes import FakeClock, FakeProbeProducer
from tests.support.waiting import wait_for

from kafka_health.canary.metrics import CanaryMetrics
from kafka_health.canary.prober import ProbeLoop, ProbeProducer
from kafka_health.canary.records import Acks, Probe, ProbeOutcome
from kafka_health.canary.sequence import SequenceStore
from kafka_health.clock import SYSTEM_CLOCK


class Harness:
    def __init__(self, tmp_path: Path, acks1: bool = False) -> None:
        self.clock = FakeClock()
        self.registry = CollectorRegistry()
        self.metrics = CanaryMetrics(self.registry)
        self.sunk: list[ProbeOutcome] = []
        self.producers = {
            "all": FakeProbeProducer([0, 1, 2], leaders={0: 1, 1: 2, 2: 3}),
            "1": FakeProbeProducer([0, 1, 2], leaders={0: 1, 1: 2, 2: 3}),
        }
        modes: list[Acks] = ["all", "1"] if acks1 else ["all"]
        self.sequences = SequenceStore(tmp_path / "s.json", "c1", "canary", fsync=False)
        self.loop = ProbeLoop(
            canary_id="c1",
            topic="canary",
            producers={m: self._getter(m) for m in modes},
            sequences=self.sequences,
            sink=self.sunk.extend,
            clock=self.clock,
            metrics=self.metrics,
        )

    def _getter(self, mode: str):  # type: ignore[no-untyped-def]
        def get() -> ProbeProducer:
            return self.producers[mode]

        return get

    def sample(self, name: str, **labels: str) -> float | None:
        return self.registry.get_sample_value(name, labels)


def test_a_round_sends_one_probe_per_partition(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    assert h.loop.round() == 3
    probes = [Probe.decode(value) for _, value, _ in h.producers["all"].pending]
    assert [(p.partition, p.seq, p.acks) for p in probes] == [(0, 0, "all"), (1, 0, "all"),
                                                              (2, 0, "all")]  # fmt: skip
    assert {p.send_ms for p in probes} == {int(h.clock.wall * 1000)}


def test_outcomes_carry_latency_leader_and_offset(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.loop.round()
    h.clock.advance(0.25)
    h.producers["all"].ack_all(timestamp=123)
    h.loop.drain()
    assert [(o.partition, o.outcome, o.leader, o.offset) for o in h.sunk] == [
        (0, "ok", 1, 0), (1, "ok", 2, 0), (2, "ok", 3, 0)]  # fmt: skip
    assert all(o.latency_s == pytest.approx(0.25) for o in h.sunk)
    assert h.sunk[0].log_append_ms == 123
    assert h.sample("kafka_health_canary_ack_latency_seconds_count",
                    partition="0", broker_id="1", acks="all") == 1  # fmt: skip
    assert h.sample("kafka_health_canary_last_success_timestamp_seconds",
                    partition="2", acks="all") == pytest.approx(h.clock.wall)  # fmt: skip


def test_failures_are_classified_and_counted_by_broker(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.loop.round()
    h.clock.advance(2)
    h.producers["all"].fail_all(errors.NotEnoughReplicasError())
    h.loop.drain()
    assert {(o.outcome, o.error) for o in h.sunk} == {("failed", "NotEnoughReplicas")}
    assert h.sunk[0].offset is None and h.sunk[0].latency_s == pytest.approx(2)
    assert h.sample("kafka_health_canary_failures_total", partition="1", broker_id="2",
                    acks="all", error_class="NotEnoughReplicas") == 1  # fmt: skip
    assert h.sample("kafka_health_canary_sends_total",
                    partition="1", broker_id="2", acks="all") == 1  # fmt: skip


def test_a_send_that_raises_is_a_failed_probe(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.producers["all"].raise_on_send = errors.KafkaTimeoutError("no metadata")
    h.loop.round()
    h.loop.drain()
    assert [o.error for o in h.sunk] == ["Timeout"] * 3


def test_sequence_numbers_continue_across_rounds_and_outcomes(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    for _ in range(3):
        h.loop.round()
        h.producers["all"].ack_all()
    h.loop.drain()
    assert [o.seq for o in h.sunk if o.partition == 1] == [0, 1, 2]


def test_acks1_probe_shares_the_partition_sequence(tmp_path: Path) -> None:
    h = Harness(tmp_path, acks1=True)
    assert h.loop.round() == 6
    seqs_all = [Probe.decode(v).seq for p, v, _ in h.producers["all"].pending if p == 0]
    seqs_one = [Probe.decode(v).seq for p, v, _ in h.producers["1"].pending if p == 0]
    assert (seqs_all, seqs_one) == ([0], [1]), "one number space per partition: no reuse"


def test_no_producer_yet_means_no_probes_and_no_crash(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.loop.producers = {"all": lambda: None}
    assert h.loop.round() == 0


# ------------------------------------------------------------------ the probe deadline


def test_a_probe_unanswered_past_its_deadline_fails_at_once_with_timeout(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.loop.round()
    h.clock.advance(2.9)
    assert h.loop.drain() == 0 and h.loop.in_flight == 3, "not yet: 2.9 s < 3 s"
    h.clock.advance(0.1)
    assert h.loop.drain() == 3, "at the deadline, without any answer from the producer"
    assert {(o.outcome, o.error) for o in h.sunk} == {("failed", "Timeout")}
    assert all(o.latency_s == pytest.approx(3.0) for o in h.sunk)
    assert (h.sunk[0].error_message or "").endswith("no answer within the 3 s probe deadline")
    assert h.loop.in_flight == 0
    assert h.sample("kafka_health_canary_failures_total", partition="0", broker_id="1",
                    acks="all", error_class="Timeout") == 1  # fmt: skip


def test_a_late_answer_is_not_counted_again(tmp_path: Path) -> None:
    """One outcome per probe: the Timeout stands, the late success only counts as late (its
    record is in the topic, without an acknowledged outcome: no lost write either)."""
    h = Harness(tmp_path)
    h.loop.round()
    h.clock.advance(3.5)
    h.loop.drain()
    h.clock.advance(6.5)  # the request finally completes (the frozen leader resumed)
    h.producers["all"].ack_all()
    h.loop.drain()
    assert [(o.partition, o.outcome, o.error) for o in h.sunk] == [
        (0, "failed", "Timeout"), (1, "failed", "Timeout"), (2, "failed", "Timeout")]  # fmt: skip
    assert h.loop.late_answers == 3
    assert h.sample("kafka_health_canary_late_answers_total", acks="all", outcome="ok") == 3
    assert h.sample("kafka_health_canary_ack_latency_seconds_count",
                    partition="0", broker_id="1", acks="all") is None  # fmt: skip


def test_an_answer_past_the_deadline_is_a_timeout_even_before_the_loop_noticed(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    h.loop.round()
    h.clock.advance(4)
    h.producers["all"].ack_all()  # arrives before any drain expired the probes
    h.loop.drain()
    assert {(o.outcome, o.error) for o in h.sunk} == {("failed", "Timeout")}
    assert h.loop.late_answers == 3


def test_one_hung_partition_does_not_hold_the_others(tmp_path: Path) -> None:
    """Partition 0's leader is frozen: its probes time out every round, while the other
    partitions' probes are sent and counted every round as usual."""
    h = Harness(tmp_path)
    producer = h.producers["all"]
    hung: list[tuple[int, bytes, object]] = []
    for _ in range(5):
        h.loop.round()
        hung += [entry for entry in producer.pending if entry[0] == 0]
        producer.pending = [entry for entry in producer.pending if entry[0] != 0]
        h.clock.advance(0.01)
        producer.ack_all()
        h.clock.advance(0.99)
    h.clock.advance(2.0)
    h.loop.drain()
    by_partition: dict[int, list[tuple[str, str | None]]] = {}
    for outcome in h.sunk:
        by_partition.setdefault(outcome.partition, []).append((outcome.outcome, outcome.error))
    assert by_partition[1] == by_partition[2] == [("ok", None)] * 5
    assert by_partition[0] == [("failed", "Timeout")] * 5, "each hung probe timed out"
    assert len(hung) == 5, "the hung partition was still probed every round"


def test_the_deadline_is_measured_from_each_send(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.loop.round()
    first = h.loop.next_deadline()
    assert first is not None
    assert first == pytest.approx(h.clock.mono + 3.0)
    h.clock.advance(1)
    h.producers["all"].pending.clear()
    h.loop.round()
    assert h.loop.next_deadline() == first, "the earliest deadline wakes the loop"
    h.clock.advance(2)
    assert h.loop.drain() == 3, "only the first round's probes are due"
    assert h.loop.next_deadline() == pytest.approx(first + 1)


def test_run_publishes_a_timeout_without_waiting_for_the_next_round(tmp_path: Path) -> None:
    """On the real clock: a 0.2 s deadline, rounds every 30 s. The failure is handed to the
    sink by the loop's own wake-up at the deadline, long before a second round."""
    sunk: list[ProbeOutcome] = []
    producer = FakeProbeProducer([0])
    loop = ProbeLoop(
        canary_id="c1",
        topic="canary",
        producers={"all": lambda: producer},
        sequences=SequenceStore(tmp_path / "s.json", "c1", "canary", fsync=False),
        sink=sunk.extend,
        clock=SYSTEM_CLOCK,
        deadline_s=0.2,
    )
    stop = threading.Event()
    runner = threading.Thread(target=loop.run, args=(stop, 30.0))
    runner.start()
    try:
        wait_for(lambda: sunk, 10, "the Timeout outcome")
        assert loop.rounds == 1
        assert [(o.outcome, o.error) for o in sunk] == [("failed", "Timeout")]
    finally:
        stop.set()
        runner.join(5)
