"""The publisher thread (:mod:`kafka_health.job.publisher`): asks served at once and
coalesced, a tick without asks, the last ask at stop, no thread in a backfill."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from kafka_health.job.publisher import Publisher


class Recorder:
    """A publish that records the thread it ran on and can be held."""

    def __init__(self) -> None:
        self.threads: list[str] = []
        self.done = threading.Event()
        self.hold = threading.Event()
        self.hold.set()

    def __call__(self) -> None:
        self.hold.wait(5)
        self.threads.append(threading.current_thread().name)
        self.done.set()


def wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_without_a_thread_an_ask_publishes_in_the_asking_thread() -> None:
    published = Recorder()
    Publisher(published).soon()
    assert published.threads == [threading.current_thread().name]


def test_an_ask_is_served_by_the_thread_long_before_the_tick() -> None:
    published, stop = Recorder(), threading.Event()
    publisher = Publisher(published)
    thread = publisher.start(stop, tick_s=60)
    publisher.soon()
    assert published.done.wait(5), "served at once, not after the 60 s tick"
    assert published.threads != [threading.current_thread().name]
    stop.set()
    publisher.soon()  # wakes it; the ask made as it stops is served too
    publisher.finish(thread)
    assert not thread.is_alive()
    assert len(published.threads) == 2


def test_asks_during_a_publication_are_served_by_one_more() -> None:
    published, stop = Recorder(), threading.Event()
    publisher = Publisher(published)
    thread = publisher.start(stop, tick_s=60)
    published.hold.clear()
    publisher.soon()
    assert wait_for(lambda: not publisher._wanted.is_set()), "the thread took the ask"
    for _ in range(5):
        publisher.soon()
    published.hold.set()
    assert wait_for(lambda: len(published.threads) == 2), "the five asks: one more"
    stop.set()
    publisher.soon()  # one last ask at the stop: one last publication, then the thread ends
    publisher.finish(thread)
    assert not thread.is_alive()
    # Counted once the thread is gone: a publication per ask would have made 7.
    assert len(published.threads) == 3, "five asks in one publication: one more"


def test_the_tick_publishes_without_asks() -> None:
    published, stop = Recorder(), threading.Event()
    publisher = Publisher(published)
    thread = publisher.start(stop, tick_s=0.05)
    assert wait_for(lambda: len(published.threads) >= 3)
    stop.set()
    publisher.finish(thread)
    assert not thread.is_alive()


def test_an_ask_left_when_the_thread_stopped_is_published_at_finish() -> None:
    published, stop = Recorder(), threading.Event()
    publisher = Publisher(published)
    stop.set()
    thread = publisher.start(stop, tick_s=60)
    published.hold.clear()
    publisher.soon()  # the thread publishes it and returns (stop is set)
    assert wait_for(lambda: not publisher._wanted.is_set())
    publisher.soon()  # a batch that ended after the thread's last publication
    published.hold.set()
    publisher.finish(thread)
    assert len(published.threads) == 2
    assert published.threads[-1] == threading.current_thread().name


def test_a_failed_publication_does_not_end_the_thread() -> None:
    calls: list[int] = []

    def flaky() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a sink's bug")

    stop = threading.Event()
    publisher = Publisher(flaky)
    thread = publisher.start(stop, tick_s=60)
    publisher.soon()
    assert wait_for(lambda: len(calls) == 1)
    assert wait_for(lambda: not publisher._wanted.is_set())
    publisher.soon()
    assert wait_for(lambda: len(calls) == 2)
    stop.set()
    publisher.soon()
    publisher.finish(thread)
