"""The client libraries' repeated log messages collapsed: timelines on a fake clock, and a
process's stderr."""

from __future__ import annotations

import logging
import subprocess
import sys

from kafka_health.logs import (
    REPEATS_NOTE,
    RepeatCollapse,
    configure_logging,
    is_library,
    message_shape,
)

REFUSED = "<KafkaConnection node_id=%s>: Connection lost: KafkaConnectionError: 111 ECONNREFUSED"
TIMED_OUT = "Request timed out after %d ms on port %d"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(name: str, msg: str, *args: object, level: int = logging.ERROR) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args or None, None)


def passed(collapse: RepeatCollapse, rec: logging.LogRecord) -> str | None:
    return rec.getMessage() if collapse.filter(rec) else None


def test_the_shape_blanks_long_numbers_and_keeps_short_ones() -> None:
    a = message_shape(record("kafka.net", TIMED_OUT, 30000, 54912))
    b = message_shape(record("kafka.net", TIMED_OUT, 40000, 41001))
    assert a == b == ("kafka.net", logging.ERROR, "Request timed out after N ms on port N")
    assert message_shape(record("kafka.net", REFUSED, 2)) != message_shape(
        record("kafka.net", REFUSED, 3)
    )
    assert message_shape(record("kafka.x", "ran for 1.25s at 0x7f3e2a")) == (
        "kafka.x", logging.ERROR, "ran for Ns at N",
    )  # fmt: skip
    assert message_shape(record("kafka.x", "m", level=logging.WARNING)) != message_shape(
        record("kafka.x", "m")
    )


def test_only_the_libraries_loggers_are_libraries() -> None:
    assert is_library("kafka") and is_library("kafka.net.connection") and is_library("py4j.java")
    assert not is_library("kafka_health.services.canary") and not is_library("kafkaesque")


def test_repeats_within_the_window_are_counted_and_the_next_one_out_carries_the_count() -> None:
    clock = Clock()
    collapse = RepeatCollapse(window_s=60, clock=clock)
    assert passed(collapse, record("kafka.net", REFUSED, 3)) == REFUSED % 3
    assert passed(collapse, record("kafka.net", REFUSED, 2)) == REFUSED % 2
    for _ in range(5):
        clock.now += 10
        assert passed(collapse, record("kafka.net", REFUSED, 3)) is None
    assert collapse.suppressed_total == 5
    clock.now += 15  # 65 s after node 3's first
    written = passed(collapse, record("kafka.net", REFUSED, 3))
    assert written == REFUSED % 3 + " [5 more like this in 65 s not logged]"
    note = REPEATS_NOTE.search(written)
    assert note is not None and note[1] == "5" and REPEATS_NOTE.sub("", written) == REFUSED % 3
    clock.now += 1
    assert passed(collapse, record("kafka.net", REFUSED, 3)) is None  # a new window
    clock.now += 60
    assert passed(collapse, record("kafka.net", REFUSED, 2)) == REFUSED % 2  # none held


def test_the_process_own_records_always_pass() -> None:
    collapse = RepeatCollapse(window_s=60, clock=Clock())
    for _ in range(3):
        assert passed(collapse, record("kafka_health.services.canary", "probe failed"))
    assert collapse.suppressed_total == 0


def test_held_counts_come_out_once_as_the_last_repeat() -> None:
    clock = Clock()
    collapse = RepeatCollapse(window_s=60, clock=clock)
    collapse.filter(record("kafka.net", TIMED_OUT, 30000, 1111))
    clock.now += 5
    collapse.filter(record("kafka.net", TIMED_OUT, 30000, 2222))
    clock.now += 5
    collapse.filter(record("kafka.net", TIMED_OUT, 30000, 3333))
    collapse.filter(record("kafka.cluster", "No node available"))
    held = [r.getMessage() for r in collapse.held_summaries()]
    assert held == [
        "Request timed out after 30000 ms on port 3333 [2 more like this in 10 s not logged]"
    ]
    assert collapse.held_summaries() == []


def test_a_forgotten_shape_keeps_its_count() -> None:
    clock = Clock()
    collapse = RepeatCollapse(window_s=60, clock=clock, max_shapes=2)
    collapse.filter(record("kafka.a", "one"))
    collapse.filter(record("kafka.a", "one"))
    collapse.filter(record("kafka.a", "two"))
    collapse.filter(record("kafka.a", "three"))  # "one" forgotten, its repeat held
    assert passed(collapse, record("kafka.a", "one")) == "one"
    held = [r.getMessage() for r in collapse.held_summaries()]
    assert held == ["one [1 more like this in 0 s not logged]"]


def test_an_embedding_applications_handlers_are_left_alone() -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    assert before  # pytest's own
    assert configure_logging() is None
    assert root.handlers == before
    assert logging.getLogger("kafka").level == logging.WARNING


def test_a_process_writes_each_shape_once_and_the_held_counts_at_exit() -> None:
    script = """
import logging
from kafka_health.logs import configure_logging
configure_logging()
net = logging.getLogger("kafka.net.connection")
for port in range(50000, 50040):
    net.error("<KafkaConnection node_id=3 port=%d>: Connection lost: ECONNREFUSED", port)
net.info("not at the libraries' level")
logging.getLogger("kafka_health.canary").info("the canary's own line")
logging.getLogger("kafka_health.canary").info("the canary's own line")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    lines = [line.split(" ", 2)[2] for line in done.stderr.splitlines()]
    assert lines == [
        "ERROR kafka.net.connection: <KafkaConnection node_id=3 port=50000>: Connection lost:"
        " ECONNREFUSED",
        "INFO kafka_health.canary: the canary's own line",
        "INFO kafka_health.canary: the canary's own line",
        "ERROR kafka.net.connection: <KafkaConnection node_id=3 port=50039>: Connection lost:"
        " ECONNREFUSED [39 more like this in 0 s not logged]",
    ]


def test_threads_logging_at_once_lose_no_count() -> None:
    """Handlers call their filters outside their lock, from every thread that logs."""
    import threading

    collapse = RepeatCollapse(window_s=3600, max_shapes=20)
    passed_counts = [0] * 8

    def log_many(k: int) -> None:
        for i in range(3000):
            if collapse.filter(record("kafka.net", "node_id=%d refused", i % 50)):
                passed_counts[k] += 1

    threads = [threading.Thread(target=log_many, args=(k,)) for k in range(8)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes, not every 5 ms
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert sum(passed_counts) + collapse.suppressed_total == 8 * 3000
    # Every repeat's count is held (its shape's window never ends here) or was handed over
    # when its shape was forgotten: none lost to a race.
    notes = [REPEATS_NOTE.search(r.getMessage()) for r in collapse.held_summaries()]
    held = sum(int(note[1]) for note in notes if note is not None)
    assert len(notes) > 20 and held == collapse.suppressed_total > 0
