"""The results publisher: buffered outcomes reach the topic in order, none missing."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tests.support.canary_fakes import FakeResultsProducer

from kafka_health.canary.buffer import DiskBuffer
from kafka_health.canary.records import ProbeOutcome
from kafka_health.canary.results import ResultsProducer, ResultsPublisher, buffer_sink


def outcome(seq: int) -> ProbeOutcome:
    return ProbeOutcome("c1", "canary", seq % 3, seq, "all", seq, seq, "ok", 0.001, 1)


def publisher(
    buffer: DiskBuffer, producer: ResultsProducer | None, batch: int = 4
) -> ResultsPublisher:
    return ResultsPublisher(
        buffer=buffer, producer=lambda: producer, topic="results", batch_records=batch
    )


@pytest.fixture
def buffer(tmp_path: Path) -> DiskBuffer:
    return DiskBuffer(tmp_path, max_bytes=1 << 20, segment_bytes=4096, fsync=False)


def seqs(producer: FakeResultsProducer) -> list[int]:
    return [ProbeOutcome.decode(value).seq for _, value in producer.topic_records]


def test_outcomes_are_delivered_in_order_with_their_keys(buffer: DiskBuffer) -> None:
    producer = FakeResultsProducer()
    buffer_sink(buffer)([outcome(i) for i in range(10)])
    pub = publisher(buffer, producer)
    while pub.deliver_batch():
        pass
    assert seqs(producer) == list(range(10))
    assert producer.topic_records[4][0] == b"c1/1"
    assert buffer.pending == 0


def test_a_failed_batch_stays_buffered_and_is_sent_again(buffer: DiskBuffer) -> None:
    producer = FakeResultsProducer()
    buffer_sink(buffer)([outcome(i) for i in range(6)])
    pub = publisher(buffer, producer)
    producer.failing = TimeoutError("cluster down")
    for _ in range(3):  # the outage lasts three attempts
        with pytest.raises(TimeoutError):
            pub.deliver_batch()
    assert buffer.pending == 6
    producer.failing = None
    while pub.deliver_batch():
        pass
    assert set(seqs(producer)) == set(range(6)), "none missing"
    assert seqs(producer)[-6:] == list(range(6)), "in order once the cluster recovered"


def test_no_producer_means_nothing_committed(buffer: DiskBuffer) -> None:
    buffer_sink(buffer)([outcome(1)])
    with pytest.raises(ConnectionError):
        publisher(buffer, None).deliver_batch()
    assert buffer.pending == 1


def test_empty_buffer_sends_nothing(buffer: DiskBuffer) -> None:
    producer = FakeResultsProducer()
    assert publisher(buffer, producer).deliver_batch() == 0
    assert producer.calls == 0


def test_a_failure_drops_the_producer_for_a_fresh_one(buffer: DiskBuffer) -> None:
    producer = FakeResultsProducer()
    producer.failing = TimeoutError("expired")
    resets: list[int] = []
    pub = ResultsPublisher(
        buffer=buffer, producer=lambda: producer, topic="results", reset=lambda: resets.append(1)
    )
    buffer_sink(buffer)([outcome(1)])
    stop = threading.Event()
    worker = threading.Thread(target=pub.run, args=(stop,), kwargs={"idle_s": 0.01})
    pub.backoff_s = pub.backoff_max_s = 0.01
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while not resets and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stop.set()
        worker.join()
    assert resets, "a stuck kafka-python producer is never reused after a failure"
