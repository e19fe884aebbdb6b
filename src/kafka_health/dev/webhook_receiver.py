"""A real webhook receiver for the alert delivery tests and the job's label-flood bench
(:func:`kafka_health.dev.flood_job.flood`): http.server on 127.0.0.1 in a thread.

It behaves as a pager endpoint that dedups by ``Idempotency-Key``: the first request with a key
is processed, a repeat of it is answered 200 without processing again. ``mode(now)`` decides
each answer: ``ok``, ``hang`` (the request is processed, then the answer is held back until
the client has given up, as a receiver whose response is lost), ``reset`` (the connection is
closed without an answer), ``drip`` (the answer, 200, written a byte every ``drip_s``
until it is whole or the client has gone; not processed), ``drip-body`` (the status and
headers at once, then the body a byte every ``drip_s``; not processed) or an HTTP status such
as ``500``, ``400`` or ``429`` (answered with that status and ``retry_after`` as Retry-After
when set; not processed). Each request records when it arrived (``at``, monotonic).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    key: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes
    at: float = field(default_factory=time.monotonic)


@dataclass
class ReceiverState:
    mode: Callable[[], str] = lambda: "ok"
    hang_s: float = 2.0
    drip_s: float = 0.5
    retry_after: str = ""
    location: str = ""
    """Location of a 3xx answer."""
    hmac_secret: str = ""
    processed: dict[str, Received] = field(default_factory=dict)
    """First processing of each idempotency key."""
    requests: list[Received] = field(default_factory=list)
    acked: set[str] = field(default_factory=set)
    resent_after_ack: list[str] = field(default_factory=list)
    bad_signatures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)

    def bodies(self, path: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [r.body for r in self.processed.values() if path is None or r.path == path]


def _handler(state: ReceiverState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers = {k.lower(): v for k, v in self.headers.items()}
            key = headers.get("idempotency-key", "")
            got = Received(self.path, key, headers, json.loads(raw), raw)
            mode = state.mode()
            with state.lock:
                state.requests.append(got)
                if key in state.acked:
                    state.resent_after_ack.append(key)
                if state.hmac_secret and not _signed(state.hmac_secret, headers, raw):
                    state.bad_signatures += 1
                if not mode.isdigit() and mode not in ("reset", "drip", "drip-body"):
                    state.processed.setdefault(key, got)
            if mode in ("drip", "drip-body"):
                self._drip(mode == "drip")
            elif mode.isdigit():
                self._answer(int(mode))
            elif mode == "reset":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            elif mode == "hang":
                state.release.wait(state.hang_s)
                self._answer(200)  # too late: the client has gone
            else:
                with state.lock:
                    state.acked.add(key)
                self._answer(200)

        def _drip(self, whole: bool) -> None:
            body = b"x" * 64
            head = f"HTTP/1.0 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            slow = head + body if whole else body
            try:
                if not whole:
                    self.wfile.write(head)
                for i in range(len(slow)):
                    self.wfile.write(slow[i : i + 1])
                    if state.release.wait(state.drip_s):
                        return
            except OSError:
                pass  # the client gave up

        def _answer(self, status: int) -> None:
            try:
                self.send_response(status)
                if state.retry_after and status in (429, 503):
                    self.send_header("Retry-After", state.retry_after)
                if state.location and 300 <= status < 400:
                    self.send_header("Location", state.location)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
                pass

    return Handler


def _signed(secret: str, headers: dict[str, str], raw: bytes) -> bool:
    stamp = headers.get("x-kafka-health-timestamp", "")
    want = hmac.new(secret.encode(), stamp.encode() + b"." + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(headers.get("x-kafka-health-signature", ""), f"sha256={want}")


@contextmanager
def webhook_receiver(state: ReceiverState) -> Iterator[str]:
    """Serve until the block ends; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
