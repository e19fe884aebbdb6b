"""An idle connection to each answering broker, so its closing is seen at once.

A broker that stops (SIGTERM: its socket server closes every connection; SIGKILL, OOM kill:
the kernel closes them) closes this connection in the same moment its port stops listening,
up to a ping interval before the next ping would find out. One thread waits on all of them
(``selectors``); a connection the broker closed (end of stream, or reset) is handed to
``on_closed`` (the pinger then checks the port at once) and opened again once the broker
answers its pings. Nothing is ever sent on it: Kafka keeps an idle connection
``connections.max.idle.ms`` (10 minutes), and one it closes then is only an extra check.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable

from kafka_health.reachability.ping import Address

log = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 0.5
RETRY_S = 1.0
"""A broker whose watch connection could not be opened is tried again after this long."""
POLL_S = 0.1


class ConnectionWatch:
    """Idle connections to ``targets()`` whose ``may_watch(broker)`` holds (it answers its
    pings); ``on_closed(broker, address)`` when the broker closes one."""

    def __init__(
        self,
        targets: Callable[[], dict[int, Address]],
        may_watch: Callable[[int], bool],
        on_closed: Callable[[int, Address], None],
    ) -> None:
        self._targets = targets
        self._may_watch = may_watch
        self._on_closed = on_closed
        self._selector = selectors.DefaultSelector()
        self._open: dict[int, tuple[socket.socket, Address]] = {}
        self._failed: dict[int, float] = {}  # broker -> when its connect last failed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="kafka-health-watch", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(CONNECT_TIMEOUT_S + 2)
        for broker_id in list(self._open):
            self._close(broker_id)
        self._selector.close()

    def watched(self) -> set[int]:
        return set(self._open)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.once()
            except Exception:  # never let the watch die: the pings still judge on their own
                log.exception("the brokers' connection watch failed; going on")
                self._stop.wait(RETRY_S)

    def once(self, poll_s: float = POLL_S) -> None:
        """Open what is missing, drop what is no longer a target, wait ``poll_s`` for
        closings."""
        targets = self._targets()
        for broker_id, (_, address) in list(self._open.items()):
            if targets.get(broker_id) != address:
                self._close(broker_id)
        now = time.monotonic()
        for broker_id, address in targets.items():
            if broker_id in self._open or now - self._failed.get(broker_id, -RETRY_S) < RETRY_S:
                continue
            if self._may_watch(broker_id):
                self._connect(broker_id, address)
        if not self._open:
            self._stop.wait(poll_s)
            return
        for key, _ in self._selector.select(poll_s):
            broker_id = int(key.data)
            sock, address = self._open[broker_id]
            try:
                data = sock.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                continue  # not expected (nothing was asked): ignore
            self._close(broker_id)
            self._on_closed(broker_id, address)

    def _connect(self, broker_id: int, address: Address) -> None:
        try:
            sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT_S)
        except OSError:
            self._failed[broker_id] = time.monotonic()
            return
        sock.setblocking(False)
        self._selector.register(sock, selectors.EVENT_READ, broker_id)
        self._open[broker_id] = (sock, address)
        self._failed.pop(broker_id, None)

    def _close(self, broker_id: int) -> None:
        sock, _ = self._open.pop(broker_id)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(sock)
        sock.close()
