"""A real socket server on loopback for tests of the clients' wire code: each connection is
handed to a function on the server's thread."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress


@contextmanager
def loopback_server(
    handle: Callable[[socket.socket], None], timeout_s: float = 10
) -> Iterator[int]:
    """A listener on 127.0.0.1 (its port): each connection, its timeout ``timeout_s``, goes to
    ``handle`` (an ``OSError`` there ends that connection) and is closed after it; connections
    are served one at a time."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)  # so that the server sees the stop
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(timeout_s)
            with conn, suppress(OSError):
                handle(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        listener.close()
