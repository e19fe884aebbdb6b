"""A webhook receiver that records every request with its arrival time, as a pager would see it.

It speaks the receiving side of Alertmanager's webhook (version 4, kafka-health's default
format) and behaves as a pager that deduplicates by ``Idempotency-Key``: the first accepted
request with a key opens or updates the incident, a repeat is answered 200 and counted; a
request without the header (Alertmanager's webhook sends none) is a notification of its own. Its
``mode`` can be switched while it runs, for outages:

- ``ok``: accept (200);
- ``500``: answer 500 without processing;
- ``hang``: read the request, process nothing and hold the connection until ``hang_s`` has
  passed or the mode changes, then close it without an answer (a pager that is down but still
  accepts connections).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["ok", "500", "hang"]


@dataclass(frozen=True)
class Request:
    """One HTTP request as it arrived (whatever was answered)."""

    at: float
    path: str
    idempotency_key: str
    answered: int | None
    """HTTP status sent back; None when the connection was held and dropped."""
    body: dict[str, Any]


@dataclass(frozen=True)
class Page:
    """One processed notification: the first accepted request of an idempotency key (every
    accepted request without one)."""

    at: float
    idempotency_key: str
    group_key: str
    status: str
    alerts: list[dict[str, Any]]

    def firing(self) -> list[dict[str, Any]]:
        return [a for a in self.alerts if a.get("status") == "firing"]


@dataclass
class RecordingReceiver:
    """Serve on 127.0.0.1 (a free port unless given) until ``stop``; thread-safe records."""

    port: int = 0
    hang_s: float = 120.0
    clock: Callable[[], float] = time.time
    on_page: Callable[[Page], None] | None = None
    requests: list[Request] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    repeats_after_ack: list[str] = field(default_factory=list)
    """Keys accepted again after a 200 was already sent for them (the sender re-sent)."""
    _mode: Mode = "ok"
    _acked: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _mode_changed: threading.Condition = field(init=False)
    _held: int = 0
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        self._mode_changed = threading.Condition(self._lock)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> RecordingReceiver:
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler(self))
        # Handler threads are joined by ``stop`` (not daemons), so every request that reached
        # the receiver is recorded once ``stop`` returns, even one held open in ``hang`` mode.
        self._server.daemon_threads = False
        self._server.block_on_close = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fault-receiver", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, release held connections and wait for every handler to finish."""
        self.set_mode("ok")  # releases held connections
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()  # joins the handler threads
            self._server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/pager"

    # ------------------------------------------------------------------ control and reading

    def set_mode(self, mode: Mode) -> None:
        with self._mode_changed:
            self._mode = mode
            self._mode_changed.notify_all()

    @property
    def mode(self) -> Mode:
        with self._lock:
            return self._mode

    @property
    def held_connections(self) -> int:
        """Requests being held open right now (``hang`` mode), not yet recorded."""
        with self._lock:
            return self._held

    def pages_since(self, since: float) -> list[Page]:
        with self._lock:
            return [p for p in self.pages if p.at >= since]

    def open_groups(self) -> set[str]:
        """Group keys whose latest processed notification is still firing."""
        latest: dict[str, str] = {}
        with self._lock:
            for page in self.pages:
                latest[page.group_key] = page.status
        return {key for key, status in latest.items() if status == "firing"}

    # ------------------------------------------------------------------ the handler's side

    def _receive(self, path: str, key: str, raw: bytes) -> int | None:
        """Record one request; return the status to answer (None: drop the connection)."""
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError:
            body = {"unreadable": raw[:200].decode("utf-8", "replace")}
        arrived = self.clock()
        with self._mode_changed:
            mode = self._mode
            if mode == "hang":
                self._held += 1
                self._mode_changed.wait_for(lambda: self._mode != "hang", timeout=self.hang_s)
                self._held -= 1
                self.requests.append(Request(arrived, path, key, None, body))
                return None
            if mode == "500":
                self.requests.append(Request(arrived, path, key, 500, body))
                return 500
            self.requests.append(Request(arrived, path, key, 200, body))
            if key and key in self._acked:
                self.repeats_after_ack.append(key)
                return 200
            if key:
                self._acked.add(key)
            page = Page(
                at=arrived,
                idempotency_key=key,
                group_key=str(body.get("groupKey", "")),
                status=str(body.get("status", "")),
                alerts=list(body.get("alerts", [])),
            )
            self.pages.append(page)
        if self.on_page is not None:
            self.on_page(page)
        return 200


def _handler(receiver: RecordingReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 30.0  # a client that stops sending mid-request cannot hold ``stop`` forever

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0") or 0)
            raw = self.rfile.read(min(length, 10 * 1024 * 1024))
            key = self.headers.get("Idempotency-Key", "")
            status = receiver._receive(self.path, key, raw)
            if status is None:
                self.close_connection = True
                return
            try:
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
                pass

    return Handler
