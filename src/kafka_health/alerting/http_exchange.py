"""One HTTP POST within one deadline: connect, TLS handshake, the request sent and the answer
read to its end (at most :data:`MAX_ANSWER_BYTES`), all within ``timeout_s`` in total.

urllib's timeout bounds each socket operation, so a receiver that answers a byte every half
second held a request (and every page behind it) forever. Here every socket operation gets
only the time left (:class:`Deadline`) and the TLS handshake runs non-blocking against it.
Name resolution is the one step no socket timeout bounds (``getaddrinfo`` blocks in the C
library); it holds only its own receiver's worker. No redirect is followed (a 3xx is the
answer). The URL and the header values are checked before anything is sent;
:class:`InvalidRequest` says why without quoting them (they may hold secrets).

The proxy environment variables are honoured as urllib honoured them (:mod:`.http_proxy`):
an https receiver is reached through a ``CONNECT`` tunnel, TLS to the receiver inside it
(its name sent and checked), an http one by the absolute-form request to the proxy; the
proxy's steps are under the same deadline. A proxy that refuses (``CONNECT`` not answered
2xx, or 407 to a plain request) fails the attempt as a connection failure, not as the
receiver's answer: the request never reached it.
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

from kafka_health.alerting.http_proxy import Proxy, ProxyRefused, open_tunnel, proxy_for

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
    def authority(self) -> str:
        """``host:port``, the host in ASCII (IDNA), an IPv6 address in brackets."""
        try:
            host = self.host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InvalidRequest("the URL's host is not a valid host name") from None
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"

    @property
    def host_header(self) -> str:
        if self.port != (443 if self.tls else 80):
            return self.authority
        return self.authority.rsplit(":", 1)[0]

    @property
    def proxy(self) -> Proxy | None:
        """The proxy the environment names for this target, ``None`` when direct."""
        try:
            return proxy_for(self.tls, self.authority)
        except ValueError as exc:  # its message quotes nothing
            raise InvalidRequest(str(exc)) from None


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
    proxy = target.proxy
    forward = None if target.tls else proxy  # the absolute-form request to the proxy
    if forward:
        sent |= forward.headers
    sock = _open(target, proxy, deadline)
    try:
        bounded = _Bounded(sock, deadline)
        conn = http.client.HTTPConnection(target.host, target.port)
        conn.sock = cast(socket.socket, bounded)  # sends through the deadline
        path = f"http://{target.host_header}{target.path}" if forward else target.path
        conn.request("POST", path, body, sent)
        answer = http.client.HTTPResponse(cast(socket.socket, bounded), method="POST")
        answer.begin()
        answer.read(MAX_ANSWER_BYTES)  # to its end, bounded; the body is not used
        if forward and answer.status == 407:
            raise ProxyRefused("the proxy refused the request (HTTP 407)")
        return Answer(answer.status, answer.getheader("Retry-After"))
    finally:
        sock.close()


def _open(target: Target, proxy: Proxy | None, deadline: Deadline) -> socket.socket:
    """The connection the request is sent on: to the receiver or its proxy, then (https)
    through the proxy's tunnel and TLS to the receiver."""
    if proxy is None:
        sock = _connect(target.host, target.port, deadline)
    else:
        sock = _connect(proxy.host, proxy.port, deadline)
        if target.tls:
            try:
                open_tunnel(sock, proxy, target.authority, deadline)
            except BaseException:
                sock.close()
                raise
    return _handshake(sock, target.host, deadline) if target.tls else sock


def _connect(host: str, port: int, deadline: Deadline) -> socket.socket:
    """A TCP connection to the first address that takes one in the time left."""
    errors: list[OSError] = []
    for family, kind, proto, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
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
        return sock
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
