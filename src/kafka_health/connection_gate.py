"""A bounded number of threads for a socket server's connections (the /metrics servers).

An accepted connection waits in a selector, without a thread, until its first bytes arrive
(a request line, a TLS ClientHello); then a fixed pool of worker threads serves it. At most
``max_waiting`` connections wait or queue (a new one closes the one that waited longest, so
idle connections cannot lock a scraper out), each waits at most ``wait_s``. Threads: the
pool plus one, however many connections are opened.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import selectors
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Serve = Callable[[Any, Any], None]
"""Serves one connection and closes it (``process_request_thread`` of a socketserver)."""
Close = Callable[[Any], None]


class ConnectionGate:
    """Connections in (``add``), served by ``workers`` threads once they have spoken."""

    def __init__(
        self,
        serve: Serve,
        close: Close,
        workers: int = 8,
        max_waiting: int = 128,
        wait_s: float = 10.0,
        name: str = "gate",
    ) -> None:
        self._serve, self._close = serve, close
        self._max_waiting, self._wait_s = max_waiting, wait_s
        self._lock = threading.Lock()
        self._incoming: list[tuple[Any, Any]] = []
        self._waiting: OrderedDict[Any, tuple[Any, float]] = OrderedDict()
        self._ready: queue.Queue[tuple[Any, Any] | None] = queue.Queue()
        self._closed = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self.closed_idle = 0
        """Connections closed before they said anything (too many waiting, or too long)."""
        self._threads = [threading.Thread(target=self._wait, name=f"{name}-wait", daemon=True)]
        self._threads += [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def add(self, conn: Any, address: Any) -> None:
        """Take an accepted connection (from the accepting thread; never blocks)."""
        with self._lock:
            if self._closed:
                self._close(conn)
                return
            self._incoming.append((conn, address))
        self._wake()

    def close(self) -> None:
        """Close every waiting and queued connection and stop the threads (those serving a
        connection finish it)."""
        with self._lock:
            self._closed = True
        self._wake()
        self._threads[0].join(5)
        for _ in self._threads[1:]:
            self._ready.put(None)
        for thread in self._threads[1:]:  # a stop is over when its threads are
            thread.join(5)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # a full buffer: a wake-up is pending anyway
            self._wake_w.send(b"\0")

    def _wait(self) -> None:
        try:
            while not self._closed:
                for key, _ in self._selector.select(timeout=min(1.0, self._wait_s)):
                    if key.fileobj is self._wake_r:
                        self._drain_wakeups()
                    else:
                        self._selector.unregister(key.fileobj)
                        conn = key.fileobj
                        address, _ = self._waiting.pop(conn)
                        self._ready.put((conn, address))
                self._admit()
                self._expire(time.monotonic() - self._wait_s)
        finally:
            for conn in list(self._waiting):
                self._drop(conn)
            with self._lock:
                incoming, self._incoming = self._incoming, []
            for conn, _ in incoming:
                self._close(conn)
            self._selector.close()
            self._wake_r.close()
            self._wake_w.close()
            while True:
                try:
                    item = self._ready.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    self._close(item[0])

    def _drain_wakeups(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass

    def _admit(self) -> None:
        with self._lock:
            incoming, self._incoming = self._incoming, []
        now = time.monotonic()
        for conn, address in incoming:
            while self._waiting and len(self._waiting) + self._ready.qsize() >= self._max_waiting:
                self._drop(next(iter(self._waiting)))  # the one that waited longest
            if self._ready.qsize() >= self._max_waiting:
                self.closed_idle += 1
                self._close(conn)
                continue
            try:
                self._selector.register(conn, selectors.EVENT_READ)
            except (OSError, ValueError):  # closed meanwhile
                self._close(conn)
                continue
            self._waiting[conn] = (address, now)

    def _expire(self, cutoff: float) -> None:
        for conn, (_, since) in list(self._waiting.items()):
            if since > cutoff:
                break  # in arrival order
            self._drop(conn)

    def _drop(self, conn: Any) -> None:
        self._waiting.pop(conn, None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(conn)
        self.closed_idle += 1
        self._close(conn)

    def _work(self) -> None:
        while True:
            item = self._ready.get()
            if item is None:
                return
            try:
                self._serve(*item)
            except Exception:  # serve handles its own errors; a worker must outlive any
                log.debug("connection gate: serving failed", exc_info=True)
