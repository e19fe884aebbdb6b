"""Fakes for the shipper's unit tests: a clock moved by hand, a producer acknowledged by hand,
and log files whose every written line is remembered with its (inode, offset)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


class FakeClock:
    """Time that moves only when a test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class FakeFuture:
    def __init__(self) -> None:
        self.callbacks: list[Callable[[Any], None]] = []
        self.errbacks: list[Callable[[BaseException], None]] = []

    def add_callback(self, f: Callable[..., Any], *args: Any) -> FakeFuture:
        self.callbacks.append(functools.partial(f, *args))
        return self

    def add_errback(self, f: Callable[..., Any], *args: Any) -> FakeFuture:
        self.errbacks.append(functools.partial(f, *args))
        return self


class FakeProducer:
    """Records sends; ``deliver()`` acknowledges them, ``fail()`` fails them, ``down`` makes
    ``send`` raise like kafka-python without metadata."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, bytes]] = []
        self.delivered: list[tuple[bytes, bytes]] = []
        self.pending: list[tuple[tuple[bytes, bytes], FakeFuture]] = []
        self.down = False
        self.closed = False

    def send(self, topic: str, value: bytes | None = None, key: bytes | None = None) -> FakeFuture:
        if self.down:
            raise TimeoutError("metadata not available")
        assert key is not None and value is not None
        future = FakeFuture()
        self.sent.append((key, value))
        self.pending.append(((key, value), future))
        return future

    def deliver(self) -> int:
        pending, self.pending = self.pending, []
        for record, future in pending:
            self.delivered.append(record)
            for callback in future.callbacks:
                callback(None)
        return len(pending)

    def fail(self, error: BaseException) -> int:
        pending, self.pending = self.pending, []
        for _record, future in pending:
            for errback in future.errbacks:
                errback(error)
        return len(pending)

    def flush(self, timeout: float | None = None) -> None:
        if not self.down:
            self.deliver()

    def close(self, timeout: float | None = None) -> None:
        self.closed = True


class LogDir:
    """A folder of log files; remembers each written line as (inode, offset, text)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: list[tuple[int, int, str]] = []

    def path(self, name: str) -> Path:
        return self.root / name

    def write(self, name: str, *lines: str, end: str = "\n") -> None:
        path = self.path(name)
        with path.open("ab") as handle:
            offset = handle.tell()
            ino = os.fstat(handle.fileno()).st_ino
            for line in lines:
                data = (line + end).encode()
                handle.write(data)
                self.written.append((ino, offset, line))
                offset += len(data)

    def rename(self, old: str, new: str) -> None:
        os.replace(self.path(old), self.path(new))

    def copytruncate(self, name: str, copy: str) -> None:
        self.path(copy).write_bytes(self.path(name).read_bytes())
        os.truncate(self.path(name), 0)
