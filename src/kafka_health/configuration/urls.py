"""HTTP(S) URLs in the config: the checks a receiver or Pushgateway URL must pass, and the
field marker that tells the engine (secret URLs) and the redaction (printed URLs) which
fields hold one. No reason here quotes the URL: its user info, path or query may be secret.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from kafka_health.errors import ConfigProblem

URL_FIELD: dict[str, Any] = {"url": True}
"""``field(metadata=URL_FIELD)``: the field holds a URL, printed as ``scheme://host[:port]``;
a secret given there is checked as a URL when it is resolved."""


def is_url_field(metadata: Any) -> bool:
    """True for a dataclass field marked with :data:`URL_FIELD`."""
    return bool(metadata.get("url", False))


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a usable http(s) URL without credentials in it, else None."""
    if not url:
        return "is empty: an http(s) URL is required"
    if any(c.isspace() or not c.isprintable() for c in url):
        return "is not an http(s) URL (it contains blanks or control characters)"
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "is not an http(s) URL"
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an http(s) URL"
    if "@" in parts.netloc:
        return "carries user info (user:password@): credentials do not go in a URL"
    if not parts.hostname:
        return "has no host"
    try:
        port = parts.port
    except ValueError:
        return "has an invalid port (1 to 65535)"
    if port == 0:
        return "has an invalid port (1 to 65535)"
    return None


def check_url(url: str, path: str, required: bool) -> list[ConfigProblem]:
    """The problem of a URL written in the config at ``path`` (empty allowed unless required)."""
    if not url and not required:
        return []
    problem = url_problem(url)
    return [ConfigProblem(path, problem)] if problem else []
