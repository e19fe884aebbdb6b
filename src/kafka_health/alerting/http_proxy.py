"""The egress proxy of a webhook request, chosen as urllib chose it, and the CONNECT tunnel.

:func:`proxy_for` reads the environment on every call with ``urllib.request.getproxies()``
(``https_proxy`` for an https receiver, ``http_proxy`` for an http one, lowercase before
uppercase, ``HTTP_PROXY`` ignored under CGI; ``all_proxy`` is not used, as urllib did not) and
``urllib.request.proxy_bypass()`` (``no_proxy``: ``*``, a host, a domain suffix, ``host:port``).
The proxy is spoken to in clear text (an ``http://`` URL, or one with no scheme); user info in
its URL becomes ``Proxy-Authorization: Basic``. The proxy URL is a secret-bearing value: only
:attr:`Proxy.shown` (:func:`safe_url`) may be logged, and no error quotes it.

An https receiver is reached through ``CONNECT host:port`` (:func:`open_tunnel`): the request
and the proxy's answer are bounded by the request's deadline and the answer's head by
:data:`MAX_PROXY_ANSWER_BYTES`. A refusal (not 2xx) is :class:`ProxyRefused`, a connection
failure: the request never reached the receiver, so nothing is known of its answer.
"""

from __future__ import annotations

import base64
import re
import socket
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_health.configuration.redact import safe_url

if TYPE_CHECKING:
    from kafka_health.alerting.http_exchange import Deadline

MAX_PROXY_ANSWER_BYTES = 16_384
"""The most of the proxy's answer to CONNECT read looking for the end of its head."""
_STATUS = re.compile(rb"HTTP/1\.[01] ([0-9]{3})(?: |\r\n)")
_UNSAFE = re.compile(r"[\x00-\x20\x7f]")


class ProxyRefused(ConnectionError):
    """The proxy did not open the tunnel (or its answer was not one); a connection failure."""

    def __init__(self, why: str) -> None:
        super().__init__(None, why)  # ``strerror`` is ``why``: what a failed attempt records


@dataclass(frozen=True)
class Proxy:
    """A proxy to connect to, and the ``Proxy-Authorization`` value from its URL's user info."""

    host: str
    port: int
    shown: str
    """``scheme://host[:port]`` (:func:`safe_url`): the only form of it that may be logged."""
    authorization: str | None = field(default=None, repr=False)

    @property
    def headers(self) -> dict[str, str]:
        return {"Proxy-Authorization": self.authorization} if self.authorization else {}


def proxy_for(tls: bool, authority: str) -> Proxy | None:
    """The proxy for a receiver at ``authority`` (``host:port``: a ``no_proxy`` entry
    ``host:port`` matches the port, stated or default), or ``None`` to connect directly.
    ``ValueError`` (quoting nothing) when the proxy URL cannot be used."""
    url = urllib.request.getproxies().get("https" if tls else "http")
    if not url or urllib.request.proxy_bypass(authority):
        return None
    return parse_proxy(url)


def parse_proxy(url: str) -> Proxy:
    """A proxy URL as urllib takes it: ``[http://][user[:password]@]host[:port][/]``."""
    if _UNSAFE.search(url):
        raise ValueError("the proxy URL holds blanks or control characters")
    full = url if "://" in url else f"http://{url}"
    try:
        parts = urllib.parse.urlsplit(full)
        port = parts.port
    except ValueError:
        raise ValueError("the proxy URL is not valid (its host or port)") from None
    if parts.scheme.lower() != "http":
        raise ValueError("the proxy URL is not http:// (TLS or SOCKS to a proxy: unsupported)")
    if not parts.hostname or port == 0:
        raise ValueError("the proxy URL has no host or port 0")
    authorization = None
    if parts.username:
        user = urllib.parse.unquote(parts.username)
        password = urllib.parse.unquote(parts.password or "")
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        authorization = f"Basic {token}"
    return Proxy(parts.hostname, port or 80, safe_url(full), authorization)


def open_tunnel(sock: socket.socket, proxy: Proxy, authority: str, deadline: Deadline) -> None:
    """Ask the proxy on ``sock`` for a tunnel to ``authority`` (``host:port``) and read its
    answer, each step given only the deadline's time left; :class:`ProxyRefused` unless 2xx."""
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
    lines += [f"{name}: {value}" for name, value in proxy.headers.items()]
    request = memoryview("\r\n".join([*lines, "", ""]).encode("ascii"))
    while request:
        sock.settimeout(deadline.left())
        request = request[sock.send(request) :]
    head = b""
    while b"\r\n\r\n" not in head:
        if len(head) >= MAX_PROXY_ANSWER_BYTES:
            raise ProxyRefused("the proxy's answer to CONNECT is too long")
        sock.settimeout(deadline.left())
        chunk = sock.recv(MAX_PROXY_ANSWER_BYTES - len(head))
        if not chunk:
            raise ProxyRefused("the proxy closed the connection before answering CONNECT")
        head += chunk
    status = _STATUS.match(head)
    if not status:
        raise ProxyRefused("the proxy's answer to CONNECT is not HTTP")
    code = int(status.group(1))
    if not 200 <= code < 300:
        raise ProxyRefused(f"the proxy refused the tunnel (HTTP {code})")
    if head.index(b"\r\n\r\n") + 4 != len(head):  # the receiver speaks after the hello
        raise ProxyRefused("the proxy sent more than its answer to CONNECT")
