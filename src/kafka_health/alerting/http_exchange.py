"""One HTTP POST within one deadline: connect, TLS handshake, the request sent and the answer
read to its end (at most :data:`MAX_ANSWER_BYTES`), all within ``timeout_s`` in total.

urllib's timeout bounds each socket operation, so a receiver that answers a byte every half
second held a request (and every page behind it) forever. Here every socket operation gets
only the time left (:class:`Deadline`) and the TLS handshake runs non-blocking against it.
Name resolution is the one step no socket timeout bounds (``getaddrinfo`` blocks in the C
library); it holds only its own receiver's worker. No redirect is followed (a 3xx is the
answer) and no proxy is used. The URL and the header values are checked before anything is
sent; :class:`InvalidRequest` says why without quoting them (they may hold secrets).
"""

from __future__ import annotations

import http.client
import io
import re
import select
import socket
import ssl
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MAX_ANSWER_BYTES = 65_536
"""The most of an answer's body read (it is not used; a huge one must not cost memory)."""
_UNSAFE = re.compile(r"[\x00-\x20\x7f]")
"""Blanks and control characters: never in a request line or a URL's host."""
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
"""Control characters other than tab: a header value holding one would end the header."""
_CONTEXT: ssl.SSLContext | None = None


class InvalidRequest(Exception):
    """The request cannot be made as configured; the message quotes no URL and no value."""


class Deadline:
    """A monotonic deadline: :meth:`left` is the time remaining, ``TimeoutError`` once none."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no complete answer within the request's deadline")
        return remaining


@dataclass(frozen=True)
class Target:
    """Where a request goes: host, port, TLS, and the request target (path and query)."""

    host: str
    port: int
    tls: bool
    path: str

    @staticmethod
    def parse(url: str) -> Target:
        """The target of an http(s) URL; :class:`InvalidRequest` when it is not one, or
        carries user info (credentials are never sent from the URL)."""
        if _UNSAFE.search(url):
            raise InvalidRequest("the URL holds blanks or control characters")
        try:
            parts = urllib.parse.urlsplit(url)
            port = parts.port
        except ValueError:
            raise InvalidRequest("the URL is not valid (its host or port)") from None
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise InvalidRequest("the URL is not http(s)")
        if "@" in parts.netloc:
            raise InvalidRequest("the URL carries user info (credentials do not go in the URL)")
        if not parts.hostname:
            raise InvalidRequest("the URL has no host")
        if port == 0:
            raise InvalidRequest("the URL's port is 0")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        default = 443 if scheme == "https" else 80
        return Target(parts.hostname, port or default, scheme == "https", path)

    @property
    def host_header(self) -> str:
        try:
            host = self.host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InvalidRequest("the URL's host is not a valid host name") from None
        host = f"[{host}]" if ":" in host else host
        default = 443 if self.tls else 80
        return host if self.port == default else f"{host}:{self.port}"


def check_headers(headers: Mapping[str, str]) -> None:
    """:class:`InvalidRequest` naming the first header whose value would break the request
    (a line break, say from a token file's last line, or a character outside Latin-1)."""
    for name, value in headers.items():
        if _BAD_VALUE.search(value):
            raise InvalidRequest(f"the {name} header's value holds a line break or control char")
        try:
            value.encode("latin-1")
        except UnicodeEncodeError:
            raise InvalidRequest(f"the {name} header's value is not Latin-1 text") from None


@dataclass(frozen=True)
class Answer:
    """The receiver's status and Retry-After header."""

    status: int
    retry_after: str | None


def post(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float) -> Answer:
    """POST ``body`` to ``url``; the whole exchange ends within ``timeout_s``
    (``TimeoutError`` otherwise). Raises :class:`InvalidRequest` before connecting when the
    request cannot be made, ``OSError`` or ``http.client.HTTPException`` when it fails."""
    deadline = Deadline(timeout_s)
    target = Target.parse(url)
    sent = {**headers, "Host": target.host_header, "Connection": "close"}
    check_headers(sent)
    sock = _connect(target, deadline)
    try:
        bounded = _Bounded(sock, deadline)
        conn = http.client.HTTPConnection(target.host, target.port)
        conn.sock = cast(socket.socket, bounded)  # sends through the deadline
        conn.request("POST", target.path, body, sent)
        answer = http.client.HTTPResponse(cast(socket.socket, bounded), method="POST")
        answer.begin()
        answer.read(MAX_ANSWER_BYTES)  # to its end, bounded; the body is not used
        return Answer(answer.status, answer.getheader("Retry-After"))
    finally:
        sock.close()


def _connect(target: Target, deadline: Deadline) -> socket.socket:
    """A TCP connection to the first address that takes one in the time left, then TLS."""
    errors: list[OSError] = []
    for family, kind, proto, _, address in socket.getaddrinfo(
        target.host, target.port, type=socket.SOCK_STREAM
    ):
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.left())
            sock.connect(address)
        except OSError as exc:
            sock.close()
            if isinstance(exc, TimeoutError):
                raise
            errors.append(exc)
            continue
        return _handshake(sock, target.host, deadline) if target.tls else sock
    raise errors[0] if errors else OSError("the host has no address")


def _handshake(sock: socket.socket, host: str, deadline: Deadline) -> ssl.SSLSocket:
    """TLS with the system's trust store, non-blocking so a peer dripping its handshake
    cannot outlast the deadline."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = ssl.create_default_context()
    sock.setblocking(False)
    try:
        tls = _CONTEXT.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
    except BaseException:
        sock.close()
        raise
    try:
        while True:
            try:
                tls.do_handshake()
                return tls
            except ssl.SSLWantReadError:
                ready = select.select([tls], [], [], deadline.left())[0]
            except ssl.SSLWantWriteError:
                ready = select.select([], [tls], [], deadline.left())[1]
            if not ready:
                deadline.left()  # raises once the time is up
    except BaseException:
        tls.close()
        raise


class _Bounded:
    """The socket as ``http.client`` uses it (``sendall``, ``makefile``), every send and
    receive given only the time left."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self.sock = sock
        self.deadline = deadline

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            self.sock.settimeout(self.deadline.left())
            view = view[self.sock.send(view) :]

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self))

    def recv_into(self, buffer: WriteableBuffer) -> int:
        self.sock.settimeout(self.deadline.left())
        return self.sock.recv_into(buffer)


class _Reader(io.RawIOBase):
    """The answer's bytes, each read bounded by the deadline."""

    def __init__(self, bounded: _Bounded) -> None:
        self.bounded = bounded

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        return self.bounded.recv_into(buffer)
