"""The fold worker: each batch's work off the stream thread, one at a time and in order, a
failure raised at the next batch, and "logs read to" held back while a batch is not folded."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

import pytest

from kafka_health.job.fold_worker import FoldWorker


class Boom(Exception):
    pass


def held_until(
    release: threading.Event, then: Callable[[], object] = lambda: None
) -> Callable[[], None]:
    """Work that waits for ``release`` (at most 5 s), then calls ``then``."""

    def work() -> None:
        release.wait(5)
        then()

    return work


def test_work_runs_off_the_caller_thread_in_order_one_at_a_time() -> None:
    worker = FoldWorker("test-fold")
    done: list[int] = []
    threads: set[str] = set()
    running = threading.Semaphore(1)
    overlapped: list[int] = []

    def work(n: int) -> None:
        if not running.acquire(blocking=False):
            overlapped.append(n)
            return
        try:
            threads.add(threading.current_thread().name)
            done.append(n)
        finally:
            running.release()

    for n in range(20):
        worker.submit(functools.partial(work, n), read_to_s=float(n))
    worker.wait()
    worker.close()
    assert done == list(range(20))
    assert not overlapped
    assert threads and all(t.startswith("test-fold") for t in threads)
    assert threading.current_thread().name not in threads


def test_submit_waits_for_the_previous_batch() -> None:
    worker = FoldWorker("test-fold")
    release = threading.Event()
    order: list[str] = []
    worker.submit(held_until(release, lambda: order.append("first")), read_to_s=1.0)
    assert worker.busy
    submitted = threading.Event()

    def second() -> None:
        worker.submit(lambda: order.append("second"), read_to_s=2.0)
        submitted.set()

    caller = threading.Thread(target=second)
    caller.start()
    assert not submitted.wait(0.2), "the second batch was handed over before the first's end"
    release.set()
    caller.join(5)
    worker.wait()
    assert order == ["first", "second"]
    assert not worker.busy
    worker.close()


def test_a_failure_is_raised_once_at_the_next_batch_whose_work_then_does_not_run() -> None:
    worker = FoldWorker("test-fold")
    ran: list[str] = []

    def fails() -> None:
        raise Boom("disk full")

    worker.submit(fails, read_to_s=1.0)
    with pytest.raises(Boom, match="disk full"):
        worker.submit(lambda: ran.append("next"), read_to_s=2.0)
    assert ran == []
    worker.wait()  # raised once: nothing pending now
    worker.close()


def test_read_to_is_held_back_while_a_batch_is_not_folded() -> None:
    worker = FoldWorker("test-fold")
    assert worker.read_to_cap(10.0) == 10.0, "nothing pending: as read"
    assert worker.read_to_cap(None) is None
    release = threading.Event()
    worker.submit(held_until(release), read_to_s=10.0)
    # The batch's own trigger (read to 12) is reported while its fold runs: held at 10.
    assert worker.read_to_cap(12.0) == 10.0
    release.set()
    worker.wait()
    assert worker.read_to_cap(12.0) == 12.0, "folded: as read"
    worker.close()


def test_before_anything_was_read_a_pending_batch_holds_read_to_unknown() -> None:
    worker = FoldWorker("test-fold")
    release = threading.Event()
    worker.submit(held_until(release), read_to_s=None)
    assert worker.read_to_cap(3.0) is None
    release.set()
    worker.wait()
    assert worker.read_to_cap(3.0) == 3.0
    worker.close()


def test_a_failed_batch_holds_read_to_back_until_a_batch_is_folded() -> None:
    worker = FoldWorker("test-fold")

    def fails() -> None:
        raise Boom("fold")

    worker.submit(fails, read_to_s=10.0)
    with pytest.raises(Boom):
        worker.wait()
    # The failed batch is read again after the rewind; until then read_to stays before it.
    assert worker.read_to_cap(14.0) == 10.0
    release = threading.Event()
    worker.submit(held_until(release), read_to_s=14.0)  # the batch read again
    assert worker.read_to_cap(16.0) == 10.0
    release.set()
    worker.wait()
    assert worker.read_to_cap(16.0) == 16.0
    worker.close()
